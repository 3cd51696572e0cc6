"""The end of a pulya after a timeout with the reserve on: the deal, the penalty, the settlement (§8.3–§8.5).

Order (§8.5): the last deal is written if it was completed (a void deal writes nothing), then the timeout
penalty of §5.8 for the seat that ran out, then the pulya is settled as an early end (§7.2–§7.7). When the
deal was interrupted, the settlement is provisional — without that deal — until an administrator awards a
result; `close_after_adjudication` then settles again, final.

Several seats may run out in the same deal (the first one ends the game, another can run out while the
deal is being completed): each of them is penalised **[ours: §5.8 names "the player who ran out"]**.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.autoplay.record import AdjudicationError, InterruptedDeal
from app.engine.result import DealResult
from app.engine.scoring.settlement import Settlement, settle
from app.engine.scoring.sheet import ScoreSheet
from app.engine.state import Phase, TableState


@dataclass(frozen=True, slots=True)
class PulyaClose:
    """The closed pulya: the final sheet (deal and penalties written) and its settlement."""

    sheet: ScoreSheet
    settlement: Settlement
    penalised: tuple[int, ...]
    provisional: bool  # an interrupted deal awaits adjudication (§8.4)


def close_after_timeout(sheet: ScoreSheet, state: TableState) -> PulyaClose:
    """Close the pulya once the deal in which a seat ran out (reserve on) is over or interrupted."""
    deal = state.deal
    if deal is None or state.phase not in (Phase.DEAL_OVER, Phase.INTERRUPTED):
        raise AdjudicationError(f"the deal is not over yet ({state.phase.value})")
    if not deal.timed_out:
        raise AdjudicationError("nobody ran out of time in this deal")
    provisional = state.phase is Phase.INTERRUPTED
    if not provisional:
        assert state.last_result is not None
        sheet = sheet.apply(state.last_result)
    return _penalise_and_settle(sheet, tuple(sorted(deal.timed_out)), provisional)


def close_after_adjudication(
    provisional: PulyaClose, record: InterruptedDeal, award: DealResult
) -> PulyaClose:
    """Settle again, final, with the administrator's award for the interrupted deal (§8.4).

    The penalties written after the provisional close are taken back, the awarded deal is written in its
    place in the order of §8.5, and the penalties are written again.
    """
    if not provisional.provisional:
        raise AdjudicationError("this pulya was not awaiting adjudication")
    if award.dealer != record.dealer or award.seats != record.seats:
        raise AdjudicationError("the award is for another deal")
    sheet = _without_trailing_penalties(provisional.sheet, len(provisional.penalised))
    # Written as an award ("deal N awarded"), as every award is: it leaves the all-pass series as it stands
    # and a later revision finds it (§8.6).
    sheet = sheet.award(record.deal_number, award)
    return _penalise_and_settle(sheet, provisional.penalised, provisional=False)


def _penalise_and_settle(sheet: ScoreSheet, seats: tuple[int, ...], provisional: bool) -> PulyaClose:
    for seat in seats:
        sheet = sheet.timeout(seat)
    return PulyaClose(sheet, settle(sheet), seats, provisional)


def _without_trailing_penalties(sheet: ScoreSheet, count: int) -> ScoreSheet:
    lines = sheet.history
    if count > len(lines) or any(line.kind != "timeout" for line in lines[len(lines) - count :]):
        raise AdjudicationError("the provisional sheet does not end with the timeout penalties")
    rebuilt = ScoreSheet.new(sheet.seats, sheet.conventions)
    for line in lines[: len(lines) - count]:
        rebuilt = rebuilt.write(line)
    return replace(rebuilt, allpass_series=sheet.allpass_series)
