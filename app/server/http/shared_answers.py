"""Answers that are the same for every viewer allowed to see them, built once and shared for a moment.

The lobby's page asks, for every viewer every 3 s, each room's tables and its seated players' ratings
(issue 24). Both answers depend on the room, not on who asks (each request still checks that its viewer may
see the room before it is given one), so a hundred viewers of a room each building them cost the event
loop a hundred times what one does. Here each answer is built by one task, encoded once, and given to every
request of the next ``ttl_ms`` (its age is counted from the start of its build); the requests that come
while it is built wait for that build instead of starting their own, however long it takes (a build slower
than ``ttl_ms`` is a loaded server, the moment when one build for all matters most).

What this process itself changes (a table opened, a seat taken or left, a seat that changes hands at its
table, a game's status at one of its tables) forgets the answers at once (`forget`), so a player back in the
lobby after his own sit sees it; a socket's dot and what other processes change (another worker's seats)
show within ``ttl_ms``, on top of the page's own 3 s.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable, Coroutine, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

from app.server import metrics

T = TypeVar("T")

# What builds an answer: a coroutine function, run as a task of its own. An answer is the encoded JSON
# (the lobby's), or a value that holds it with what a request derives from it (a tournament's, its rounds'
# seats for the viewer's own table); one key is always built by the same kind of builder.
Build = Callable[[], Coroutine[Any, Any, T]]


@dataclass(slots=True)
class _Answer:
    expires: float
    build: asyncio.Task[Any]


class SharedAnswers:
    """At most ``max_answers`` answers by key (the oldest dropped first), each kept ``ttl_ms`` from the
    start of its build; ``ttl_ms`` 0: every request builds its own. ``clock``: seconds, monotonic."""

    def __init__(
        self, ttl_ms: float, *, max_answers: int = 1024, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl_s = ttl_ms / 1000
        self.max_answers = max_answers
        self._clock = clock
        self._answers: dict[Hashable, _Answer] = {}

    def __len__(self) -> int:
        return len(self._answers)

    async def get(self, key: Hashable, kind: str, build: Build[T]) -> T:
        """The answer under ``key``: the one kept or being built, else ``build()``'s (``kind`` labels it in
        the metrics). A build that fails is kept by no one: its error goes to each request that waited for
        it, and the next request builds again."""
        if self.ttl_s <= 0:
            metrics.SHARED_ANSWERS.labels(kind, "built").inc()
            return await build()
        now = self._clock()
        answer = self._answers.get(key)
        if answer is None or (answer.build.done() and answer.expires <= now):
            answer = self._start(key, now, build)
            metrics.SHARED_ANSWERS.labels(kind, "built").inc()
        else:
            metrics.SHARED_ANSWERS.labels(kind, "shared").inc()
        # Shielded: a request that goes away (its client gone) does not cancel the others' build.
        value: T = await asyncio.shield(answer.build)
        return value

    def _start(self, key: Hashable, now: float, build: Build[Any]) -> _Answer:
        self._answers.pop(key, None)  # re-inserted last: the dict's order is the answers' age
        if len(self._answers) >= self.max_answers:
            self._drop_oldest(now)
        # Its own context: the build is the process's work, not the request's that happened to start it
        # (the request's admission turn, `admission.step_aside`, lives in its context).
        task = asyncio.get_running_loop().create_task(build(), context=contextvars.Context())
        answer = self._answers[key] = _Answer(expires=now + self.ttl_s, build=task)
        task.add_done_callback(lambda done: self._settled(key, answer, done))
        return answer

    def _settled(self, key: Hashable, answer: _Answer, task: asyncio.Task[Any]) -> None:
        # (`exception()` also marks a failure as seen when every request that waited for it went away.)
        failed = task.cancelled() or task.exception() is not None
        if failed and self._answers.get(key) is answer:
            del self._answers[key]

    def _drop_oldest(self, now: float) -> None:
        for key in [k for k, a in self._answers.items() if a.build.done() and a.expires <= now]:
            del self._answers[key]
        while len(self._answers) >= self.max_answers:
            del self._answers[next(iter(self._answers))]

    def forget(self, *keys: Hashable) -> None:
        """Forget these answers (none: all of them): what this process just changed shows at the next
        request. A build under way goes on for the requests already waiting for it; later ones build anew."""
        if not keys:
            self._answers.clear()
            return
        for key in keys:
            self._answers.pop(key, None)

    async def close(self) -> None:
        """Cancel the builds under way and wait for them (at the app's end, before its database goes)."""
        builds = [answer.build for answer in self._answers.values() if not answer.build.done()]
        self._answers.clear()
        for build in builds:
            build.cancel()
        await asyncio.gather(*builds, return_exceptions=True)
