"""A cancellation token: a flag another thread raises to stop the searches that watch it.

The solver never reads a clock: its answers depend only on the position and the node budgets. The server
alone decides, by its own wall clock, that a robot has run too long (the last-resort guard) and raises the
flag; a search polls it every `CANCEL_EVERY` nodes and stops with `SolverCancelled`. Polling at fixed node
counts changes nothing in the search itself, so a search that is not cancelled gives the same answer and
node count as one with no token at all.
"""

from __future__ import annotations

from typing import Final

CANCEL_EVERY: Final = 1024  # nodes between two looks at the flag (a power of two)


class CancelToken:
    """Raised once by `cancel` (from any thread), never lowered: make a fresh token per robot run.

    The flag is a one-byte buffer so that the compiled kernel can watch it without taking the GIL.
    """

    __slots__ = ("flag",)

    def __init__(self) -> None:
        self.flag = bytearray(1)

    def cancel(self) -> None:
        self.flag[0] = 1

    @property
    def cancelled(self) -> bool:
        return self.flag[0] != 0
