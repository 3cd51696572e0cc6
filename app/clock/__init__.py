"""Pure table clocks: deal time plus a reserve for the whole pulya (RULES.md §8). No wall clock inside."""

from app.clock.lag import LagPolicy
from app.clock.reserve import (
    ClockError,
    ClockSettings,
    ReserveClock,
    SeatTime,
    seconds_to_ms,
    thought_before_crash,
)

__all__ = [
    "ClockError",
    "ClockSettings",
    "LagPolicy",
    "ReserveClock",
    "SeatTime",
    "seconds_to_ms",
    "thought_before_crash",
]
