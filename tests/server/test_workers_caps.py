"""Issue 25 §3, §1.5: what was counted or told per worker process holds for the whole server when it runs
several (``serve --workers 2``): a user's sockets across every worker's tables, the waiting seats he
holds, and a chat mute's notice to his sockets wherever they are."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from app.bots.client import Api
from tests.server.conftest import Workers, database_for, new_player, run_workers
from tests.server.test_workers import OVERRIDES, _owners

CAPS = {"PREFERANS_MAX_CONNECTIONS_PER_USER": "3", "PREFERANS_MAX_WAITING_SEATS_PER_USER": "2"}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workers]:
    yield from run_workers(database_for(request, tmp_path), tmp_path, extra_env=CAPS)


async def _tables_on_both(workers: Workers, operator: Api, count: int) -> tuple[int, dict[int, list[int]]]:
    """A room and ``count`` tables in it, by the slot of the worker that runs each (both run some)."""
    room = await operator.create_room("caps", OVERRIDES)
    ids = [int((await operator.open_table(room["id"], 3))["id"]) for _ in range(count)]
    boots = {workers.health(slot)["boot"]: slot for slot in range(2)}
    owners = await _owners(workers.server.database_url)
    by_slot: dict[int, list[int]] = {0: [], 1: []}
    for table_id in ids:
        by_slot[boots[owners[table_id] or ""]].append(table_id)
    assert by_slot[0] and by_slot[1], owners
    return int(room["id"]), by_slot


async def _frame(ws: Any, kind: str) -> dict[str, Any]:
    """The next frame of type ``kind`` the socket receives (others skipped)."""
    async with asyncio.timeout(30):
        while True:
            frame: dict[str, Any] = json.loads(await ws.recv())
            if frame["type"] == kind:
                return frame


def test_a_mute_stored_at_one_worker_reaches_the_users_sockets_at_the_other(workers: Workers) -> None:
    """The room's operator mutes a user through worker 0's own port: the user's sockets at both workers'
    tables of the room are told at once (the socket at worker 1 was told nothing before)."""

    async def scenario() -> None:
        operator = Api(workers.server.url)
        await operator.login("operator1", "operator-password")
        target = await new_player(workers.server, "muted")
        sockets = []
        try:
            room, by_slot = await _tables_on_both(workers, operator, 2)
            name = (await target.call("GET", "/api/auth/me"))["name"]
            for slot in (0, 1):
                ws = await websockets.connect(await target.ws_url(by_slot[slot][0]), open_timeout=30)
                assert ws.remote_address[1] == workers.ports[slot]
                await _frame(ws, "snapshot")
                sockets.append(ws)
            at_zero = Api(f"http://127.0.0.1:{workers.ports[0]}", operator.token)
            try:
                body = {"user": name, "room": room, "minutes": 5, "reason": "spam"}
                mute = await at_zero.call("POST", "/api/chat/mutes", body)
            finally:
                await at_zero.close()
            for slot, ws in zip((0, 1), sockets, strict=True):
                told = await _frame(ws, "chat_muted")
                assert told["table"] == by_slot[slot][0] and told["until"] == mute["until"]
                assert told["site_wide"] is False and told["reason"] == "spam"
        finally:
            for ws in sockets:
                await ws.close()
            await target.close()
            await operator.close()

    asyncio.run(scenario())
