"""A whole pulya played by bots over real websockets against a running server, on both databases."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.server.conftest import ADMIN, OPERATOR, PASSWORD, ServerProcess, login
from tests.server.helpers import open_table, play_out


@pytest.mark.parametrize("seats", [3, 4])
async def test_bots_play_a_pulya_to_the_end_and_settlement_sums_to_zero(
    server: ServerProcess, seats: int
) -> None:
    """RULES §7.1, §7.5: the pulya ends when the pools reach n·S; the settlement balances to exactly 0."""
    pool = 4 if seats == 3 else 3
    table = await open_table(server, seats, {"pool_size": pool, "deal_time": 60, "reserve_time": 60})
    try:
        finals = await play_out(table, seed=seats)
        outcome = finals[0]["outcome"]
        assert finals[0]["status"] == "finished"
        assert outcome["reason"] == "pool_complete"
        assert sum(outcome["settlement"]["result"]) == 0
        assert outcome["settlement"]["sum"] == 0
        sheet = finals[0]["sheet"]
        assert sheet["finished"] and sum(sheet["pools"]) >= seats * pool
        # Every seat saw the same ending.
        assert all(f["outcome"] == outcome for f in finals)
        history = await table.players[0].call("GET", f"/api/tables/{table.id}/history")
        assert history["status"] == "finished" and history["deals"]
        assert all(len(d["record"]["record"]["talon"]) == 2 for d in history["deals"])
        admin = await login(server, ADMIN)
        log = await admin.call("GET", f"/api/admin/tables/{table.id}/log")
        assert log["actions"][0]["action"]["type"] == "shuffle"
        await admin.close()
    finally:
        await table.close()


async def test_idle_seat_runs_out_and_the_game_ends_by_timeout(server: ServerProcess) -> None:
    """RULES §8.3–§8.5: deal time and reserve spent → the deal is completed automatically, the penalty is
    written and the pulya is settled (sum 0)."""
    table = await open_table(server, 3, {"pool_size": 10, "deal_time": 0.3, "reserve_time": 0.3})
    try:
        finals = await play_out(table, seed=7, idle_seat=1, timeout=120)
        outcome = finals[0]["outcome"]
        assert outcome["reason"] in ("timeout", "interrupted")
        assert sum(outcome["settlement"]["result"]) == 0
        kinds = [line["kind"] for line in finals[0]["sheet"]["history"]]
        assert "timeout" in kinds  # §5.8 penalty written
    finally:
        await table.close()


def test_bots_cli_plays_tables_to_the_end_with_an_idle_seat_and_no_reserve(server: ServerProcess) -> None:
    """`python -m app.bots play`: one JSON line per table. RULES §8.2: with the reserve off, the robot
    finishes each deal for the idle seat and the game goes on to the pool's end; the sums are 0."""
    done = subprocess.run(
        [sys.executable, "-m", "app.bots", "play", "--server", server.url, "--operator", OPERATOR,
         "--tables", "2", "--seats", "4", "--pool-size", "2", "--deal-time", "0.2", "--reserve-time", "0",
         "--idle-seat", "2", "--seed", "9"],
        env={**os.environ, "BOTS_PASSWORD": PASSWORD},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == 2 and len({line["table"] for line in lines}) == 2
    for line in lines:
        assert line["finished"] and line["reason"] == "pool_complete"
        assert line["sum"] == 0 and sum(line["settlement"]) == 0


def test_bots_cli_needs_the_operator_password(server: ServerProcess) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BOTS_PASSWORD"}
    args = ["--server", server.url, "--operator", OPERATOR, "--tables", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "app.bots", "play", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "BOTS_PASSWORD" in done.stderr
