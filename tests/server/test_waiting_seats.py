"""Nobody holds the site's waiting seats (issue 25 §1.5): one account took 30 of 30 waiting seats, the
operator could neither stop a waiting table (409 `not_started`) nor remove the player. Now a user holds at
most `PREFERANS_MAX_WAITING_SEATS_PER_USER` seats at waiting tables, the room's operator removes a player
from a table that has not started, and a seat whose player has gone (no socket to the table) is freed
after `PREFERANS_WAITING_SEAT_GRACE`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from app.bots.client import Api, ApiError
from tests.server.conftest import ADMIN, OPERATOR, ServerProcess, _server, login, new_player


@pytest.fixture
def seats_server(tmp_path: Path) -> Iterator[ServerProcess]:
    env = {"PREFERANS_MAX_WAITING_SEATS_PER_USER": "2", "PREFERANS_WAITING_SEAT_GRACE": "1.5"}
    yield from _server(f"sqlite+aiosqlite:///{tmp_path / 's.db'}", tmp_path, env)


async def _tables(operator: Api, count: int, seats: int = 3) -> list[int]:
    room = await operator.create_room("seats", {})
    return [int((await operator.open_table(room["id"], seats))["id"]) for _ in range(count)]


async def _players(api: Api, table_id: int) -> list[str | None]:
    table: dict[str, Any] = await api.call("GET", f"/api/tables/{table_id}")
    return [seat["user"] for seat in table["players"]]


async def _refused(call: Any) -> ApiError:
    with pytest.raises(ApiError) as refused:
        await call
    return refused.value


async def test_a_user_holds_a_bounded_number_of_waiting_seats(seats_server: ServerProcess) -> None:
    operator = await login(seats_server, OPERATOR)
    hog = await new_player(seats_server, "hog")
    sockets = []
    try:
        tables = await _tables(operator, 4)
        for table_id in tables[:2]:
            sockets.append(await websockets.connect(await hog.ws_url(table_id)))  # present: keeps his seats
            await hog.sit(table_id)
        refused = await _refused(hog.sit(tables[2]))
        assert refused.status == 409 and refused.body["error"] == "too_many_seats", refused.body
        assert await _players(operator, tables[2]) == [None, None, None]
        await hog.call("POST", f"/api/tables/{tables[0]}/leave")
        sockets.append(await websockets.connect(await hog.ws_url(tables[2])))
        assert await hog.sit(tables[2]) == 0  # a seat given up is one he may take elsewhere
    finally:
        for ws in sockets:
            await ws.close()
        await hog.close()
        await operator.close()


async def test_the_operator_removes_a_player_from_a_table_that_has_not_started(
    seats_server: ServerProcess,
) -> None:
    operator = await login(seats_server, OPERATOR)
    players = [await new_player(seats_server) for _ in range(4)]
    sockets = []
    try:
        waiting, playing = await _tables(operator, 2)
        for api in players[:3]:
            sockets.append(await websockets.connect(await api.ws_url(waiting)))
        await players[0].sit(waiting, 1)
        await players[1].sit(waiting, 2)
        stranger = await _refused(players[1].call("POST", f"/api/tables/{waiting}/seats/1/remove"))
        assert stranger.status == 403
        assert await operator.call("POST", f"/api/tables/{waiting}/seats/1/remove") == {"removed": True}
        names = await _players(operator, waiting)
        assert names[1] is None and names[2] is not None
        free = await _refused(operator.call("POST", f"/api/tables/{waiting}/seats/1/remove"))
        assert free.status == 409 and free.body["error"] == "not_seated"
        assert await players[2].sit(waiting, 1) == 1  # the freed seat is anyone's
        # Once the game has started its seats are fixed (RULES §7.7).
        for api in players[1:4]:
            sockets.append(await websockets.connect(await api.ws_url(playing)))
            await api.sit(playing)
        started = await _refused(operator.call("POST", f"/api/tables/{playing}/seats/0/remove"))
        assert started.status == 409 and started.body["error"] == "game_started", started.body
    finally:
        for ws in sockets:
            await ws.close()
        for api in [*players, operator]:
            await api.close()


async def test_a_seat_whose_player_has_gone_is_freed_after_the_grace(seats_server: ServerProcess) -> None:
    operator = await login(seats_server, OPERATOR)
    present, gone = await new_player(seats_server), await new_player(seats_server)
    try:
        (table_id,) = await _tables(operator, 1)
        async with websockets.connect(await present.ws_url(table_id)) as ws:
            await present.sit(table_id, 0)
            await gone.sit(table_id, 1)  # over REST, and never opens the table
            deadline = time.monotonic() + 30
            while (await _players(operator, table_id))[1] is not None:
                assert time.monotonic() < deadline, "the seat of a player who never came stayed taken"
                await asyncio.sleep(0.2)
            started = time.monotonic()
            while time.monotonic() - started < 3:  # twice the grace: the present player keeps his seat
                assert (await _players(operator, table_id))[0] is not None
                await asyncio.sleep(0.3)
            await ws.close()
            deadline = time.monotonic() + 30
            while (await _players(operator, table_id))[0] is not None:
                assert time.monotonic() < deadline, "the seat of a player who left the table stayed taken"
                await asyncio.sleep(0.2)
    finally:
        for api in (present, gone, operator):
            await api.close()


async def test_a_revoked_token_or_a_disabled_account_takes_no_seat(seats_server: ServerProcess) -> None:
    """The sit reads its user in the session of its checks (issue 24): a token revoked by logging out, and
    an account disabled by an administrator, are still refused (401) and leave the seat free."""
    operator = await login(seats_server, OPERATOR)
    admin = await login(seats_server, ADMIN)
    out, disabled = await new_player(seats_server), await new_player(seats_server)
    try:
        (table_id,) = await _tables(operator, 1)
        await out.call("POST", "/api/auth/logout")
        revoked = await _refused(out.sit(table_id, 0))
        assert revoked.status == 401 and "revoked" in revoked.body["message"], revoked.body
        name = (await disabled.call("GET", "/api/auth/me"))["name"]
        await admin.call("POST", f"/api/admin/users/{name}/disable")
        refused = await _refused(disabled.sit(table_id, 1))
        assert refused.status == 401 and "disabled" in refused.body["message"], refused.body
        assert await _players(operator, table_id) == [None, None, None]
    finally:
        for api in [out, disabled, admin, operator]:
            await api.close()
