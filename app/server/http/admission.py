"""Shedding a surge early (issue 26 §1.2): a reconnect storm after a worker's death is refused at once,
never left to wait for a pooled database connection until the pool times out.

Every API request and websocket handshake may need a pooled connection, one at a time (a request never
holds two). `Admission` lets at most ``slots`` of them be in progress at once — the pool's size and
overflow less a few for the process's own background work — and answers the next one at once with 503
``busy`` and ``Retry-After`` (a handshake: the same HTTP answer instead of the upgrade). A socket counts
only until its handshake is answered; the health checks are never refused.

Of the admitted API requests (not handshakes) at most ``running`` run at once; the others wait their
turn, in order of arrival, in their places (issue 24). The event loop that runs them runs every table:
a burst of requests — a hundred players sitting down within a second — each a dozen round trips to the
database's thread, took the loop from the tables' moves for seconds (their acks' p99 rose from ~35 ms to
~150 ms at 1,000 busy tables); run a few at a time, the same burst spreads over a few seconds instead.

A request that waits for work done off the loop (the solver's analyses, hints and suggestions) gives its
turn back then (`waiting_off_the_loop`): a few slow analyses must not hold every other request. One that
waits for a table actor keeps its turn (the actor works on this loop for it: a sit starts the game and
publishes it); if it does nothing after (a sit, a leave, a proposal) it holds no pooled connection while
it waits — the actor's commit goes through the group writer — and gives its place back
(`waiting_off_the_pool`): under a burst of sits the places turned over only as fast as the tables'
commits, and most of the burst was refused and came back.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from contextvars import ContextVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.protocol.codes import CloseCode, ErrorCode
from app.server.errors import HTTP_STATUS

_PATHS = ("/api/", "/ws/")
_EXEMPT = ("/api/health",)
_BUSY = "the server is busy; try again shortly"

# The running request's ways to give back early its place and its turn (None outside a request).
_release: ContextVar[tuple[Callable[[], None], Callable[[], None]] | None] = ContextVar(
    "admission_release", default=None
)


def waiting_off_the_loop() -> None:
    """The running request now waits for work done off the event loop (the solver): its turn to run goes to
    the next request (it keeps its place: it may read the database afterwards)."""
    release = _release.get()
    if release is not None:
        release[1]()


def waiting_off_the_pool() -> None:
    """The running request uses no pooled connection from here on (it waits for a table, and then ends):
    its place goes to the next request. It keeps its turn: the table works on this loop for it."""
    release = _release.get()
    if release is not None:
        release[0]()


class Admission:
    def __init__(self, app: ASGIApp, slots: int, running: int | None = None, retry_after_s: int = 1) -> None:
        self.app = app
        self.slots = slots
        self.running = running or slots
        self._turns: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None
        self.retry_after = str(retry_after_s).encode()
        self.active = 0
        self.refused = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        path: str = scope.get("path", "")
        if kind not in ("http", "websocket") or not path.startswith(_PATHS) or path.startswith(_EXEMPT):
            await self.app(scope, receive, send)
            return
        if self.active >= self.slots:
            self.refused += 1
            await self._refuse(scope, send)
            return
        self.active += 1
        held = True
        turn = False
        turns = self._turns_now()

        def give_place() -> None:
            nonlocal held
            if held:
                held = False
                self.active -= 1

        def give_turn() -> None:
            nonlocal turn
            if turn:
                turn = False
                turns.release()

        def release() -> None:
            give_place()
            give_turn()

        async def answered(message: Message) -> None:
            # A socket's handshake is over once it is accepted or refused: its slot is free again.
            if message["type"] in ("websocket.accept", "websocket.close", "websocket.http.response.start"):
                release()
            await send(message)

        token = _release.set((give_place, give_turn))
        try:
            if kind == "http":
                await turns.acquire()
                turn = True
                await self.app(scope, receive, send)
            else:
                await self.app(scope, receive, answered)
        finally:
            _release.reset(token)
            release()

    def _turns_now(self) -> asyncio.Semaphore:
        # One per event loop: an app served again on another loop (a test's client) starts afresh.
        loop = asyncio.get_running_loop()
        if self._turns is None or self._turns[0] is not loop:
            self._turns = (loop, asyncio.Semaphore(self.running))
        return self._turns[1]

    async def _refuse(self, scope: Scope, send: Send) -> None:
        body = json.dumps({"error": ErrorCode.BUSY, "message": _BUSY}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", self.retry_after),
        ]
        status = HTTP_STATUS[ErrorCode.BUSY]
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
        elif "websocket.http.response" in scope.get("extensions", {}):
            await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
            await send({"type": "websocket.http.response.body", "body": body})
        else:  # a server without denial responses: close at once, "try again later"
            await send({"type": "websocket.close", "code": CloseCode.TRY_AGAIN, "reason": "busy"})
