"""Bad input gets a typed error frame or a 4xx, changes nothing, disturbs no other connection or table,
and the table keeps playing afterwards (issue 6, "Bad input and security")."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import websockets

from app.bots.client import Api, ApiError, TableClient
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player
from tests.server.helpers import open_table, play_out


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    yield shared_server


async def expect(
    client: TableClient, wanted: Callable[[dict[str, Any]], bool], timeout: float = 10
) -> dict[str, Any]:
    """The next frame matching ``wanted`` (other frames — updates, presence — are skipped)."""
    while True:
        message = await client.receive(timeout=timeout)
        if wanted(message):
            return message


def error(code: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m.get("type") == "error" and m.get("code") == code


async def until_playing(client: TableClient) -> dict[str, Any]:
    def ready(last: dict[str, Any] | None) -> bool:
        return (
            last is not None
            and last["status"] == "playing"
            and (last["view"] or {}).get("to_act") is not None
        )

    while not ready(client.last):
        await client.receive(timeout=10)
    assert client.last is not None
    return client.last


async def raw(client: TableClient, payload: Any) -> None:
    await client.ws.send(payload if isinstance(payload, str | bytes) else json.dumps(payload))


async def test_bad_frames_and_commands_are_refused_and_the_table_plays_on(server: ServerProcess) -> None:
    table = await open_table(server, 3, {"pool_size": 2, "deal_time": 60, "reserve_time": 60}, spectator=True)
    other_table = await open_table(server, 3, {"pool_size": 2, "deal_time": 60, "reserve_time": 60})
    bystander = asyncio.create_task(play_out(other_table, seed=3))  # must not notice any of this
    try:
        state = await until_playing(table.clients[0])
        actor = state["view"]["to_act"]
        other = (actor + 1) % 3
        for client in table.clients:
            await until_playing(client)
        me, them = table.clients[actor], table.clients[other]
        version = me.last["v"]

        # Malformed frames: typed errors, and the connection stays usable.
        await raw(them, "{not json")
        await expect(them, error("bad_json"))
        await raw(them, "[1, 2]")
        await expect(them, error("bad_json"))
        await raw(them, b"\x00\x01binary")
        await expect(them, error("bad_json"))
        await raw(them, {"type": "launch_missiles"})
        await expect(them, error("unknown_type"))
        await raw(them, {"type": "action", "action": {"type": "pass"}})  # no seq
        await expect(them, error("invalid_message"))
        await raw(them, {"type": "ping", "id": 1, "pad": "x" * 9000})
        await expect(them, error("frame_too_large"))
        await raw(them, {"type": "ping", "id": 7})
        assert (await expect(them, lambda m: m["type"] == "pong"))["id"] == 7

        # Commands for another seat, out of turn, illegal, malformed; spectators cannot act.
        await raw(them, {"type": "action", "seq": 1, "action": {"type": "pass", "seat": actor}})
        await expect(them, error("not_your_seat"))
        await raw(them, {"type": "action", "seq": 1, "action": {"type": "pass"}})
        await expect(them, error("not_your_turn"))
        await raw(me, {"type": "action", "seq": 1, "action": {"type": "bid", "bid": "7h"}})  # a jump
        await expect(me, error("illegal_action"))
        await raw(me, {"type": "action", "seq": 1, "action": {"type": "bid", "bid": "11z"}})
        await expect(me, error("malformed_action"))
        await raw(me, {"type": "action", "seq": 1, "action": {"type": "shuffle", "deck": []}})
        await expect(me, error("malformed_action"))
        assert table.spectator is not None
        await raw(table.spectator, {"type": "action", "seq": 1, "action": {"type": "pass"}})
        await expect(table.spectator, error("not_seated"))
        assert me.last is not None and me.last["v"] == version  # nothing changed

        # A command applied once even when retried; an older number is refused.
        legal = me.last["legal"][0]
        await raw(me, {"type": "action", "seq": 5, "action": legal})
        ack = await expect(me, lambda m: m["type"] == "ack")
        assert ack["seq"] == 5 and not ack["duplicate"]
        await raw(me, {"type": "action", "seq": 5, "action": legal})
        again = await expect(me, lambda m: m["type"] == "ack")
        assert again["duplicate"] and again["v"] >= ack["v"]
        await raw(me, {"type": "action", "seq": 4, "action": legal})
        await expect(me, error("stale_seq"))
        log = await (await login(server, "admin1")).call("GET", f"/api/admin/tables/{table.id}/log")
        assert sum(1 for row in log["actions"] if row["client_seq"] == 5) == 1

        # A frame past the transport limit closes only that connection.
        extra = table.players[other].table(table.id)
        await extra.connect()
        await extra.ws.send(json.dumps({"type": "ping", "pad": "y" * 100_000}))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await extra.receive(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        await raw(them, {"type": "ping", "id": 8})
        assert (await expect(them, lambda m: m["type"] == "pong"))["id"] == 8

        # Per-connection rate limit: a flood is refused, then the connection works again.
        spectator = table.spectator
        for i in range(150):
            await raw(spectator, {"type": "ping", "id": i})
        await expect(spectator, error("rate_limited"))
        await asyncio.sleep(2.5)
        await raw(spectator, {"type": "ping", "id": 999})
        assert (await expect(spectator, lambda m: m.get("id") == 999, timeout=15))["type"] == "pong"

        # And the table plays on to the end.
        for client in table.clients:
            client.seq = 10
        finals = await play_out(table, seed=4)
        assert finals[0]["status"] == "finished"
        assert sum(finals[0]["outcome"]["settlement"]["result"]) == 0
        others = await bystander
        assert others[0]["status"] == "finished"
    finally:
        bystander.cancel()
        with contextlib.suppress(BaseException):
            await bystander
        await table.close()
        await other_table.close()


async def test_websocket_without_a_valid_token_or_table_is_refused(server: ServerProcess) -> None:
    player = await new_player(server)
    try:
        for url, code, close in (
            (f"ws://127.0.0.1:{server.port}/ws/tables/1?ticket=forged-ticket", "unauthorized", 4401),
            (f"ws://127.0.0.1:{server.port}/ws/tables/1", "unauthorized", 4401),
            (await player.ws_url(999_999), "not_found", 4404),
        ):
            async with websockets.connect(url) as ws:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                assert frame["type"] == "error" and frame["code"] == code
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await asyncio.wait_for(ws.recv(), 10)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == close
    finally:
        await player.close()


async def _status(api: Api, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    try:
        return 200, await api.call(method, path, body)
    except ApiError as exc:
        return exc.status, exc.body


async def test_rest_refuses_unauthenticated_wrong_role_and_invalid_input(server: ServerProcess) -> None:
    anonymous = Api(server.url)
    player = await new_player(server)
    operator = await login(server, OPERATOR)
    other_operator_name = "operator2"
    done = server.cli("users", "add", other_operator_name, "--role", "operator", stdin="pw-operator2\n")
    assert done.returncode == 0, done.stderr
    other_operator = await login(server, other_operator_name, "pw-operator2")
    try:
        assert (await _status(anonymous, "GET", "/api/rooms"))[0] == 401
        anonymous.token = "garbage"
        assert (await _status(anonymous, "GET", "/api/auth/me"))[0] == 401
        status, body = await _status(player, "POST", "/api/rooms", {"name": "x"})
        assert status == 403 and body["error"] == "forbidden"
        status, body = await _status(
            operator, "POST", "/api/rooms", {"name": "x", "overrides": {"pool_size": 0}}
        )
        assert status == 422 and body["field"] == "pool_size"
        status, body = await _status(
            operator, "POST", "/api/rooms", {"name": "x", "overrides": {"deal_time": "soon"}}
        )
        assert status == 422 and body["field"] == "deal_time"
        status, body = await _status(operator, "POST", "/api/rooms", {"name": "x", "overrides": {"nope": 1}})
        assert status == 422 and body["field"] == "nope"
        status, body = await _status(operator, "POST", "/api/rooms", {"name": "x", "preset": "moscow-???"})
        assert status == 422 and body["field"] == "preset"
        room = await operator.create_room("mine", {"pool_size": 5})
        status, body = await _status(operator, "POST", f"/api/rooms/{room['id']}/tables", {"seats": 5})
        assert status == 422 and body["field"] == "seats"
        status, _ = await _status(player, "POST", f"/api/rooms/{room['id']}/tables", {"seats": 3})
        assert status == 403
        status, _ = await _status(other_operator, "POST", f"/api/rooms/{room['id']}/tables", {"seats": 3})
        assert status == 403
        status, _ = await _status(player, "GET", "/api/admin/tables/1/log")
        assert status == 403
        table = await operator.open_table(room["id"], 3)
        assert await player.sit(table["id"], 1) == 1
        status, body = await _status(operator, "POST", f"/api/tables/{table['id']}/sit", {"seat": 1})
        assert status == 409 and body["error"] == "seat_taken"
        status, body = await _status(operator, "POST", f"/api/tables/{table['id']}/sit", {"seat": 7})
        assert status == 422
        assert (await _status(player, "POST", f"/api/tables/{table['id']}/leave"))[0] == 200
        status, _ = await _status(player, "POST", f"/api/tables/{table['id']}/leave")
        assert status == 409
        status, _ = await _status(
            anonymous, "POST", "/api/auth/login", {"name": OPERATOR, "password": "wrong"}
        )
        assert status == 401
        status, body = await _status(
            anonymous, "POST", "/api/auth/register", {"name": OPERATOR, "password": "xxxxxxxx"}
        )
        assert status == 409 and body["field"] == "name"
        status, body = await _status(
            anonymous, "POST", "/api/auth/register", {"name": "a b", "password": "xxxxxxxx"}
        )
        assert status == 422 and body["field"] == "name"
    finally:
        for api in (anonymous, player, operator, other_operator):
            await api.close()


async def test_a_body_nested_too_deeply_is_an_unparsable_body_422(server: ServerProcess) -> None:
    """Issue 25: docs/protocol.md promises 422 for an unparsable body; a body nested deeper than the JSON
    parser goes was answered FastAPI's 400 instead (a syntax error was already a 422)."""
    async with httpx.AsyncClient(base_url=server.url) as http:
        for body in ("[" * 5000 + "]" * 5000, '{"name": ' + "[" * 3000 + "]" * 3000 + ', "password": "x"}'):
            response = await http.post(
                "/api/auth/register", content=body, headers={"content-type": "application/json"}
            )
            assert response.status_code == 422, response.text
            assert response.json()["error"] == "invalid_request" and response.json()["field"] == "body"
        broken = await http.post(
            "/api/auth/register", content="{bad json", headers={"content-type": "application/json"}
        )
        assert broken.status_code == 422 and broken.json()["error"] == "invalid_request"
