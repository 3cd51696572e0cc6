"""Private rooms over REST and websockets (issue 11 §1): only invited players (by name or by an invite link)
sit; spectating open or closed as the operator chooses; only the room's own operator manages it (403 for a
player and for another operator); bad input is a 422 naming the field, and every refusal changes nothing in
the database."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
import websockets

from app.bots.client import Api, ApiError
from tests.server.conftest import ADMIN, OPERATOR, ServerProcess, login, new_player
from tests.server.test_operator_rooms import other_operator
from tests.server.test_sessions import closed_with


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    yield shared_server


def database(server: ServerProcess) -> dict[str, list[tuple[Any, ...]]]:
    """Every row a refusal could have touched, read straight from the server's SQLite file."""
    path = server.database_url.split(":///", 1)[1]
    with sqlite3.connect(path) as conn:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in ("rooms", "room_invites", "room_links", "table_seats", "audit_log")
        }


async def name_of(api: Api) -> str:
    name: str = (await api.call("GET", "/api/auth/me"))["name"]
    return name


async def refused(api: Api, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
    with pytest.raises(ApiError) as caught:
        await api.call(method, path, body)
    return caught.value.status, caught.value.body


async def private_room(operator: Api, *, spectators: bool) -> tuple[dict[str, Any], int]:
    room = await operator.call(
        "POST",
        "/api/rooms",
        {"name": "Club", "overrides": {"pool_size": 10}, "private": True, "spectators": spectators},
    )
    table = await operator.open_table(room["id"], 3)
    return room, int(table["id"])


async def test_only_the_rooms_operator_manages_privacy_and_invites(server: ServerProcess) -> None:
    operator = await login(server, OPERATOR)
    stranger = await other_operator(server)
    player = await new_player(server)
    guest = await new_player(server)
    try:
        room, _ = await private_room(operator, spectators=True)
        guest_name, player_name = await name_of(guest), await name_of(player)
        guest_id = (
            await operator.call("POST", f"/api/operator/rooms/{room['id']}/invites", {"user": guest_name})
        )["user_id"]
        link = await operator.call("POST", f"/api/operator/rooms/{room['id']}/links")
        base = f"/api/operator/rooms/{room['id']}"
        before = database(server)
        for who in (player, stranger):
            for method, path, body in (
                ("PATCH", base, {"private": False}),
                ("PATCH", base, {"spectators": False}),
                ("GET", f"{base}/invites", None),
                ("POST", f"{base}/invites", {"user": player_name}),
                ("DELETE", f"{base}/invites/{guest_id}", None),
                ("POST", f"{base}/links", None),
                ("POST", f"{base}/links/{link['id']}/revoke", None),
            ):
                status, body_out = await refused(who, method, path, body)
                assert status == 403 and body_out["error"] == "forbidden", (method, path, body_out)
        assert database(server) == before, "a refused request changed the database"

        listing = await operator.call("GET", f"{base}/invites")
        assert listing["private"] is True and listing["spectators"] is True
        assert [u["user"] for u in listing["users"]] == [guest_name]
        assert [(ln["id"], ln["revoked_at"]) for ln in listing["links"]] == [(link["id"], None)]
        # An admin acts on any room (issue 11: "an operator acts only on their own rooms, an admin on any").
        admin = await login(server, ADMIN)
        try:
            assert (await admin.call("GET", f"{base}/invites"))["room_id"] == room["id"]
        finally:
            await admin.close()
    finally:
        for api in (operator, stranger, player, guest):
            await api.close()


async def test_bad_privacy_input_is_a_422_naming_the_field_and_changes_nothing(server: ServerProcess) -> None:
    operator = await login(server, OPERATOR)
    try:
        room, _ = await private_room(operator, spectators=True)
        base = f"/api/operator/rooms/{room['id']}"
        link = await operator.call("POST", f"{base}/links")
        before = database(server)
        for method, path, body, field in (
            ("PATCH", base, {"private": "yes"}, "private"),
            ("PATCH", base, {"spectators": 1}, "spectators"),
            ("POST", "/api/rooms", {"name": "x", "private": "true"}, "private"),
            ("POST", f"{base}/invites", {"user": "nobody-by-this-name"}, "user"),
            ("POST", f"{base}/invites", {"user": ""}, "user"),
            ("POST", f"{base}/invites", {}, "user"),
            ("POST", f"{base}/invites", {"user": "x", "role": "admin"}, "role"),
            ("DELETE", f"{base}/invites/0", None, "user_id"),
            ("POST", f"{base}/links/abc/revoke", None, "link_id"),
            ("POST", "/api/invites/short", None, "token"),
            ("POST", "/api/invites/" + "a" * 30 + "!!", None, "token"),
        ):
            status, out = await refused(operator, method, path, body)
            assert status == 422, (path, body, out)
            assert out["field"].split(".")[-1] == field, (path, body, out)
            assert field in out["message"], out
        assert (await refused(operator, "POST", f"{base}/invites", {"user": "nobody-by-this-name"}))[1][
            "error"
        ] == "unknown_user"
        # Unknown things are 404s; a revoked link is a 410.
        assert (await refused(operator, "DELETE", f"{base}/invites/999999", None))[0] == 404
        assert (await refused(operator, "POST", f"{base}/links/999999/revoke", None))[0] == 404
        assert (await refused(operator, "POST", "/api/invites/" + "x" * 43, None))[0] == 404
        assert database(server) == before, "a refused request changed the database"
        await operator.call("POST", f"{base}/links/{link['id']}/revoke")
        player = await new_player(server)
        try:
            after_revoke = database(server)
            status, out = await refused(player, "POST", f"/api/invites/{link['token']}")
            assert (status, out["error"]) == (410, "invite_revoked")
            assert database(server) == after_revoke
        finally:
            await player.close()
    finally:
        await operator.close()


async def test_only_invited_players_sit_and_robots_of_the_operator_too(server: ServerProcess) -> None:
    operator = await login(server, OPERATOR)
    named, linked, uninvited = [await new_player(server) for _ in range(3)]
    try:
        room, table_id = await private_room(operator, spectators=True)
        base = f"/api/operator/rooms/{room['id']}"
        named_name, linked_name = await name_of(named), await name_of(linked)
        listed = {r["id"]: r for r in await uninvited.call("GET", "/api/rooms")}
        assert listed[room["id"]]["private"] is True and listed[room["id"]]["may_sit"] is False

        before = database(server)
        status, out = await refused(uninvited, "POST", f"/api/tables/{table_id}/sit", {"seat": 0})
        assert (status, out["error"]) == (403, "not_invited")
        assert database(server) == before, "a refused seat changed the database"

        await operator.call("POST", f"{base}/invites", {"user": named_name})
        assert (await named.call("GET", f"/api/rooms/{room['id']}"))["may_sit"] is True
        # The lobby's list says the same, to the invited player, the operator and no one else.
        for viewer, may_sit in ((named, True), (operator, True), (uninvited, False)):
            listed = {r["id"]: r for r in await viewer.call("GET", "/api/rooms")}
            assert listed[room["id"]]["may_sit"] is may_sit and listed[room["id"]]["operator"] == OPERATOR
        assert await named.sit(table_id, 0) == 0

        link = await operator.call("POST", f"{base}/links")
        assert link["path"] == f"/#/invite/{link['token']}" and len(link["token"]) >= 40
        went = await linked.call("POST", f"/api/invites/{link['token']}")
        assert went == {"room_id": room["id"], "room": "Club", "table_id": table_id}
        assert await linked.sit(table_id, 1) == 1
        invites = await operator.call("GET", f"{base}/invites")
        assert {u["user"]: u["link_id"] for u in invites["users"]} == {
            named_name: None,
            linked_name: link["id"],
        }
        assert invites["links"][0]["uses"] == 1

        # The operator's robot takes the last seat: the game starts.
        seated = await operator.call("POST", f"/api/tables/{table_id}/robots", {"seat": 2, "level": "random"})
        assert seated["seat"] == 2
        assert (await operator.call("GET", f"/api/tables/{table_id}"))["status"] == "playing"

        # Uninvited again: the seat already taken stays (the game is on), the withdrawal is recorded.
        await operator.call("DELETE", f"{base}/invites/{invites['users'][0]['user_id']}")
        assert [u["user"] for u in (await operator.call("GET", f"{base}/invites"))["users"]] == [linked_name]
        assert (await named.call("GET", f"/api/tables/{table_id}"))["players"][0]["user"] == named_name
    finally:
        for api in (operator, named, linked, uninvited):
            await api.close()


async def test_a_room_closed_to_spectators_is_hidden_and_its_sockets_refuse_strangers(
    server: ServerProcess,
) -> None:
    operator = await login(server, OPERATOR)
    guest, stranger = await new_player(server), await new_player(server)
    try:
        room, table_id = await private_room(operator, spectators=False)
        base = f"/api/operator/rooms/{room['id']}"
        await operator.call("POST", f"{base}/invites", {"user": await name_of(guest)})
        assert room["id"] not in [r["id"] for r in await stranger.call("GET", "/api/rooms")]
        assert room["id"] in [r["id"] for r in await guest.call("GET", "/api/rooms")]
        for path in (
            f"/api/rooms/{room['id']}",
            f"/api/tables/{table_id}",
            f"/api/tables/{table_id}/history",
        ):
            status, out = await refused(stranger, "GET", path)
            assert (status, out["error"]) == (403, "private_room"), path

        async with websockets.connect(await stranger.ws_url(table_id)) as ws:
            code, frames = await closed_with(ws)
        assert code == 4403 and [f["code"] for f in frames] == ["private_room"]
        async with websockets.connect(await guest.ws_url(table_id)) as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"

        # Spectating opened: the stranger watches; closed again, the stranger's socket is closed at once.
        await operator.call("PATCH", base, {"spectators": True})
        async with websockets.connect(await stranger.ws_url(table_id)) as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"
            await operator.call("PATCH", base, {"spectators": False})
            code, frames = await closed_with(ws)
        assert code == 4403 and frames[-1]["code"] == "private_room"
        # Public again: anyone sits.
        await operator.call("PATCH", base, {"private": False})
        assert await stranger.sit(table_id, 0) == 0
    finally:
        for api in (operator, guest, stranger):
            await api.close()


async def test_an_operators_stop_and_close_are_in_the_audit_log(server: ServerProcess) -> None:
    operator = await login(server, OPERATOR)
    admin = await login(server, ADMIN)
    try:
        room = await operator.create_room("Audited", {"pool_size": 10})
        table_id = (await operator.open_table(room["id"], 3))["id"]
        for seat in range(3):
            await operator.call("POST", f"/api/tables/{table_id}/robots", {"seat": seat, "level": "random"})
        await operator.call("POST", f"/api/tables/{table_id}/stop", {"reason": "the club closes"})
        await operator.call("POST", f"/api/operator/rooms/{room['id']}/close")
        entries = (await admin.call("GET", "/api/admin/audit"))["items"]
        mine = [(e["action"], e["target"], e["admin"]) for e in entries if e["admin"] == OPERATOR]
        assert ("stop_table", f"table {table_id}", OPERATOR) in mine
        assert ("close_room", f"room {room['id']}", OPERATOR) in mine
        stop = next(e for e in entries if e["action"] == "stop_table" and e["target"] == f"table {table_id}")
        assert stop["detail"] == {"reason": "the club closes"}
    finally:
        await operator.close()
        await admin.close()
