"""What the whist calls of a deal came to (RULES.md §4.4–§4.8).

Calls are given in the order spoken; a seat's last call is the one that stands (a half-whist after a
whist is the gentleman's switch, a second whist by a passer is a returned whist, and a half-whister whose
whist was returned can only pass).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.result import DealResult, WhistCall


def active_seats(seats: int, dealer: int) -> tuple[int, ...]:
    """Seats that hold cards: all three, or the four but the dealer (§1.2)."""
    return tuple(s for s in range(seats) if seats == 3 or s != dealer)


@dataclass(frozen=True, slots=True)
class WhistOutcome:
    whisters: tuple[int, ...]  # in the order their standing whist was spoken
    half_whister: int | None  # a half-whist that stood (nobody whisted after it)
    sole_writer: bool  # the lone whister returned the whist or is the 4-seat dealer (§5.5)

    @property
    def played(self) -> bool:
        return bool(self.whisters)


def whist_outcome(result: DealResult) -> WhistOutcome:
    last: dict[int, tuple[int, WhistCall]] = {}
    for position, (seat, call) in enumerate(result.calls):
        last[seat] = (position, call)
    whisters = tuple(
        seat for seat, (_, call) in sorted(last.items(), key=lambda kv: kv[1][0]) if call is WhistCall.WHIST
    )
    half = [seat for seat, (_, call) in last.items() if call is WhistCall.HALF_WHIST]
    half_whister = half[0] if half and not whisters else None
    sole_writer = False
    if len(whisters) == 1:
        whister = whisters[0]
        whist_at = last[whister][0]
        is_dealer = result.seats == 4 and whister == result.dealer
        returned = any(
            call is WhistCall.HALF_WHIST and seat != whister and position < whist_at
            for position, (seat, call) in enumerate(result.calls)
        )
        sole_writer = is_dealer or returned
    return WhistOutcome(whisters, half_whister, sole_writer)
