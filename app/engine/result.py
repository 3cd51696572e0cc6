"""`DealResult`: everything the score sheet needs to write one deal (RULES.md §5–§6).

The engine produces one at the end of every deal; the scorer consumes them in order. Seats are table seat
indices 0..n-1; with 4 seats the dealer sits out but may appear in ``calls`` (dealer whist) and as the
misère partner.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.engine.bids import Bid


class DealKind(StrEnum):
    GAME = "game"  # a trick contract (with or without talon)
    MISERE = "misere"
    ALLPASS = "allpass"  # распасы
    ZASTREL = "zastrel"  # застрел: declarer concedes three down, no whists (§3.2)
    VOID = "void"  # an all-pass after a timed-out auction: not played, the pulya is interrupted (§8.4)


class WhistCall(StrEnum):
    PASS = "pass"
    WHIST = "whist"
    HALF_WHIST = "half-whist"


class PlayMode(StrEnum):
    OPEN = "open"  # всветлую: both defender hands shown, the lone whister plays both
    CLOSED = "closed"  # втёмную


@dataclass(frozen=True, slots=True)
class DealResult:
    seats: int
    dealer: int
    kind: DealKind
    declarer: int | None = None
    contract: Bid | None = None
    calls: tuple[tuple[int, WhistCall], ...] = ()  # in the order spoken; the 4-seat dealer by its seat
    play: PlayMode | None = None  # None when there was no play; CLOSED when both whisted (§4.7)
    tricks: dict[int, int] | None = None  # per active seat; None when the deal was not played
    talon_tricks: int = 0  # all-pass: tricks won by a talon card (written to the dealer, §6.2)
    misere_partner: int | None = None  # misère for two: the dealer's seat (§3.3)
    timed_out: tuple[int, ...] = ()  # every seat whose clock ran out during this deal, in seat order (§8.5)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seats": self.seats, "dealer": self.dealer, "type": self.kind.value}
        if self.declarer is not None:
            out["declarer"] = self.declarer
        if self.contract is not None:
            out["contract"] = self.contract.text
        if self.calls:
            out["calls"] = [[seat, call.value] for seat, call in self.calls]
        if self.play is not None:
            out["play"] = self.play.value
        if self.tricks is not None:
            out["tricks"] = {str(seat): n for seat, n in sorted(self.tricks.items())}
        if self.kind is DealKind.ALLPASS:
            out["talon_tricks"] = self.talon_tricks
        if self.misere_partner is not None:
            out["partner"] = self.misere_partner
        if self.timed_out:
            out["timed_out"] = list(self.timed_out)
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> DealResult:
        tricks = data.get("tricks")
        return DealResult(
            seats=int(data["seats"]),
            dealer=int(data["dealer"]),
            kind=DealKind(data["type"]),
            declarer=None if data.get("declarer") is None else int(data["declarer"]),
            contract=None if data.get("contract") is None else Bid.parse(data["contract"]),
            calls=tuple((int(seat), WhistCall(call)) for seat, call in data.get("calls", ())),
            play=None if data.get("play") is None else PlayMode(data["play"]),
            tricks=None if tricks is None else {int(k): int(v) for k, v in tricks.items()},
            talon_tricks=int(data.get("talon_tricks", 0)),
            misere_partner=None if data.get("partner") is None else int(data["partner"]),
            timed_out=_seats(data.get("timed_out")),
        )


def _seats(value: Any) -> tuple[int, ...]:
    """``timed_out`` as stored: a list of seats (or one seat, as results stored before §8.5 listed all)."""
    if value is None:
        return ()
    if isinstance(value, list | tuple):
        return tuple(sorted(int(v) for v in value))
    return (int(value),)


def declarer_made(result: DealResult) -> bool:
    """Whether a game or misère was made: unplayed games count as made (§4.7)."""
    if result.contract is None or result.declarer is None:
        return False
    if result.tricks is None:
        return True
    taken = result.tricks.get(result.declarer, 0)
    if result.contract.is_misere:
        return taken == 0
    return taken >= result.contract.level


def whisted(result: DealResult) -> bool:
    """A full whist stood: someone (the dealer included) said whist and the deal was played."""
    return result.tricks is not None and any(call is WhistCall.WHIST for _, call in result.calls)


def next_allpass_series(series: int, result: DealResult | None) -> int:
    """The all-pass series count after ``result`` (§6.5): one more after an all-pass deal, reset by a deal
    that exits the series, else unchanged. The engine and the score sheet both count with this."""
    if result is None:
        return series
    if result.kind is DealKind.ALLPASS:
        return series + 1
    return 0 if exits_allpass_series(result) else series


def exits_allpass_series(result: DealResult) -> bool:
    """Whether this deal ends a running all-pass series (§6.5).

    A made 7-level game always exits; a made 8/9/10 exits only if it was whisted. Failed games, 6-level
    games, unwhisted 8/9/10, misère, zastrel and all-pass deals do not exit.
    """
    if result.kind is not DealKind.GAME or result.contract is None:
        return False
    level = result.contract.level
    if level == 7:
        return declarer_made(result)
    if level >= 8:
        return declarer_made(result) and whisted(result)
    return False
