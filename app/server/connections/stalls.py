"""Clients that take nothing: one rule for every socket, at busy and quiet tables alike (issue 25).

A connection's backlog only grows once the socket's buffers are full, and the kernel's buffers hold
megabytes: at a quiet table (a finished game, a long snapshot) a client that never reads filled them and
was never dropped, its unsent data held in the server's kernel and its sockets counted against the caps.
So the rule looks at everything the server holds for a client — the connection's backlog, the transport's
buffer and the kernel's send queue — and at whether the client takes any of it (the bytes its TCP stack
acknowledges). A client that has data waiting and takes none of it for ``timeout`` seconds, or has more
than ``limit`` bytes waiting in all, is dropped and its socket reset, whatever the table is doing. A client
whose own buffers still take everything holds nothing of the server's: it is closed by the websocket
keepalive (uvicorn's ping every 20 s, unanswered for 20 s), which nothing then holds up.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import socket
import struct
import termios
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from app.protocol.codes import CloseCode
from app.server.connections.connection import Connection

if TYPE_CHECKING:
    from app.server.context import ServerContext

log = logging.getLogger(__name__)

# Linux's struct tcp_info: tcpi_bytes_acked (u64) follows 8 one-byte fields, 24 u32s and two u64 rates.
_BYTES_ACKED_OFFSET = 120
_TCP_INFO_SIZE = 256
CHECK_SLICE = 256  # sockets checked in one turn of the event loop


def _kernel_unsent(sock: socket.socket) -> int:
    """Bytes in the kernel's send queue of ``sock`` (not yet acknowledged by the client)."""
    raw = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, struct.pack("i", 0))
    return int(struct.unpack("i", raw)[0])


def _bytes_acked(sock: socket.socket) -> int | None:
    """What the client has acknowledged since the socket opened (None: not known on this system)."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_SIZE)
    except (OSError, AttributeError):
        return None
    if len(info) < _BYTES_ACKED_OFFSET + 8:
        return None
    return int(struct.unpack_from("=Q", info, _BYTES_ACKED_OFFSET)[0])


def waiting_bytes(conn: Connection) -> tuple[int, int | None]:
    """What the server holds for the connection's client (backlog, transport, kernel) and what the
    client has taken so far (None: not known)."""
    waiting = conn.queued_bytes
    transport = conn.transport
    if transport is None or transport.is_closing():
        return waiting, None
    waiting += transport.get_write_buffer_size()
    sock = transport.get_extra_info("socket")
    if sock is None:
        return waiting, None
    try:
        waiting += _kernel_unsent(sock)
    except (OSError, ValueError):
        return waiting, None
    return waiting, _bytes_acked(sock)


def check(conn: Connection, now: float, timeout: float, limit: int) -> bool:
    """Drops ``conn`` if its client holds up more than ``limit`` bytes or has taken nothing of what waits
    for it for ``timeout`` seconds; returns whether it was dropped."""
    if conn.closed.is_set():
        return False
    waiting, taken = waiting_bytes(conn)
    progressed = waiting < conn.waiting_mark if taken is None else taken > conn.taken_mark
    conn.waiting_mark = waiting
    if taken is not None:
        conn.taken_mark = max(conn.taken_mark, taken)
    if waiting == 0 or progressed:
        conn.stalled_since = None
    elif conn.stalled_since is None:
        conn.stalled_since = now
    stalled = conn.stalled_since is not None and now - conn.stalled_since >= timeout
    if stalled or waiting > limit:
        log.info(
            "connection %s (user %s): dropped, %d bytes waiting, %s",
            conn.id, conn.user_id, waiting, "none taken" if stalled else "too many",
        )  # fmt: skip
        conn.close(CloseCode.TRY_AGAIN)
        return True
    return False


def check_all(connections: Iterable[Connection], now: float, timeout: float, limit: int) -> int:
    """`check` on each connection; returns how many were dropped."""
    return sum(check(conn, now, timeout, limit) for conn in list(connections))


async def watch_readers(ctx: ServerContext) -> None:
    """Every few seconds, `check` on every live socket of this process."""
    settings = ctx.settings
    timeout = settings.send_timeout
    interval = min(5.0, timeout / 3)
    while True:
        await asyncio.sleep(interval)
        try:
            conns = [conn for table in ctx.table_connections.values() for conn in table]
            # A few hundred sockets a turn of the loop: all of them at once (two system calls each) held
            # the loop 12 ms at 1,000 sockets, and more with more of them, every few seconds (issue 24).
            for start in range(0, len(conns), CHECK_SLICE):
                check_all(
                    conns[start : start + CHECK_SLICE], time.monotonic(), timeout, settings.send_queue_bytes
                )
                await asyncio.sleep(0)
        except Exception:
            log.exception("the check of clients that do not read failed")
