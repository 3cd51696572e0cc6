"""A mover's update and ack in one write (issue 24): a connection held by the table actor keeps the frames
sent to it until it is released, then writes them together, in order; nothing is lost or reordered when
the socket cannot take them at once, and a close lets the frames sent before it out first."""

from __future__ import annotations

import asyncio
from typing import Any

from app.server.connections.connection import TRANSPORT_EXTENSION, Connection


class _Protocol:
    """The socket's protocol as `Connection` sees it: each call is one write to the transport."""

    def __init__(self, *, takes: bool = True) -> None:
        self.writes: list[list[str]] = []
        self.takes = takes  # False: the transport must wait (the connection's own send path takes over)

    def send_text_now(self, text: str) -> bool:
        if self.takes:
            self.writes.append([text])
        return self.takes

    def send_texts_now(self, texts: list[str]) -> bool:
        if self.takes:
            self.writes.append(list(texts))
        return self.takes


class _Transport:
    def __init__(self, protocol: _Protocol) -> None:
        self.protocol = protocol

    def get_protocol(self) -> _Protocol:
        return self.protocol

    def get_write_buffer_size(self) -> int:
        return 0

    def abort(self) -> None:
        pass


class _Socket:
    """The websocket's own send, used when the protocol's direct write refuses."""

    def __init__(self, protocol: _Protocol) -> None:
        self.scope: dict[str, Any] = {"extensions": {TRANSPORT_EXTENSION: _Transport(protocol)}}
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000) -> None:
        pass


def _connection(protocol: _Protocol) -> tuple[Connection, _Socket]:
    socket = _Socket(protocol)
    conn = Connection(socket, 1, "u", queue_frames=16)  # type: ignore[arg-type]
    conn.start()
    return conn, socket


async def test_held_frames_go_out_in_one_write_in_their_order() -> None:
    protocol = _Protocol()
    conn, _ = _connection(protocol)
    conn.send("before")
    conn.hold()
    conn.send("update")
    conn.send('{"type":"ack"}')
    assert protocol.writes == [["before"]]  # held: nothing written yet
    conn.release()
    assert protocol.writes == [["before"], ["update", '{"type":"ack"}']]
    conn.send("after")  # released: frames go out as they are sent again
    conn.release()  # nothing held: nothing written
    assert protocol.writes[-1] == ["after"] and len(protocol.writes) == 3


async def test_a_single_held_frame_is_written_as_one() -> None:
    protocol = _Protocol()
    conn, _ = _connection(protocol)
    conn.hold()
    conn.send("only")
    conn.release()
    assert protocol.writes == [["only"]]


async def test_held_frames_a_socket_cannot_take_now_go_by_its_own_send_in_order() -> None:
    protocol = _Protocol(takes=False)
    conn, socket = _connection(protocol)
    conn.hold()
    for text in ("a", "b", "c"):
        conn.send(text)
    conn.release()
    for _ in range(100):
        if len(socket.sent) == 3:
            break
        await asyncio.sleep(0)
    assert socket.sent == ["a", "b", "c"] and protocol.writes == []


async def test_frames_held_when_the_socket_is_closed_go_out_before_the_close_and_none_after() -> None:
    protocol = _Protocol()
    conn, socket = _connection(protocol)
    conn.hold()
    conn.send("update")
    conn.close()
    assert protocol.writes == [["update"]]  # sent before the close: written before it
    conn.send("late")  # after the close: never written
    conn.release()
    await asyncio.sleep(0)
    assert protocol.writes == [["update"]] and socket.sent == []
