"""One websocket connection: frames written as they are sent, a bounded backlog only while the socket waits.

The table actor never awaits a client. A frame goes straight to the socket when the websocket layer takes
it without waiting (uvicorn's sansio implementation writes to the transport at once unless the transport's
buffer is past its high-water mark): no task, queue or wake-up per frame (a sender task per connection,
each parked on its queue, was a tenth of the server's CPU and a large share of what the cycle collector
scans with the event loop stopped). Once a send has to wait, the frames after it go to a backlog drained by
a task until it is empty. A client too slow to read — more than ``queue_frames`` frames or ``queue_bytes``
bytes in the backlog — is dropped and its socket aborted (it reconnects and gets a snapshot) instead of
holding up the table or the server's memory.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import json
import logging
import time
from collections.abc import Callable, Coroutine, Generator
from typing import Any

from fastapi import WebSocket
from pydantic import BaseModel

from app.protocol.codes import CloseCode
from app.server import metrics

log = logging.getLogger(__name__)

_ids = itertools.count(1)

# "Try again later": the client fell too far behind; it reconnects and gets a snapshot.


class TokenBucket:
    """Per-connection rate limit: ``rate`` messages a second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self) -> bool:
        self._refill()
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def reserve(self) -> float:
        """Takes a token now or, in debt, in the future: the seconds until it is there (0: at once)."""
        self._refill()
        self.tokens -= 1.0
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate


# The scope extension holding the socket's transport (`app.server.http.transport` puts it there at the
# upgrade), so a socket whose client stopped reading can be reset.
TRANSPORT_EXTENSION = "preferans.transport"

# How long a close waits for the frames before it and for the close frame to go out: a client that
# reads nothing would hold both (and the socket, and its buffers) forever; after this it is reset.
CLOSE_GRACE_S = 10.0


class Connection:
    def __init__(
        self,
        websocket: WebSocket,
        user_id: int,
        user_name: str,
        queue_frames: int,
        *,
        queue_bytes: int = 8 << 20,
        generation: int = 0,
    ) -> None:
        self.id = next(_ids)
        self.websocket = websocket
        self.user_id = user_id
        self.user_name = user_name
        self.generation = generation  # the user's token generation when this socket was opened
        self.close_code = 1000
        self.seat: int | None = None  # set by the table actor
        scope = getattr(websocket, "scope", None) or {}  # no socket: a robot seat
        extensions = scope.get("extensions") or {}
        self.transport: asyncio.WriteTransport | None = extensions.get(TRANSPORT_EXTENSION)
        # The socket's protocol writes a frame straight to the transport when nothing would make the
        # websocket's own send wait or refuse (`app.server.http.transport.WebSocketProtocol`).
        protocol = None if self.transport is None else self.transport.get_protocol()
        self._send_now: Callable[[str], bool] | None = getattr(protocol, "send_text_now", None)
        self._send_many: Callable[[list[str]], bool] | None = getattr(protocol, "send_texts_now", None)
        # Frames held by `hold` until `release` writes them together (None: frames go out as sent).
        self._held: list[str] | None = None
        # Frames waiting behind a send that waited (empty while frames go straight to the socket).
        self.backlog: collections.deque[str] = collections.deque()
        self.queue_frames = queue_frames
        # Bounded in bytes too: a few hundred snapshots with long score sheets are tens of megabytes.
        self.queue_bytes = queue_bytes
        self.queued_bytes = 0
        # A resync asked for and not yet answered with a snapshot: further ones are coalesced into it.
        self.resync_pending = False
        # `stalls.check`'s marks: what waited and what the client had taken at the last look, and since
        # when it has taken nothing of what waits (None: it takes, or nothing waits).
        self.waiting_mark = 0
        self.taken_mark = 0
        self.stalled_since: float | None = None
        self.closed = asyncio.Event()
        self._started = False
        self._sender: asyncio.Task[None] | None = None  # drains the backlog, or closes the socket

    def start(self) -> None:
        self._started = True
        if self.closed.is_set():  # closed while it was being accepted: `_close` is on its way
            return
        if self.backlog:  # sent before the socket was accepted
            self._sender = asyncio.create_task(self._drain(None), name=f"ws-send-{self.id}")

    def send(self, message: BaseModel | dict[str, Any] | str) -> None:
        """Send one frame; a ``str`` is sent as it is (a frame encoded once for many connections)."""
        if self.closed.is_set():
            return
        metrics.frame_sent(message)
        if isinstance(message, str):
            text = message
        else:
            text = message.model_dump_json() if isinstance(message, BaseModel) else _dumps(message)
        if self._held is not None:
            self._held.append(text)
            return
        self._send_text(text)

    def hold(self) -> None:
        """Hold the frames sent from now until `release`, which writes them in one go: the table actor
        holds a mover's socket from its step's update to its ack, within one turn of the loop, so that
        the two cost one system call (issue 24), not two."""
        if self._held is None:
            self._held = []

    def release(self) -> None:
        """Write the frames held since `hold`, in their order (a no-op when nothing is held)."""
        held, self._held = self._held, None
        if not held or self.closed.is_set():
            return
        if len(held) > 1 and self._sender is None and self._started and self._send_many is not None:
            try:
                if self._send_many(held):
                    return
            except Exception:  # a broken socket only ends this connection, as on `_write`'s path
                log.debug("connection %s: send failed", self.id, exc_info=True)
                self._broken()
                return
        for text in held:
            self._send_text(text)

    def _send_text(self, text: str) -> None:
        if self.closed.is_set():  # (a frame before it broke the socket)
            return
        if self._sender is None and self._started:
            self._write(text)
            return
        if self.queued_bytes + len(text) > self.queue_bytes or len(self.backlog) >= self.queue_frames:
            self.close(CloseCode.TRY_AGAIN)
            return
        self.backlog.append(text)
        self.queued_bytes += len(text)

    def _write(self, text: str) -> None:
        """Runs the send until it is done or has to wait; a send that waits is finished by `_drain`."""
        if self._send_now is not None:
            try:
                if self._send_now(text):
                    return
            except Exception:  # a broken socket only ends this connection, on this path as on the other
                log.debug("connection %s: send failed", self.id, exc_info=True)
                self._broken()
                return
        sending = self.websocket.send_text(text)
        try:
            waiting = sending.send(None)
        except StopIteration:
            return
        except Exception:  # a broken socket only ends this connection
            log.debug("connection %s: send failed", self.id, exc_info=True)
            self._broken()
            return
        self._sender = asyncio.create_task(self._drain(_Resumed(sending, waiting)), name=f"ws-send-{self.id}")

    def take_frames(self, handler: Callable[[str], None] | None) -> bool:
        """Each text message of the socket goes to ``handler`` in the read that completes it (None: to the
        app's ``receive`` again); False when the socket's protocol cannot (`WebSocketProtocol.on_text`)."""
        protocol = None if self.transport is None else self.transport.get_protocol()
        if protocol is None or not hasattr(protocol, "on_text"):
            return False
        protocol.on_text = handler
        return True

    def close(self, code: int = 1000) -> None:
        """Closes the socket once the frames sent before are out (at once for a client too slow)."""
        if self.closed.is_set():
            return
        self.release()  # what was sent before the close goes before it, held or not
        if self.closed.is_set():  # one of them found the client too slow and closed the socket
            return
        self.close_code = code
        self.closed.set()
        sending = self._sender
        if code == CloseCode.TRY_AGAIN:
            # Nothing more is owed to a client that stopped reading: stop trying to write to it, and let
            # its socket and buffers go at once (a close frame would wait behind what it does not read).
            if sending is not None:
                sending.cancel()
            if self.transport is not None:
                self.transport.abort()
        self._sender = asyncio.create_task(self._close(sending), name=f"ws-close-{self.id}")

    def _broken(self) -> None:
        if not self.closed.is_set():
            self.closed.set()
            self._sender = asyncio.create_task(self._close(None), name=f"ws-close-{self.id}")

    async def _close(self, sending: asyncio.Task[None] | None) -> None:
        closed = False
        try:
            async with asyncio.timeout(CLOSE_GRACE_S):
                if sending is not None:  # the frames sent before the close go out first
                    await asyncio.wait({sending})
                await self.websocket.close(code=self.close_code)
            closed = True
        except Exception:  # a broken socket, or a client that took nothing for the grace period
            log.debug("connection %s: no clean close", self.id, exc_info=True)
        finally:  # also when given up on (`wait_sent`'s timeout)
            if sending is not None:
                sending.cancel()
            self.backlog.clear()
            transport = self.transport
            if transport is not None:
                if not closed:
                    transport.abort()
                elif transport.get_write_buffer_size():  # the close frame is written, not yet taken
                    asyncio.get_running_loop().call_later(CLOSE_GRACE_S, _reset_if_unread, transport)

    async def _drain(self, waiting: _Resumed | None) -> None:
        try:
            if waiting is not None:
                await waiting
            while self.backlog:
                text = self.backlog.popleft()
                self.queued_bytes -= len(text)
                await self.websocket.send_text(text)
        except Exception:  # a broken socket only ends this connection
            log.debug("connection %s: send failed", self.id, exc_info=True)
            self.backlog.clear()
            self._broken()
            return
        if not self.closed.is_set():  # the backlog is empty (no await since the loop saw it so)
            self._sender = None

    async def wait_sent(self, timeout: float = 10.0) -> None:
        """Lets the last frames go out, for at most ``timeout`` seconds (a client may not be reading)."""
        sender = self._sender
        if sender is not None:
            # `wait` neither raises the sender's own error nor swallows the caller's cancellation.
            await asyncio.wait({sender}, timeout=timeout)
            if not sender.done():
                sender.cancel()


class _Resumed:
    """A send coroutine that was run by hand until it had to wait (it yielded ``waiting``): awaiting this
    hands that wait to the awaiting task and runs the coroutine on to its end."""

    def __init__(self, coroutine: Coroutine[Any, Any, None], waiting: Any) -> None:
        self.coroutine = coroutine
        self.waiting = waiting

    def __await__(self) -> Generator[Any, Any, None]:
        waiting = self.waiting
        while True:
            try:
                value = yield waiting
            except BaseException as exc:  # the task's cancellation goes to the send it interrupts
                try:
                    waiting = self.coroutine.throw(exc)
                except StopIteration:
                    return
                continue
            try:
                waiting = self.coroutine.send(value)
            except StopIteration:
                return


def _reset_if_unread(transport: asyncio.WriteTransport) -> None:
    # Closing waits for the client to take what is still written; one that reads nothing never does.
    if transport.get_write_buffer_size():
        transport.abort()


def _dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"))
