"""The server's two time bases, kept apart by type so that mypy catches a swap.

`MonoMs`: monotonic milliseconds of this process (``time.monotonic_ns``): what the table clocks run on;
meaningless in another process. `WallMs`: wall-clock milliseconds (``time.time_ns``): what survives a
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


def mono_ms() -> MonoMs:
    return MonoMs(time.monotonic_ns() // 1_000_000)


def wall_ms() -> WallMs:
    return WallMs(time.time_ns() // 1_000_000)


@dataclass(frozen=True, slots=True)
class Timestamper:
    """Where a part of the server reads the time: both bases, read together when both are needed."""

    mono: Callable[[], MonoMs] = mono_ms
    wall: Callable[[], WallMs] = wall_ms


SYSTEM_TIME = Timestamper()
