"""How the websocket protocol reads (issue 24, `app.server.http.transport.WebSocketProtocol`): uvicorn
paused the socket after every message until the app took it (two selector changes per move); a small
message now queues without pausing while the app keeps up, and a backlog or a large message pauses the
socket as before, so what a connection holds unread stays bounded."""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.server import ServerState
from websockets.asyncio.client import connect

from app.server.http.transport import WebSocketProtocol, guarded_protocol
from tests.server.helpers import until


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

    config = uvicorn.Config(app, http=guarded_protocol(10, 0), ws=WebSocketProtocol, lifespan="off")
    config.load()
    pauses: list[int] = []
    protocol = config.http_protocol_class

    class Recorded(protocol):  # type: ignore[misc, valid-type]
        def connection_made(self, transport: asyncio.Transport) -> None:
            pause = transport.pause_reading

            def counted() -> None:
                pauses.append(len(received))
                pause()

            transport.pause_reading = counted  # type: ignore[method-assign]
            super().connection_made(transport)

    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: Recorded(config=config, server_state=ServerState(), app_state={}), "127.0.0.1", 0
    )
    port = server.sockets[0].getsockname()[1]
    try:
        async with connect(f"ws://127.0.0.1:{port}/ws") as ws:
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
    finally:
        server.close()
        await server.wait_closed()
