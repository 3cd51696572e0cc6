"""The server's two time bases, kept apart by type so that mypy catches a swap.

`MonoMs`: monotonic milliseconds of this process (``time.monotonic_ns``, less the time the process stood
still in a full collection of its cycle collector): what the table clocks run on; meaningless in another
process. `WallMs`: wall-clock milliseconds (``time.time_ns``): what survives a
restart (a turn's start stored with each step, the process heartbeat). What reads the time for the
clocks takes it from a `Timestamper` or a ``now`` callable (scalachess's ``Clock(…, timestamper)``), so
a test passes a fake one; rows' record timestamps (``at`` columns) are plain wall time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NewType

MonoMs = NewType("MonoMs", int)
WallMs = NewType("WallMs", int)


class _StoodStill:
    """How long this process stood still in its own full collections (`collector`), in ns. The tables'
    clocks do not run through them: a move that came meanwhile waited in the server's queue, which RULES
    §8.6 does not charge, and a deadline that fell in one is met once the table runs again."""

    ns = 0


def mono_ms() -> MonoMs:
    """Monotonic ms of this process, less the time it stood still (`stood_still`)."""
    return MonoMs((time.monotonic_ns() - _StoodStill.ns) // 1_000_000)


def stood_still(ns: int) -> None:
    """The process stood still ``ns`` (a full collection, the loop stopped): no table's clock ran."""
    _StoodStill.ns += max(0, ns)


def wall_ms() -> WallMs:
    return WallMs(time.time_ns() // 1_000_000)


@dataclass(frozen=True, slots=True)
class Timestamper:
    """Where a part of the server reads the time: both bases, read together when both are needed."""

    mono: Callable[[], MonoMs] = mono_ms
    wall: Callable[[], WallMs] = wall_ms


SYSTEM_TIME = Timestamper()
