"""Running the server (issue 11 §5): liveness, readiness, Prometheus metrics that move as a bot game runs,
and JSON-lines logs that name the table."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.server import metrics
from app.server.logs import JsonLines, TableId
from tests.server.conftest import ServerProcess
from tests.server.helpers import open_table, play_out


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    yield shared_server


def scrape(server: ServerProcess) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = httpx.get(f"{server.url}/metrics", timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    values = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            values[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return values


def test_healthz_and_readyz_answer(server: ServerProcess) -> None:
    assert httpx.get(f"{server.url}/healthz").json() == {"status": "ok"}
    ready = httpx.get(f"{server.url}/readyz")
    assert ready.status_code == 200
    body = ready.json()
    assert body["database"] == "ok" and body["migration"] == body["head"] is not None


async def test_metrics_move_as_a_bot_game_runs(server: ServerProcess) -> None:
    before = scrape(server)
    accepted = ("preferans_actions_total", (("code", ""), ("outcome", "accepted")))
    refused = ("preferans_actions_total", (("code", "malformed_action"), ("outcome", "refused")))
    commits = ("preferans_commit_seconds_count", ())
    timeouts = ("preferans_timeouts_fired_total", ())
    lateness = ("preferans_timeout_lateness_seconds_count", ())
    table = await open_table(server, 3, {"pool_size": 10, "deal_time": 0.3, "reserve_time": 0.3})
    try:
        while table.clients[0].last is None or table.clients[0].last["status"] != "playing":
            await table.clients[0].receive(timeout=10)
        during = scrape(server)
        assert during[("preferans_open_sockets", ())] >= 3
        assert during[("preferans_live_tables", (("status", "playing"),))] >= 1
        seq = await table.clients[0].act({"type": "no such action"})
        while True:
            frame = await table.clients[0].receive(timeout=10)
            if frame["type"] == "error" and frame.get("seq") == seq:
                assert frame["code"] == "malformed_action"
                break
        # Seat 1 never acts: its clock runs out, the timeouts fire and the pulya ends (RULES §8.3).
        await play_out(table, seed=3, idle_seat=1, timeout=120)
    finally:
        await table.close()
    await asyncio.sleep(0.2)  # the sockets' close reaches the server
    after = scrape(server)
    assert after.get(accepted, 0) > before.get(accepted, 0)
    assert after[refused] == before.get(refused, 0) + 1
    assert after[commits] > before[commits]
    assert after[timeouts] > before.get(timeouts, 0)
    assert after[lateness] == after[timeouts]
    loop_lag = ("preferans_loop_lag_seconds_count", ())
    assert after[loop_lag] > before[loop_lag]  # the loop's timer is sampled all along
    assert after[("preferans_open_sockets", ())] < during[("preferans_open_sockets", ())]
    awaiting = ("preferans_interrupted_awaiting_award", ())
    assert awaiting in after  # read from the archive at each scrape


def test_json_lines_name_the_table_of_an_actor_task() -> None:
    records: list[str] = []
    formatter, table_id = JsonLines(), TableId()

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(formatter.format(record))

    handler = Keep()
    handler.addFilter(table_id)
    logger = logging.getLogger("test.ops.json")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False

    async def main() -> None:
        async def in_actor() -> None:
            logger.info("a step with ticket=secret")

        await asyncio.create_task(in_actor(), name="table-42")
        logger.info("no table here")

    asyncio.run(main())
    first, second = (json.loads(line) for line in records)
    assert first["table"] == 42 and first["level"] == "INFO"
    assert "secret" not in first["message"]
    assert "table" not in second and second["message"] == "no table here"


def _lag_counts() -> tuple[float, float]:
    """The loop-lag histogram's samples in all, and those of at most 50 ms."""
    total = within = 0.0
    for metric in metrics.LOOP_LAG.collect():
        for sample in metric.samples:
            if sample.name.endswith("_count"):
                total = sample.value
            elif sample.name.endswith("_bucket") and sample.labels["le"] == "0.05":
                within = sample.value
    return total, within


async def test_the_loop_lag_metric_sees_the_loop_held() -> None:
    """The loop held 120 ms (a long turn) makes the timer due within 50 ms run at least 70 ms late."""
    total, within = _lag_counts()
    watcher = asyncio.create_task(metrics.watch_loop_lag(0.05))
    try:
        await asyncio.sleep(0)  # the watcher's timer is armed
        time.sleep(0.12)  # the held loop is what is measured
        for _ in range(400):
            now_total, now_within = _lag_counts()
            if now_total > total:
                break
            await asyncio.sleep(0.01)
        assert now_total > total, "no lag sample was taken"
        assert now_total - now_within > total - within  # one sample over 50 ms: the hold
    finally:
        watcher.cancel()
