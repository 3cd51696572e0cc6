"""One websocket connection: a bounded outgoing queue drained by its own sender task.

The table actor never awaits a client: it puts frames on the queue; a client too slow to drain it is
disconnected (it reconnects and gets a snapshot) instead of holding up the table.
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

_ids = itertools.count(1)


class TokenBucket:
    """Per-connection rate limit: ``rate`` messages a second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class Connection:
    def __init__(
        self,
        websocket: WebSocket,
        user_id: int,
        user_name: str,
        queue_frames: int,
        *,
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
        self.closed = asyncio.Event()
        self._sender: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._sender = asyncio.create_task(self._send_loop(), name=f"ws-send-{self.id}")

    def send(self, message: BaseModel | dict[str, Any]) -> None:
        if self.closed.is_set():
            return
        text = message.model_dump_json() if isinstance(message, BaseModel) else _dumps(message)
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close()

    def close(self, code: int = 1000) -> None:
        if self.closed.is_set():
            return
        self.close_code = code
        self.closed.set()
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
        if self.queue.full() and self._sender is not None:
            self._sender.cancel()

    async def _send_loop(self) -> None:
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    break
                await self.websocket.send_text(text)
        except Exception:  # a broken socket only ends this connection
            pass
        finally:
            self.closed.set()
            with contextlib.suppress(Exception):
                await self.websocket.close(code=self.close_code)

    async def wait_sent(self) -> None:
        if self._sender is not None:
            with contextlib.suppress(BaseException):
                await self._sender


def _dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"))
