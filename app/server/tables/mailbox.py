"""`Mailbox`: a table actor's commands, first in first out, read by its one task.

`asyncio.Queue.get` makes a coroutine for every wait; a thousand tables each waiting a second for their
next move keep a thousand of them (with their frames) alive long enough for the cycle collector to scan
them twice, once young and once older (issue 24). The actor waits on a bare future instead, and only
when nothing waits for it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class Mailbox(Generic[T]):
    """Unbounded (the actor bounds what it lets in); one reader: `wait` while `empty`, then `get_nowait`."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: T) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():  # a reader cancelled while it waited left its future cancelled
                waiter.set_result(None)

    def get_nowait(self) -> T:
        if not self._items:
            raise asyncio.QueueEmpty
        return self._items.popleft()

    def wait(self) -> asyncio.Future[None]:
        """Done once a command is there (already done if one is)."""
        if self._waiter is not None and not self._waiter.done():
            raise RuntimeError("a mailbox has one reader: it is waiting already")
        waiter = asyncio.get_running_loop().create_future()
        if self._items:
            waiter.set_result(None)
        else:
            self._waiter = waiter
        return waiter
