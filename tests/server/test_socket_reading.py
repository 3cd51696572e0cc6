"""How the websocket protocol reads (issue 24, `app.server.http.transport.WebSocketProtocol`): uvicorn
paused the socket after every message until the app took it (two selector changes per move); a small
message now queues without pausing while the app keeps up, and a backlog or a large message pauses the
socket as before, so what a connection holds unread stays bounded."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import uvicorn
from uvicorn.server import ServerState
from websockets.asyncio.client import connect

from app.server.connections.connection import TRANSPORT_EXTENSION
from app.server.http.transport import WebSocketProtocol, guarded_protocol
from tests.server.helpers import until


@contextlib.asynccontextmanager
async def _served(app: Any, subclass: Callable[[Any], Any] = lambda protocol: protocol) -> AsyncIterator[int]:
    """``app`` behind our HTTP and websocket protocols (the HTTP one through ``subclass``): its port."""
    config = uvicorn.Config(app, http=guarded_protocol(10, 0), ws=WebSocketProtocol, lifespan="off")
    config.load()
    protocol = subclass(config.http_protocol_class)
    server = await asyncio.get_running_loop().create_server(
        lambda: protocol(config=config, server_state=ServerState(), app_state={}), "127.0.0.1", 0
    )
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


async def test_the_socket_is_paused_only_for_a_backlog_or_a_large_message() -> None:
    gate = asyncio.Event()
    received: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] != "websocket.disconnect":
            received.append(message["text"])
            if message["text"] == "hold":
                await gate.wait()  # the app falls behind: what the client sends meanwhile waits
            else:
                await send({"type": "websocket.send", "text": "ok"})

    pauses: list[int] = []

    def recorded(protocol: Any) -> Any:
        class Recorded(protocol):  # type: ignore[misc]
            def connection_made(self, transport: asyncio.Transport) -> None:
                pause = transport.pause_reading

                def counted() -> None:
                    pauses.append(len(received))
                    pause()

                transport.pause_reading = counted  # type: ignore[method-assign]
                super().connection_made(transport)

        return Recorded

    async with _served(app, recorded) as port, connect(f"ws://127.0.0.1:{port}/ws") as ws:
        for n in range(20):  # moves, each answered before the next: never a pause
            await ws.send(f'{{"type":"action","seq":{n}}}')
            assert await ws.recv() == "ok"
        assert pauses == []

        backlog = [f"m{n}" for n in range(40)]
        await ws.send("hold")
        for text in backlog:
            await ws.send(text)
        await until(lambda: bool(pauses), "the socket paused behind the backlog", timeout=30)
        gate.set()
        for _ in backlog:
            assert await ws.recv() == "ok"
        assert received[20:] == ["hold", *backlog]  # nothing lost, in order

        paused = len(pauses)
        await ws.send("x" * 4096)  # a large message pauses the socket until the app takes it
        assert await ws.recv() == "ok"
        assert len(pauses) == paused + 1


async def test_a_tables_socket_takes_its_messages_in_the_read_in_order() -> None:
    """With a handler (`Connection.take_frames`), a text message goes to it in the protocol's read, not
    through the app's task; what was queued for the app before still goes there first, binary frames
    always do, and no message is lost or reordered between the two ways."""
    seen: list[tuple[str, str]] = []  # (text, "read" | "task")
    registered = asyncio.Event()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        protocol = scope["extensions"][TRANSPORT_EXTENSION].get_protocol()
        # The client's first messages queue for the app before the handler is there.
        await until(lambda: protocol.queue.qsize() >= 2, "the first two messages queued for the app")

        def in_read(text: str) -> None:
            assert asyncio.current_task() is None  # a callback of the transport's read, no task
            seen.append((text, "read"))
            protocol.send_text_now(f"ok {text}")

        protocol.on_text = in_read
        registered.set()
        while (message := await receive())["type"] != "websocket.disconnect":
            item = message.get("text") or message["bytes"].decode()
            seen.append((item, "task"))
            await send({"type": "websocket.send", "text": f"ok {item}"})

    async with _served(app) as port, connect(f"ws://127.0.0.1:{port}/ws") as ws:
        early = ["early 1", "early 2"]
        for text in early:
            await ws.send(text)
        await registered.wait()
        for text in early:
            assert await ws.recv() == f"ok {text}"
        moves = [f'{{"type":"action","seq":{n}}}' for n in range(20)]
        for text in moves:
            await ws.send(text)
            assert await ws.recv() == f"ok {text}"
        await ws.send(b"binary")
        assert await ws.recv() == "ok binary"
        assert [text for text, _ in seen] == [*early, *moves, "binary"]  # nothing lost, in order
        assert {way for text, way in seen if text in early} == {"task"}
        assert {way for text, way in seen if text in moves} == {"read"}
        assert seen[-1] == ("binary", "task")
