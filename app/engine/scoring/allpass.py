"""Writes for an all-pass deal, распасы (RULES.md §6.2–§6.5)."""

from __future__ import annotations

from app.engine.conventions import Conventions
from app.engine.result import DealResult
from app.engine.scoring.calls import active_seats
from app.engine.scoring.records import Write, mountain


def allpass_writes(result: DealResult, conventions: Conventions, step: int) -> list[Write]:
    """The ``step``-th deal of a series: each trick to the taker's mountain at the step's price.

    The talon's tricks are the dealer's (§6.2). A player without tricks writes off twice the trick price
    (§6.4), except the 4-seat dealer; at 3 seats the dealer only when neither he nor the talon took one.
    """
    assert result.tricks is not None
    price = conventions.allpass_trick_price(step)
    counted = dict(result.tricks)
    if result.seats == 4:
        counted[result.dealer] = result.talon_tricks
    else:
        counted[result.dealer] = counted.get(result.dealer, 0) + result.talon_tricks
    writes = []
    for seat in sorted(counted):
        taken = counted[seat]
        label = f"all-pass step {step} at {price}"
        if taken:
            talon = (
                f", {result.talon_tricks} of them by the talon"
                if seat == result.dealer and result.talon_tricks
                else ""
            )
            writes.append(
                mountain(seat, price * taken, f"{label}: {taken} trick{'s' if taken != 1 else ''}{talon}")
            )
        elif seat in active_seats(result.seats, result.dealer):
            writes.append(mountain(seat, -2 * price, f"{label}: no tricks, written off"))
    return writes
