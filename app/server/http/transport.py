"""The HTTP protocol under the app (uvicorn's h11 one) with what uvicorn lacks against slow clients:

- a connection must send a whole request head within ``header_timeout`` seconds of opening or of the
  previous response (uvicorn has no header timeout: a half-open or slowloris socket stayed forever);
- at most ``max_per_address`` connections (websockets included) from one client address at a time;
- a connection reads at most ``READ_SIZE`` bytes at once, and its transport is freed by reference counting
  when it is lost (see `release`): the surplus-bytes attack of issue 25 with connections reset by the client.

The body is bounded in size and time by `app.server.http.middleware.BodyLimit`.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import weakref
from collections.abc import Callable
from typing import Any

import h11
from uvicorn._types import ASGISendEvent
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState

from app.server import metrics
from app.server.connections.connection import TRANSPORT_EXTENSION

log = logging.getLogger(__name__)

_MAX_ADDRESSES = 10_000
# What a client may send beyond the request being served (a pipelined request's head: h11's own limit).
_MAX_SURPLUS_BYTES = h11._connection.DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
# Bytes a connection reads at once (asyncio's own: 256 KiB). A request (head and body) or a websocket frame
# is at most 64 KiB (`max_request_bytes`, `transport_max_bytes`); what a connection holds before it is
# parsed, or dropped for its surplus, is one read.
READ_SIZE = 64 * 1024


# Every connection's transport while the process holds it (read by the metrics; a leak shows there).
_held: weakref.WeakSet[asyncio.BaseTransport] = weakref.WeakSet()
metrics.CONNECTIONS_HELD.set_function(lambda: len(_held))


def release(transport: asyncio.BaseTransport) -> None:
    """Lets a lost connection's transport be freed by reference counting. Asyncio's selector transport
    keeps its own bound method (`_read_ready_cb`), a reference cycle: a transport that lived through a
    young collection stayed, its socket object and extras with it, until a full collection, which this server
    runs rarely (README "cycle collector"); connections reset by their clients piled up by the ten
    thousand (issue 25). Called once the connection is lost: nothing reads from the transport again."""
    attributes = getattr(transport, "__dict__", {})
    if "_read_ready_cb" in attributes:
        attributes["_read_ready_cb"] = None


def _read_at_most(transport: asyncio.BaseTransport, size: int) -> None:
    if isinstance(getattr(transport, "max_size", None), int):
        setattr(transport, "max_size", size)  # noqa: B010 (not in asyncio's typed interface)


def guarded_protocol(header_timeout: float, max_per_address: int) -> type[H11Protocol]:
    # Transports by client address; a websocket keeps its transport after the upgrade, so it still counts.
    # Held weakly: a lost connection's transport is freed at once (`release`), not when its address next
    # connects.
    by_address: dict[str, weakref.WeakSet[asyncio.BaseTransport]] = {}
    # Addresses without a connection are dropped when there are this many (a pass over every connection),
    # then at twice as many as remained: a pass per connection beyond 10,000 addresses was O(connections).
    prune_at = [_MAX_ADDRESSES]

    def live(host: str) -> weakref.WeakSet[asyncio.BaseTransport]:
        open_ = weakref.WeakSet(t for t in by_address.get(host, ()) if not t.is_closing())
        by_address[host] = open_
        return open_

    class GuardedH11Protocol(H11Protocol):
        _guard: asyncio.TimerHandle | None = None
        _upgraded = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            _held.add(transport)
            _read_at_most(transport, READ_SIZE)
            host = self.client[0] if self.client else "?"
            if len(by_address) > prune_at[0]:
                for key in [k for k in by_address if not live(k)]:
                    del by_address[key]
                prune_at[0] = max(_MAX_ADDRESSES, 2 * len(by_address))
            mine = by_address.setdefault(host, weakref.WeakSet())
            # The set may still hold connections that are closing: they are weeded out (a pass over the
            # address's connections) only when it reaches the cap, not for every connection (issue 24).
            if max_per_address and len(mine) >= max_per_address:
                mine = live(host)
                if len(mine) >= max_per_address:
                    transport.close()
                    return
            mine.add(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._surplus() > _MAX_SURPLUS_BYTES and not self.transport.is_closing():
                # Bytes sent after a whole request, before its response (issue 25): h11 keeps them in
                # its buffer until the response is done. No client needs more than a pipelined request
                # head; the connection is dropped, the bytes with it.
                log.info(
                    "%s: %d bytes after a whole request; connection dropped", self.client, self._surplus()
                )
                self.transport.abort()

        def _surplus(self) -> int:
            """What the client sent beyond the request being served (0 while it is still sending it)."""
            if self.conn.their_state not in (h11.DONE, h11.MUST_CLOSE):
                return 0
            # h11's buffer of received, unparsed bytes (its public `trailing_data` copies it).
            return len(getattr(self.conn, "_receive_buffer", b""))

        def _arm(self) -> None:
            if self._guard is not None:
                self._guard.cancel()
            self._guard = self.loop.call_later(header_timeout, self._idle_check)

        def _idle_check(self) -> None:
            self._guard = None
            if self._upgraded or self.transport.is_closing():
                return
            if self.cycle is not None and not self.cycle.response_complete:
                return  # a request is being served (its body has its own deadline)
            if self.conn.our_state not in (h11.ERROR, h11.CLOSED):
                self.conn.send(h11.ConnectionClosed())
            self.transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def handle_websocket_upgrade(self, event: Any) -> None:
            self._upgraded = True
            if self._guard is not None:
                self._guard.cancel()
            super().handle_websocket_upgrade(event)
            # The websocket protocol has read the handshake and made its scope (its app task has not run
            # yet): the connection finds its transport there, to reset a socket whose client stopped reading.
            scope = getattr(self.transport.get_protocol(), "scope", None)
            if isinstance(scope, dict):
                scope.setdefault("extensions", {})[TRANSPORT_EXTENSION] = self.transport

        def connection_lost(self, exc: Exception | None) -> None:
            if self._guard is not None:
                self._guard.cancel()
            super().connection_lost(exc)
            release(self.transport)

    return GuardedH11Protocol


# A small message is queued for the app without pausing the socket while fewer than this many wait.
_UNPAUSED_MESSAGES = 4
_UNPAUSED_BYTES = 1024


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sansio websocket protocol (it writes each frame to the transport at once, which
    `app.server.connections.connection` relies on), its transport released when the socket is lost.

    uvicorn pauses reading the socket after every message until the app has taken it: two changes of the
    loop's selector (system calls, and the selector's own bookkeeping) for each move a player makes, a
    tenth of the loop's time at 1,000 tables (issue 24). A small message (a move is about a hundred
    bytes) is queued without pausing while fewer than `_UNPAUSED_MESSAGES` wait; anything larger, or
    more, pauses it as uvicorn does. What a connection holds unread grows by at most those few small
    messages over uvicorn's (what one read brings, `READ_SIZE`).

    A table's socket takes its text messages in the read that completes them (``on_text``), not from the
    queue in the app's task: a move reaches its table one turn of the loop sooner (a turn is milliseconds
    under load), without a wake-up of that task and the frames it awaits in."""

    # Takes each text message in this read, instead of the app's task (`Connection.take_frames`).
    on_text: Callable[[str], None] | None = None

    def send_receive_event_to_app(self) -> None:
        handler = self.on_text
        # Only while nothing waits in the queue: the app's task still has those, and order is kept.
        if (
            handler is not None
            and self.curr_msg_data_type == "text"
            and not self.close_sent
            and self.queue.empty()
        ):
            data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
            try:
                text = data.decode()
            except UnicodeDecodeError:  # uvicorn closes the socket for it (1007)
                super().send_receive_event_to_app()
                return
            self.frames = []
            handler(text)
            return
        small = sum(len(frame) for frame in self.frames) <= _UNPAUSED_BYTES
        if self.read_paused or not small or self.queue.qsize() >= _UNPAUSED_MESSAGES:
            super().send_receive_event_to_app()
            return
        # uvicorn pauses unless it believes the socket paused already; it is not, and stays marked so.
        self.read_paused = True
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = False

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        release(self.transport)

    async def send(self, message: ASGISendEvent) -> None:
        await super().send(message)
        if self.handshake_complete and self.response is not None:
            # The handshake's request and response (their headers, a score of lists and dicts) are not
            # read again once it is answered; kept, they lived as long as the socket (issue 24).
            self.request = self.response = None  # type: ignore[assignment]

    def _may_send_now(self) -> bool:
        """``send`` would write at once: the transport takes data, and the socket is open and upgraded."""
        return (
            self.writable.is_set()
            and not self.disconnected
            and not self.close_sent
            and self.handshake_complete
            and self.initial_response is None
        )

    def send_text_now(self, text: str) -> bool:
        """Writes a text frame to the transport at once, as uvicorn's ``send`` of a ``websocket.send``
        message does when it need not wait, without the message's way down through the app's and
        Starlette's send wrappers (a tenth of the cost of every frame, paid for each of a table's viewers;
        issue 24). False, with nothing written, whenever ``send`` would do anything else: wait for the
        transport, refuse a socket that is closing or closed, or answer a handshake."""
        if not self._may_send_now():
            return False
        try:
            self.conn.send_text(text.encode())
        except InvalidState:
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True

    def send_texts_now(self, texts: list[str]) -> bool:
        """`send_text_now` of several frames in one write to the transport (one system call, one
        segment where they fit: a move's update and its ack to the mover). False, with nothing
        written, whenever `send_text_now` would refuse."""
        if not self._may_send_now():
            return False
        try:
            for text in texts:  # nothing runs between them: the state checked for the first holds for all
                self.conn.send_text(text.encode())
        except InvalidState:
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True


def raise_open_files_limit() -> int:
    """Raise this process's descriptor limit to the hard limit (each socket costs one); returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = max(soft, 1 << 20) if hard == resource.RLIM_INFINITY else hard
    if soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            log.warning("could not raise the open-files limit above %s", soft)
    return soft
