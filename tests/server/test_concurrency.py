"""Bursts of REST requests that wait for table actors (issue 14 §5): no request holds a pooled database
connection while it waits on a table, so a burst neither stalls nor fails the tables' commits."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.conftest import OPERATOR, ServerProcess, _server, login, new_player

TABLES = 24


@pytest.fixture
def seats_server(tmp_path: Path) -> Iterator[ServerProcess]:
    # Two players wait at every table at once: the cap on a user's waiting seats (issue 25) is raised.
    env = {"PREFERANS_MAX_WAITING_SEATS_PER_USER": str(TABLES)}
    yield from _server(f"sqlite+aiosqlite:///{tmp_path / 'preferans.db'}", tmp_path, env)


async def test_a_burst_of_third_seats_and_stops_all_succeed_quickly(seats_server: ServerProcess) -> None:
    operator = await login(seats_server, OPERATOR)
    players = [await new_player(seats_server) for _ in range(3)]
    try:
        room = await operator.create_room("burst", {"pool_size": 10})
        tables = [(await operator.open_table(room["id"], 3))["id"] for _ in range(TABLES)]
        for table in tables:
            await players[0].sit(table, 0)
            await players[1].sit(table, 1)

        # Before the fix this burst exhausted the SQLite pool (each request held a connection while its
        # table's commit waited for one): a 30 s stall, then HTTP 500s.
        seats = await asyncio.gather(*(players[2].sit(table, 2) for table in tables))
        assert seats == [2] * TABLES
        # Every table started (the last seat and the start are one commit) and is being played.
        for table in tables:
            assert (await operator.call("GET", f"/api/tables/{table}"))["status"] == "playing"
        watcher = players[0].table(tables[0])
        await watcher.connect()
        snapshot = await watcher.receive(timeout=30)
        await watcher.close()
        assert (
            snapshot["type"] == "snapshot"
            and snapshot["status"] == "playing"
            and snapshot["legal"] is not None
        )

        stops = await asyncio.gather(
            *(operator.call("POST", f"/api/tables/{t}/stop", {"reason": "burst"}) for t in tables)
        )
        assert stops == [{"stopped": True}] * TABLES
        for table in tables:
            status = (await operator.call("GET", f"/api/tables/{table}"))["status"]
            assert status in ("finished", "awaiting_adjudication")
    finally:
        for api in [operator, *players]:
            await api.close()
