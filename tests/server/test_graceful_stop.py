"""Issue 26 §1.4. A graceful stop (SIGTERM) under unpaced bot play acknowledges every action it stored on
the socket it came from before closing that socket (uvicorn closes sockets before the app's own shutdown
runs; the tables end the command they are on first). The seat holder's retried sit, its reply lost with
a restart after the game started, is answered ``already_seated``, not ``game_started``."""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any

import pytest
from sqlalchemy import select

from app.bots.client import ApiError
from app.db.engine import make_engine
from app.db.models import ActionRecord
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player
from tests.server.test_recovery_under_load import _connect, _drive

TABLES = 6


async def test_a_graceful_stop_acknowledges_every_stored_action_before_closing(
    sqlite_server: ServerProcess,
) -> None:
    server = sqlite_server
    operator = await login(server, OPERATOR)
    players = [await new_player(server) for _ in range(3)]
    user_ids = [(await api.call("GET", "/api/auth/me"))["id"] for api in players]
    try:
        room = await operator.create_room("stop", {"pool_size": 200, "deal_time": 60, "reserve_time": 120})
        tables = [(await operator.open_table(room["id"], 3))["id"] for _ in range(TABLES)]
        for table in tables:
            for seat in range(3):
                await players[seat].sit(table, seat)
        clients = await _connect(players, tables)
        acked: dict[tuple[int, int], list[int]] = {}
        seen: list[dict[str, Any]] = [{} for _ in tables]
        rng = random.Random(26)
        tasks = [
            asyncio.create_task(
                _drive(client, acked.setdefault((t, s), []), seen[t], random.Random(rng.random()))
            )
            for t, row in enumerate(clients)
            for s, client in enumerate(row)
        ]
        await asyncio.sleep(3.0)
        assert sum(len(v) for v in acked.values()) > TABLES * 5, "the load did not run"
        await asyncio.to_thread(server.stop)  # SIGTERM while every table is busy
        # Each driver ends when its socket closes (after every frame sent before the close).
        done, _ = await asyncio.wait(tasks, timeout=60)
        assert len(done) == len(tasks), "a socket stayed open after the server stopped"
        for row in clients:
            for client in row:
                with contextlib.suppress(BaseException):
                    await client.close()

        engine = make_engine(server.database_url)
        try:
            async with engine.connect() as conn:
                rows = (
                    await conn.execute(
                        select(ActionRecord.table_id, ActionRecord.user_id, ActionRecord.client_seq).where(
                            ActionRecord.client_seq.is_not(None)
                        )
                    )
                ).all()
        finally:
            await engine.dispose()
        unacked = []
        for index, table in enumerate(tables):
            for seat, user in enumerate(user_ids):
                stored = {q for t, u, q in rows if t == table and u == user and q is not None}
                unacked += [(table, seat, q) for q in sorted(stored - set(acked[(index, seat)]))]
        assert not unacked, f"stored, but the socket closed before its ack: {unacked}"
    finally:
        for api in [operator, *players]:
            await api.close()


async def test_the_seat_holders_retried_sit_is_already_seated(sqlite_server: ServerProcess) -> None:
    server = sqlite_server
    operator = await login(server, OPERATOR)
    players = [await new_player(server) for _ in range(3)]
    try:
        room = await operator.create_room("sit", {"pool_size": 20})
        table = (await operator.open_table(room["id"], 3))["id"]
        for seat in range(3):
            await players[seat].sit(table, seat)  # the last one starts the game
        server.kill()
        server.start()
        for seat in range(3):
            with pytest.raises(ApiError) as again:
                await players[seat].call("POST", f"/api/tables/{table}/sit", {"seat": seat})
            refused = again.value
            assert refused.status == 409 and refused.body["error"] == "already_seated", refused.body
            # ... which a client retrying its sit takes as done (`Api.sit`).
            assert await players[seat].sit(table, seat) == seat
        outsider = await new_player(server)
        try:
            with pytest.raises(ApiError) as late:
                await outsider.sit(table, None)
            assert late.value.status == 409 and late.value.body["error"] == "game_started", late.value.body
        finally:
            await outsider.close()
    finally:
        for api in [operator, *players]:
            await api.close()
