"""Consistency checks of a `DealResult` before it is written (RULES.md §3–§6).

The engine only produces consistent results; these checks guard the other producers (result files,
adjudicated deals) and name the offending field.
"""

from __future__ import annotations

from app.engine.bids import Bid, Strain
from app.engine.conventions import Conventions
from app.engine.result import DealKind, DealResult, WhistCall
from app.engine.scoring.calls import active_seats, whist_outcome
from app.engine.scoring.records import ScoringError
from app.engine.whisting import half_whist_allowed

_ZASTREL_BIDS = (Bid(6, Strain.SPADES), Bid(7, Strain.SPADES))


def is_misere(result: DealResult) -> bool:
    return result.kind is DealKind.MISERE or (
        result.kind is DealKind.GAME and result.contract is not None and result.contract.is_misere
    )


def check_result(result: DealResult, seats: int, conventions: Conventions) -> None:
    if result.seats != seats:
        raise ScoringError("seats", f"the deal has {result.seats} seats, the sheet {seats}")
    if not 0 <= result.dealer < seats:
        raise ScoringError("dealer", f"no seat {result.dealer}")
    active = active_seats(seats, result.dealer)
    kind = result.kind
    if kind is DealKind.VOID:
        return
    if kind is DealKind.ALLPASS:
        _check_tricks(result, active, extra=result.talon_tricks)
        if not 0 <= result.talon_tricks <= 2:
            raise ScoringError("talon_tricks", "must be 0, 1 or 2")
        if seats == 3 and not conventions.allpass_talon_at_three and result.talon_tricks:
            raise ScoringError("talon_tricks", "the talon plays no tricks at 3 seats under these conventions")
        return
    if result.declarer not in active:
        raise ScoringError("declarer", f"must be an active seat of {list(active)}")
    if result.contract is None:
        raise ScoringError("contract", "missing")
    if kind is DealKind.ZASTREL:
        if result.contract not in _ZASTREL_BIDS:
            raise ScoringError("contract", "a zastrel follows a 6s or 7s bid (§3.2)")
        if result.tricks is not None or result.calls:
            raise ScoringError("tricks", "a zastrel is not played and not whisted")
        return
    if is_misere(result):
        if not result.contract.is_misere:
            raise ScoringError("contract", "a misère deal needs a misère contract")
        if result.calls:
            raise ScoringError("calls", "nobody whists a misère (§4.2)")
        if result.misere_partner is not None and (seats != 4 or result.misere_partner != result.dealer):
            raise ScoringError("partner", "a misère for two is played with the 4-seat dealer (§3.3)")
        if result.tricks is None:
            raise ScoringError("tricks", "a misère is always played")
        _check_tricks(result, active)
        return
    if result.misere_partner is not None:
        raise ScoringError("partner", "only a misère has a partner")
    _check_calls(result, active, conventions)
    outcome = whist_outcome(result)
    if outcome.played and result.tricks is None:
        raise ScoringError("tricks", "a whist stood, so the deal was played: tricks are needed")
    if not outcome.played and result.tricks is not None:
        raise ScoringError("tricks", "nobody whisted (or a half-whist stood): the deal was not played")
    if result.tricks is not None:
        _check_tricks(result, active)


def _check_calls(result: DealResult, active: tuple[int, ...], conventions: Conventions) -> None:
    defenders = [s for s in active if s != result.declarer]
    callers = set(defenders) | ({result.dealer} if result.seats == 4 else set())
    for seat, call in result.calls:
        if seat not in callers:
            raise ScoringError("calls", f"seat {seat} does not whist on this deal")
        half = call is WhistCall.HALF_WHIST
        if half and result.contract is not None and not half_whist_allowed(result.contract, conventions):
            raise ScoringError("calls", "a half-whist is only possible on 6 and 7, where allowed (§4.4)")
    last = dict(result.calls)
    if sum(call is WhistCall.HALF_WHIST for call in last.values()) > 1:
        raise ScoringError("calls", "only one half-whist can stand")
    whisters = [s for s, call in last.items() if call is WhistCall.WHIST]
    if result.seats == 4 and result.dealer in whisters and len(whisters) > 1:
        raise ScoringError("calls", "the dealer whists only when no defender does (§4.8)")


def _check_tricks(result: DealResult, active: tuple[int, ...], extra: int = 0) -> None:
    tricks = result.tricks
    if tricks is None:
        raise ScoringError("tricks", "missing")
    if set(tricks) != set(active):
        raise ScoringError("tricks", f"expected tricks for seats {list(active)}, got {sorted(tricks)}")
    if any(n < 0 for n in tricks.values()):
        raise ScoringError("tricks", "a trick count cannot be negative")
    total = sum(tricks.values()) + extra
    # A timeout in an all-pass deal leaves the tricks above the cap unwritten (§8.4).
    short_allowed = result.kind is DealKind.ALLPASS and bool(result.timed_out)
    if total != 10 and not (short_allowed and total < 10):
        raise ScoringError("tricks", f"the tricks add up to {total}, not 10")
