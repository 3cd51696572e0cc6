"""Pure table clocks: deal time plus a reserve for the whole pulya (RULES.md §8). No wall clock inside."""

from app.clock.lag import LagPolicy
from app.clock.reserve import (
    ClockError,
    ClockSettings,
    ReserveClock,
    SeatTime,
    thought_before_crash,
)
from app.engine.conventions import seconds_to_ms  # §8.6: the one rounding, the conventions' own

__all__ = [
    "ClockError",
    "ClockSettings",
    "LagPolicy",
    "ReserveClock",
    "SeatTime",
    "seconds_to_ms",
    "thought_before_crash",
]
