"""Issue 12 §3: robots fill empty seats and play through the same table actor, clocks and views as people."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bots.client import Api, ApiError, play_table, random_chooser
from tests.server.conftest import OPERATOR, ServerProcess, _server, login, new_player


@pytest.fixture(scope="module")
def robot_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    path: Path = tmp_path_factory.mktemp("robots")
    yield from _server(
        f"sqlite+aiosqlite:///{path / 'preferans.db'}", path, {"PREFERANS_ROBOT_DELAY_MS": "0"}
    )


def test_the_route_accepts_exactly_the_robot_levels() -> None:
    from typing import get_args

    from app.robots import LEVELS
    from app.server.http.routes.lobby import RobotIn

    assert set(get_args(RobotIn.model_fields["level"].annotation)) == set(LEVELS)


async def _table(server: ServerProcess, overrides: dict[str, object]) -> tuple[Api, int]:
    operator = await login(server, OPERATOR)
    room = await operator.create_room("robots", overrides)
    table = await operator.open_table(room["id"], 3)
    return operator, int(table["id"])


async def test_three_robots_play_a_whole_pulya_that_settles_to_zero(robot_server: ServerProcess) -> None:
    operator, table_id = await _table(robot_server, {"pool_size": 2})
    watcher_api = await new_player(robot_server, "w")
    watcher = watcher_api.table(table_id)
    await watcher.connect()
    try:
        seated = [
            await operator.call("POST", f"/api/tables/{table_id}/robots", {"seat": s, "level": level})
            for s, level in enumerate(("easy", "random", "easy"))
        ]
        assert [s["robot"] for s in seated] == ["robot:easy:0", "robot:random:1", "robot:easy:2"]
        final = await play_table(watcher, None, idle_timeout=120)
        assert final["status"] == "finished" and final["outcome"]["reason"] == "pool_complete"
        assert final["outcome"]["settlement"]["sum"] == 0
        info = await watcher_api.call("GET", f"/api/tables/{table_id}")
        assert [p["robot"] for p in info["players"]] == ["easy", "random", "easy"]
    finally:
        await watcher.close()
        await watcher_api.close()
        await operator.close()


async def test_a_person_and_two_robots_play_a_pulya_and_robots_answer_in_time(
    robot_server: ServerProcess,
) -> None:
    """A strong robot with 5 s a deal and 20 s of reserve: it never runs out (it plays faster when its own
    clock runs low), so the pulya ends by its pool, not by a timeout."""
    operator, table_id = await _table(robot_server, {"pool_size": 1, "deal_time": 5, "reserve_time": 20})
    person = await new_player(robot_server)
    client = person.table(table_id)
    await client.connect()
    try:
        await person.sit(table_id, 0)
        with pytest.raises(ApiError) as refused:
            await person.call("POST", f"/api/tables/{table_id}/robots", {"level": "strong"})
        assert refused.value.status == 403
        for seat in (1, 2):
            await operator.call("POST", f"/api/tables/{table_id}/robots", {"seat": seat, "level": "strong"})
        with pytest.raises(ApiError) as started:
            await operator.call("POST", f"/api/tables/{table_id}/robots", {"level": "easy"})
        assert started.value.status == 409
        final = await play_table(client, random_chooser(random.Random(5)), idle_timeout=120)
        assert final["outcome"]["reason"] == "pool_complete" and final["outcome"]["settlement"]["sum"] == 0
    finally:
        await client.close()
        await person.close()
        await operator.close()
