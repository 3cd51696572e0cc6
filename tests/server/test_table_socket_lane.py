"""A table's socket skips the app's middleware stack and router (`app.server.app.ServerApp`, issue 24): a
socket lives as long as its player sits, and every layer it passed stays alive with it, which a full
collection of the cycle collector scans with the loop stopped. In process: the sockets' coroutines are
counted while one is open."""

from __future__ import annotations

import asyncio
import gc
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from uvicorn.server import ServerState
from websockets.asyncio.client import connect

from app.db.migrate import upgrade
from app.db.models import User
from app.server.app import create_app
from app.server.http.transport import WebSocketProtocol
from app.server.settings import Settings
from tests.server.in_process import add_operator, bearer, open_room_table


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'lane.db'}"
    upgrade(url)
    asyncio.run(add_operator(url))
    with TestClient(create_app(Settings(database_url=url, token_secret="s" * 40))) as test_client:
        yield test_client


def _alive() -> list[str]:
    """The coroutines (by name) and the ORM's users ("User") alive on the server, read on its loop between
    two of its collector's turns: what the app froze is thawed first (frozen objects are out of
    `gc.get_objects`'s sight), garbage collected."""
    gc.unfreeze()
    gc.collect()
    return [
        o.cr_code.co_qualname if isinstance(o, types.CoroutineType) else "User"
        for o in gc.get_objects()
        if isinstance(o, types.CoroutineType | User)
    ]


def test_a_table_socket_keeps_no_layer_of_the_apps_stack_alive(client: TestClient) -> None:
    """Nor an ORM user (an object with its state and dicts): the handler reads its caller's columns, and
    none is kept alive with the socket."""
    headers = bearer(client)
    table_id = open_room_table(client, headers)
    assert client.portal is not None
    # (The app's lifespan runs through the stack for as long as the app: its layers are alive already.)
    before = client.portal.call(_alive)
    with client.websocket_connect(f"/ws/tables/{table_id}", headers=headers) as socket:
        assert socket.receive_json()["type"] == "snapshot"
        alive = client.portal.call(_alive)
        # The moment is the right one: the socket's handler waits for its frames.
        assert alive.count("table_socket") == before.count("table_socket") + 1
        stack = ("Router.__call__", "ServerErrorMiddleware.__call__", "ExceptionMiddleware.__call__",
                 "BodyLimit.__call__", "SecurityHeaders.__call__")  # fmt: skip
        assert [alive.count(layer) for layer in stack] == [before.count(layer) for layer in stack]
        assert alive.count("User") == before.count("User")
        socket.send_json({"type": "ping", "id": 7})  # and the socket works
        assert [socket.receive_json()["type"] for _ in range(2)] == ["presence", "pong"]


async def _accept_and_hold(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await receive()
    await send({"type": "websocket.accept"})
    while (await receive())["type"] != "websocket.disconnect":
        pass


async def test_a_socket_drops_its_handshake_once_answered() -> None:
    """The server's websocket protocol on a loop of this process: the handshake's request and response
    (their headers) are not kept as long as the socket."""
    config = uvicorn.Config(_accept_and_hold, ws=WebSocketProtocol, lifespan="off")
    config.load()
    state = ServerState()
    protocol: Any = config.http_protocol_class
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: protocol(config=config, server_state=state, app_state={}), "127.0.0.1", 0
    )
    port = server.sockets[0].getsockname()[1]
    try:
        async with connect(f"ws://127.0.0.1:{port}/ws/tables/1") as ws:
            await ws.send("hello")  # (read after the accept: the handshake is answered)
            sockets = [c for c in state.connections if isinstance(c, WebSocketProtocol)]
            assert len(sockets) == 1 and sockets[0].handshake_complete
            assert sockets[0].request is None and sockets[0].response is None
    finally:
        server.close()
        await server.wait_closed()


def _refused(client: TestClient, path: str, headers: dict[str, str] | None = None) -> tuple[str, int]:
    """The error frame and close code a refused socket gets."""
    with client.websocket_connect(path, headers=headers or {}) as socket:
        error = socket.receive_json()["code"]
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
    return error, closed.value.code


def test_the_lane_refuses_as_the_route_did(client: TestClient) -> None:
    """What the route refused, the lane refuses the same way; paths it does not take go the router's."""
    headers = bearer(client)
    assert _refused(client, "/ws/tables/999999", headers) == ("not_found", 4404)
    assert _refused(client, "/ws/tables/1") == ("unauthorized", 4401)
    assert _refused(client, "/ws/tables/1", {**headers, "Origin": "https://elsewhere.example"}) == (
        "forbidden",
        4403,
    )
    # Not a table's id: the router's own answer (FastAPI's validation closes the socket with 1008).
    with (
        pytest.raises(WebSocketDisconnect) as invalid,
        client.websocket_connect("/ws/tables/abc", headers=headers),
    ):
        pass
    assert invalid.value.code == 1008
