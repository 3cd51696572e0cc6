"""Issue 26 §1.3 and issue 25 §2, RULES §8.6 [ours]: after a restart the running clock resumes only when
the seat to move is connected again (or after a grace, 10 s by default): a kill -9 of a server running
many tables, whose players come back 3 s after it is up, charges each running seat exactly the thinking
the dead process's last heartbeat proves — nothing for the downtime, the start-up, or the way back.

Read in the server's own terms (the stored clocks, the dead process's last heartbeat), so a slow machine
moves no figure: the snapshot the seat to move gets on connecting shows its clock as the restart left it,
frozen, and the ``clock`` frame that follows says it runs again."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app.bots.client import Api, TableClient
from app.db.engine import make_engine
from app.db.models import GameTable
from app.server.storage import read_heartbeats
from tests.server.conftest import OPERATOR, ServerProcess, _server, login, new_player
from tests.server.helpers import seats_left_ms

TABLES = 200
LATE = 3.0  # the players come back this long after the server is up again
CONVENTIONS = {"pool_size": 100, "deal_time": 120, "reserve_time": 300, "misere_bonus": 0}


@pytest.fixture
def many_tables_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """SQLite; one operator may open all the tables, and each of the three players come back to 16 of them
    at once (more sockets than one user's cap, 8). The grace is long enough for two hundred players to
    come back on a busy machine: what is checked is what a seat that comes back finds, not how fast a
    machine lets it (the grace's own end: tests/server/test_clock_holds.py)."""
    env = {
        "PREFERANS_MAX_LIVE_TABLES_PER_OPERATOR": str(TABLES),
        "PREFERANS_MAX_CONNECTIONS_PER_USER": "32",
        "PREFERANS_RESUME_GRACE": "600",
    }
    yield from _server(f"sqlite+aiosqlite:///{tmp_path / 'preferans.db'}", tmp_path, env)


def _stored_left_ms(record: dict[str, Any]) -> list[int]:
    return [int(deal) + int(reserve) for deal, reserve, _ in record["seats"]]


async def _clocks(database_url: str) -> dict[int, Any]:
    engine = make_engine(database_url)
    try:
        async with engine.connect() as conn:
            return dict((await conn.execute(select(GameTable.id, GameTable.clock))).all())
    finally:
        await engine.dispose()


async def _come_back(api: Api, table: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The seat to move connects: its snapshot, then the ``clock`` frame that says its clock runs (after
    the one that told it why the clock stood still)."""
    client: TableClient = api.table(table)
    await client.connect()
    try:
        async with asyncio.timeout(60):
            snapshot = await client.receive()
            while snapshot["type"] != "snapshot":
                snapshot = await client.receive()
            told = await client.receive()
            while told["type"] != "clock":
                told = await client.receive()
            # First why its clock stands still, then (its seat is the one to move) that it runs again.
            assert told["paused"] and told["reason"] == "reconnect", told
            resumed = await client.receive()
            while resumed["type"] != "clock":
                resumed = await client.receive()
        return snapshot, resumed
    finally:
        await client.close()


async def test_a_restart_of_many_tables_charges_nothing_while_the_players_come_back(
    many_tables_server: ServerProcess,
) -> None:
    server = many_tables_server
    operator = await login(server, OPERATOR)
    players = [await new_player(server) for _ in range(3)]
    engine = make_engine(server.database_url)
    try:
        room = await operator.create_room("restart", CONVENTIONS)
        tables = [(await operator.open_table(room["id"], 3))["id"] for _ in range(TABLES)]
        for table in tables:
            for seat in range(3):
                await players[seat].sit(table, seat)
        # Every game has started; the seats to move think for a heartbeat or two.
        start_beats = await read_heartbeats(engine)
        while (await read_heartbeats(engine)) == start_beats:
            await asyncio.sleep(0.2)
        server.kill()
        beats = await read_heartbeats(engine)
        crashed = await _clocks(server.database_url)

        started = time.monotonic()
        server.start()
        start_s = time.monotonic() - started
        resumed = await _clocks(server.database_url)
        await asyncio.sleep(LATE)

        gate = asyncio.Semaphore(16)

        async def back(table: int) -> tuple[dict[str, Any], dict[str, Any]]:
            mover = crashed[table]["running"]
            async with gate:
                return await _come_back(players[mover], table)

        frames = await asyncio.gather(*(back(table) for table in tables))
        for table, (snapshot, running) in zip(tables, frames, strict=True):
            before, after = crashed[table], resumed[table]
            mover = before["running"]
            beat = beats[before["wall"]["boot"]]
            proven_ms = max(0, beat - before["wall"]["since_ms"])
            # The restart stored the clock frozen, charged exactly what the last heartbeat proves.
            assert after["frozen"] and after["running"] is None and after["resume"] == mover, after
            assert after["wall"]["charged_ms"] == proven_ms, (table, after, before, beat)
            # Three seconds late, the seat to move finds its clock as the restart left it: the downtime,
            # the start-up and its way back charged to nobody.
            left, was = seats_left_ms(snapshot["clock"]), _stored_left_ms(before)
            assert snapshot["clock"]["frozen"], snapshot["clock"]
            expected = [w - (proven_ms if s == mover else 0) for s, w in enumerate(was)]
            assert all(abs(a - b) <= 2 for a, b in zip(left, expected, strict=True)), (table, left, expected)
            # ... and then its clock runs, from its return.
            assert running["paused"] is False and running["clock"]["running"] == mover, running
            assert seats_left_ms(running["clock"])[mover] >= left[mover] - 100, (running, left)
        print(f"start-up with {TABLES} live tables after kill -9: {start_s:.2f} s")
    finally:
        await engine.dispose()
        for api in [operator, *players]:
            await api.close()
