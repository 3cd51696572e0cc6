"""The server's two time bases, kept apart by type so that mypy catches a swap.

`MonoMs`: monotonic milliseconds of this process (``time.monotonic_ns``, less the time the process stood
still in a full collection of its cycle collector): what the table clocks run on; meaningless in another
process. `WallMs`: wall-clock milliseconds (``time.time_ns``): what survives a
restart (a turn's start stored with each step, the process heartbeat). What reads the time for the
clocks takes it from a `Timestamper` or a ``now`` callable (scalachess's ``Clock(…, timestamper)``), so
a test passes a fake one; rows' record timestamps (``at`` columns) are plain wall time.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NewType

MonoMs = NewType("MonoMs", int)
WallMs = NewType("WallMs", int)


class _StoodStill:
    """How long this process stood still in full collections of its cycle collector, in ns, and since
    when it stands still now (None: it runs). The tables' clocks do not run through them: a move that came
    meanwhile waited in the server's queue, which RULES §8.6 does not charge, and a deadline that fell in
    one is met once the table runs again."""

    ns = 0
    since: int | None = None
    last = 0  # the latest `mono_ms` given
    holders = 0  # servers of this process that hold the clocks in full collections


def mono_ms() -> MonoMs:
    """Monotonic ms of this process, less the time it stood still (`stood_still`); during a full
    collection (a finalizer reading it) the moment the collection began."""
    since = _StoodStill.since
    now = time.monotonic_ns() if since is None else since
    value = (now - _StoodStill.ns) // 1_000_000
    # A full collection in another thread between this one's readings (Python's own trigger, with the
    # server's collector off) would put this reading up to its length ahead of the next: never back.
    if value < _StoodStill.last:
        return MonoMs(_StoodStill.last)
    _StoodStill.last = value
    return MonoMs(value)


def stood_still(ns: int) -> None:
    """The process stood still ``ns`` (a full collection, the loop stopped): no table's clock ran."""
    _StoodStill.ns += max(0, ns)


def _on_collection(phase: str, info: dict[str, int]) -> None:
    # Only the full collections: a young one (1-4 ms every 50 ms under load) left out would make every
    # clock run a few per cent slower than the players' own.
    if info["generation"] != 2:
        return
    if phase == "start":
        _StoodStill.since = time.monotonic_ns()
        return
    since, _StoodStill.since = _StoodStill.since, None  # cleared first: the time must not stay frozen
    if since is not None:
        stood_still(time.monotonic_ns() - since)


def hold_clocks_in_full_collections(hold: bool = True) -> None:
    """From now on (``hold`` False: no longer), every full collection of this process, whoever starts it
    (the server's collector, Python's own trigger in any thread), stops the tables' time with the process
    (`stood_still`). Counted: each server in the process (tests run several) asks and gives back once."""
    _StoodStill.holders = max(0, _StoodStill.holders + (1 if hold else -1))
    if _StoodStill.holders > 0 and _on_collection not in gc.callbacks:
        gc.callbacks.append(_on_collection)
    elif _StoodStill.holders <= 0 and _on_collection in gc.callbacks:
        gc.callbacks.remove(_on_collection)
        _StoodStill.since = None


def wall_ms() -> WallMs:
    return WallMs(time.time_ns() // 1_000_000)


@dataclass(frozen=True, slots=True)
class Timestamper:
    """Where a part of the server reads the time: both bases, read together when both are needed."""

    mono: Callable[[], MonoMs] = mono_ms
    wall: Callable[[], WallMs] = wall_ms


SYSTEM_TIME = Timestamper()
