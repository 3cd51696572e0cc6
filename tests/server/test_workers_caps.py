"""Issue 25 §3, §1.5: what was counted or told per worker process holds for the whole server when it runs
several (``serve --workers 2``): a user's sockets across every worker's tables, the waiting seats he
holds, and a chat mute's notice to his sockets wherever they are."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from app.bots.client import Api, ApiError
from tests.conftest import database_for
from tests.server.conftest import Workers, new_player, run_workers
from tests.server.test_workers import OVERRIDES, _owners

CAP = 3  # sockets per user
SEATS = 2  # waiting seats per user
CHAT_BURST = 3  # a user's chat messages at once (then one an hour: none refills within a test)
CAPS = {
    "PREFERANS_MAX_CONNECTIONS_PER_USER": str(CAP),
    "PREFERANS_MAX_WAITING_SEATS_PER_USER": str(SEATS),
    "PREFERANS_CHAT_USER_PER_MINUTE": str(1 / 60),
    "PREFERANS_CHAT_USER_BURST": str(CHAT_BURST),
}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workers]:
    yield from run_workers(database_for(request, tmp_path), tmp_path, extra_env=CAPS)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def slow_commit_workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workers]:
    """Workers whose every commit waits 0.5 s for others to join its batch: two sits sent at once are
    both between their seat count and their stored seat together, whatever the machine's speed."""
    env = {**CAPS, "PREFERANS_COMMIT_WINDOW_MS": "500"}
    yield from run_workers(database_for(request, tmp_path), tmp_path, extra_env=env)


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


async def _open(api: Api, table_id: int) -> tuple[Any, str]:
    """A socket of ``api``'s user to the table (at its owner) and what the server said first: ``snapshot``
    when it was let in, else the error's code."""
    ws = await websockets.connect(await api.ws_url(table_id), open_timeout=30)
    first = json.loads(await asyncio.wait_for(ws.recv(), 30))
    return ws, first["type"] if first["type"] == "snapshot" else first["code"]


def test_a_users_sockets_are_capped_across_both_workers(workers: Workers) -> None:
    """`max_connections_per_user` (3 here) counts the user's sockets at both workers: two at worker 0's
    table and one at worker 1's leave none for a fourth at worker 1 (each worker alone counts fewer); one
    closed at worker 0 lets one more in at worker 1; and of sockets opened all at once at both workers
    exactly the cap get in."""

    async def scenario() -> None:
        operator = Api(workers.server.url)
        await operator.login("operator1", "operator-password")
        users = [await new_player(workers.server, "sock") for _ in range(2)]
        sockets: list[Any] = []
        try:
            _, by_slot = await _tables_on_both(workers, operator, 2)
            at = {slot: by_slot[slot][0] for slot in (0, 1)}
            user = users[0]
            for slot in (0, 0, 1):
                ws, said = await _open(user, at[slot])
                sockets.append(ws)
                assert said == "snapshot" and ws.remote_address[1] == workers.ports[slot]
            ws, said = await _open(user, at[1])
            assert ws.remote_address[1] == workers.ports[1]
            assert said == "too_many_connections", said
            await ws.wait_closed()
            assert ws.close_code == 1008
            await sockets.pop(0).close()  # one of worker 0's: its place is free at worker 1 once uncounted
            async with asyncio.timeout(30):
                while True:
                    ws, said = await _open(user, at[1])
                    if said == "snapshot":
                        sockets.append(ws)
                        break
                    assert said == "too_many_connections", said
                    await ws.close()
                    await asyncio.sleep(0.1)

            # All at once, three at each worker: exactly the cap in.
            racer = users[1]
            opened = await asyncio.gather(*(_open(racer, at[slot]) for slot in (0, 1, 0, 1, 0, 1)))
            sockets += [ws for ws, _ in opened]
            admitted = [said for _, said in opened if said == "snapshot"]
            assert len(admitted) == CAP, [said for _, said in opened]
            assert {said for _, said in opened} <= {"snapshot", "too_many_connections"}
        finally:
            for ws in sockets:
                await ws.close()
            for api in [*users, operator]:
                await api.close()

    asyncio.run(scenario())


def test_two_sits_at_once_at_two_workers_do_not_both_pass_the_waiting_seat_cap(
    slow_commit_workers: Workers,
) -> None:
    """Issue 25 §1.5 with two workers: a user holding one waiting seat (of 2 allowed) sits at two tables
    at once, each at the worker that runs it. Before, each worker counted his stored seats (1), and both
    sits passed while neither was stored yet: 3 seats. Now one of them is refused ``too_many_seats``."""
    workers = slow_commit_workers

    async def scenario() -> None:
        operator = Api(workers.server.url)
        await operator.login("operator1", "operator-password")
        user = await new_player(workers.server, "seats")
        direct = [Api(f"http://127.0.0.1:{port}", user.token) for port in workers.ports]
        try:
            _, by_slot = await _tables_on_both(workers, operator, 4)
            assert await user.sit(by_slot[0][1]) == 0
            raced = (by_slot[0][0], by_slot[1][0])
            results = await asyncio.gather(
                *(direct[slot].sit(raced[slot]) for slot in (0, 1)), return_exceptions=True
            )
            refused = [r for r in results if isinstance(r, ApiError)]
            assert len(refused) == 1, results
            assert refused[0].status == 409 and refused[0].body["error"] == "too_many_seats", refused[0].body
            held = 0
            for table_id in (by_slot[0][1], *raced):
                table = await operator.call("GET", f"/api/tables/{table_id}")
                held += sum(1 for seat in table["players"] if seat["user"] is not None)
            assert held == SEATS
        finally:
            for api in [*direct, user, operator]:
                await api.close()

    asyncio.run(scenario())


def test_a_users_chat_messages_are_counted_across_both_workers(workers: Workers) -> None:
    """The chat limit per user (across tables) is one budget at every worker: the messages spent at a table
    worker 0 runs leave none at a table worker 1 runs (429 with Retry-After there); another user still
    writes there."""

    async def scenario() -> None:
        operator = Api(workers.server.url)
        await operator.login("operator1", "operator-password")
        writer = await new_player(workers.server, "chat")
        other = await new_player(workers.server, "calm")
        try:
            _, by_slot = await _tables_on_both(workers, operator, 2)
            for n in range(CHAT_BURST):
                await writer.call("POST", f"/api/tables/{by_slot[0][0]}/chat", {"text": f"hello {n}"})
            # Asked raw: the bots' client would wait out the Retry-After and ask again.
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{workers.ports[1]}", timeout=30) as raw:
                refused = await raw.post(
                    f"/api/tables/{by_slot[1][0]}/chat",
                    json={"text": "and here"},
                    headers={"Authorization": f"Bearer {writer.token}"},
                )
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"] == "rate_limited" and int(refused.headers["retry-after"]) >= 1
            posted = await other.call("POST", f"/api/tables/{by_slot[1][0]}/chat", {"text": "hi"})
            assert posted["text"] == "hi"
        finally:
            for api in (writer, other, operator):
                await api.close()

    asyncio.run(scenario())
