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
database's thread, took the loop from the tables' moves for seconds; run a few at a time, the same burst
spreads over a few seconds instead. A request gives its turn back once its answer starts, and whenever it
waits for work that is not its own — a table's actor, the solver, a password hash, another worker
(`step_aside`): a table's long queue or a few slow analyses must not hold every other request, and two
workers passing calls to each other must not wait on each other's turns. It then runs on without one: the
bound is on requests working at once, not a hard cap.

A request that goes on to wait and then only answers (a sit, a leave, a proposal, a call passed to the
table's worker) holds no pooled connection meanwhile — the actor's commit goes through the group writer —
so it gives its place back too (`waiting_off_the_pool`): under a burst of sits the places turned over only
as fast as the tables' commits, and most of the burst was refused and came back.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.protocol.codes import CloseCode, ErrorCode
from app.server.errors import HTTP_STATUS

_PATHS = ("/api/", "/ws/")
_EXEMPT = ("/api/health",)
_BUSY = "the server is busy; try again shortly"

# The running request's task and its ways to give back early its place and its turn (None outside one).
_release: ContextVar[tuple[asyncio.Task[Any] | None, Callable[[], None], Callable[[], None]] | None] = (
    ContextVar("admission_release", default=None)
)


def _own() -> tuple[Callable[[], None], Callable[[], None]] | None:
    # A task started during a request (a table's actor, a robot) inherits the context, not the request.
    release = _release.get()
    if release is None or release[0] is not asyncio.current_task():
        return None
    return release[1], release[2]


def step_aside() -> None:
    """The running request now waits for work that is not its own (a table's actor, the solver, a password
    hash, another worker): its turn to run goes to the next request. It keeps its place (it may read the
    database afterwards) and runs on without a turn."""
    own = _own()
    if own is not None:
        own[1]()


def waiting_off_the_pool() -> None:
    """The running request uses no pooled connection from here on (it waits, then answers): its place goes
    to the next request."""
    own = _own()
    if own is not None:
        own[0]()


class Places:
    """The places and turns of an app's requests and handshakes, shared by each `Admission` in front of
    a part of it (the app's middleware, and the lane that takes the tables' sockets before it)."""

    def __init__(self, slots: int, running: int | None = None) -> None:
        self.slots = slots
        self.running = running or slots
        self.turns: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None
        self.active = 0
        self.refused = 0

    def turns_now(self) -> asyncio.Semaphore:
        # One per event loop: an app served again on another loop (a test's client) starts afresh.
        loop = asyncio.get_running_loop()
        if self.turns is None or self.turns[0] is not loop:
            self.turns = (loop, asyncio.Semaphore(self.running))
        return self.turns[1]


class _Admitted:
    """One admitted request's (or handshake's) place and turn, each given back once. An object, not
    closures: a socket's lives as long as the socket (issue 24: what a full collection scans)."""

    __slots__ = ("held", "places", "send", "turn", "turns")

    def __init__(self, places: Places, turns: asyncio.Semaphore, send: Send) -> None:
        self.places = places
        self.turns = turns
        self.send = send
        self.held = True
        self.turn = False

    def give_place(self) -> None:
        if self.held:
            self.held = False
            self.places.active -= 1

    def give_turn(self) -> None:
        if self.turn:
            self.turn = False
            self.turns.release()

    def release(self) -> None:
        self.give_place()
        self.give_turn()

    async def answered(self, message: Message) -> None:
        # A socket's handshake is over once it is accepted or refused: its slot is free again.
        if message["type"] in ("websocket.accept", "websocket.close", "websocket.http.response.start"):
            self.release()
        await self.send(message)

    async def answering(self, message: Message) -> None:
        # The answer is made: a client slow to read it does not hold the turn.
        if message["type"] == "http.response.start":
            self.give_turn()
        await self.send(message)


class Admission:
    def __init__(
        self,
        app: ASGIApp,
        slots: int | None = None,
        running: int | None = None,
        retry_after_s: int = 1,
        *,
        places: Places | None = None,
    ) -> None:
        """Its own ``slots`` places of which ``running`` run at once, or ``places`` shared with another."""
        if (slots is None) == (places is None):
            raise ValueError("an Admission takes either its own slots or shared places")
        self.app = app
        self.places = places if places is not None else Places(slots or 0, running)
        self.retry_after = str(retry_after_s).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        path: str = scope.get("path", "")
        if kind not in ("http", "websocket") or not path.startswith(_PATHS) or path.startswith(_EXEMPT):
            await self.app(scope, receive, send)
            return
        places = self.places
        if places.active >= places.slots:
            places.refused += 1
            await self._refuse(scope, send)
            return
        places.active += 1
        admitted = _Admitted(places, places.turns_now(), send)
        token = _release.set((asyncio.current_task(), admitted.give_place, admitted.give_turn))
        try:
            if kind == "http":
                await admitted.turns.acquire()
                admitted.turn = True
                await self.app(scope, receive, admitted.answering)
            else:
                await self.app(scope, receive, admitted.answered)
        finally:
            _release.reset(token)
            admitted.release()

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
