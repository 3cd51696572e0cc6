"""One websocket connection: a bounded outgoing queue drained by its own sender task.

The table actor never awaits a client: it puts frames on the queue; a client too slow to drain it (more
than ``queue_frames`` frames or ``queue_bytes`` bytes waiting) is disconnected with 1013 (it reconnects
and gets a snapshot) instead of holding up the table or growing the server's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from typing import Any

from fastapi import WebSocket
from pydantic import BaseModel

from app.server import metrics

_ids = itertools.count(1)

# "Try again later": the client fell too far behind; it reconnects and gets a snapshot.
CLOSE_TOO_SLOW = 1013


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
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=queue_frames)
        # Bounded in bytes too: a few hundred snapshots with long score sheets are tens of megabytes.
        self.queue_bytes = queue_bytes
        self.queued_bytes = 0
        # A resync asked for and not yet answered with a snapshot: further ones are coalesced into it.
        self.resync_pending = False
        self.closed = asyncio.Event()
        self._sender: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._sender = asyncio.create_task(self._send_loop(), name=f"ws-send-{self.id}")

    def send(self, message: BaseModel | dict[str, Any] | str) -> None:
        """Queue one frame; a ``str`` is sent as it is (a frame encoded once for many connections)."""
        if self.closed.is_set():
            return
        metrics.frame_sent(message)
        if isinstance(message, str):
            text = message
        else:
            text = message.model_dump_json() if isinstance(message, BaseModel) else _dumps(message)
        if self.queued_bytes + len(text) > self.queue_bytes:
            self.close(CLOSE_TOO_SLOW)  # a client that does not read is dropped, never buffered for
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close(CLOSE_TOO_SLOW)
            return
        self.queued_bytes += len(text)

    def close(self, code: int = 1000) -> None:
        if self.closed.is_set():
            return
        self.close_code = code
        self.closed.set()
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
        if (self.queue.full() or code == CLOSE_TOO_SLOW) and self._sender is not None:
            # Nothing more is owed to a client that stopped reading: stop trying to write to it.
            self._sender.cancel()

    async def _send_loop(self) -> None:
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    break
                self.queued_bytes -= len(text)
                await self.websocket.send_text(text)
        except Exception:  # a broken socket only ends this connection
            pass
        finally:
            self.closed.set()
            with contextlib.suppress(Exception):
                await self.websocket.close(code=self.close_code)

    async def wait_sent(self, timeout: float = 10.0) -> None:
        """Lets the last frames go out, for at most ``timeout`` seconds (a client may not be reading)."""
        if self._sender is not None:
            # `wait` neither raises the sender's own error nor swallows the caller's cancellation.
            await asyncio.wait({self._sender}, timeout=timeout)
            if not self._sender.done():
                self._sender.cancel()


def _dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"))
