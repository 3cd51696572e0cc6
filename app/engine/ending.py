"""The end of a deal: its result, its record, timeouts and interruptions (RULES.md §5, §8.4, §12).

Every phase ends its deal through `end_deal`, with the `DealResult` that `deal_result` builds: one place
decides what a deal writes to the score sheet.
"""

from __future__ import annotations

from app.engine.actions import Interrupt
from app.engine.cards import card_texts
from app.engine.errors import IllegalAction
from app.engine.events import Event, public
from app.engine.result import DealKind, DealResult, WhistCall
from app.engine.state import DealState, Phase, TableState
from app.engine.state import evolve as replace


def timeout(state: TableState, deal: DealState, seat: int) -> tuple[TableState, list[Event]]:
    if not 0 <= seat < state.seats:
        raise IllegalAction(f"seat {seat} is not at this {state.seats}-seat table")
    deal = replace(deal, timed_out=deal.timed_out | {seat})
    events = [public("timeout", seat=seat)]
    if not (deal.allpass and state.phase is Phase.PLAY and seat in deal.active):
        return replace(state, deal=deal), events
    # §8.4: the remaining all-pass tricks go to the timed-out player, at most allpass_timeout_cap written
    # to him in all — the talon's tricks that §6.2 writes to a 3-seat dealer count towards the cap.
    remaining = 10 - len(deal.tricks)
    taken = list(deal.taken)
    talon_part = deal.talon_taken if seat == state.dealer else 0
    capped = min(state.conventions.allpass_timeout_cap, taken[seat] + talon_part + remaining) - talon_part
    taken[seat] = max(taken[seat], capped)
    deal = replace(deal, taken=tuple(taken), turn=None)
    return end_deal(state, deal, deal_result(state, deal, DealKind.ALLPASS), events)


def interrupt(state: TableState, action: Interrupt) -> tuple[TableState, list[Event]]:
    new = replace(state, phase=Phase.INTERRUPTED, interrupt_reason=action.reason)
    return new, [public("interrupted", reason=action.reason)]


def deal_result(state: TableState, deal: DealState, kind: DealKind) -> DealResult:
    played = kind in (DealKind.ALLPASS, DealKind.MISERE) or (kind is DealKind.GAME and bool(deal.whisters))
    tricks = {seat: deal.taken[seat] for seat in deal.active} if played else None
    # A whister confirming his own whist (gentleman's choice not to switch) adds nothing to the record.
    calls: list[tuple[int, WhistCall]] = []
    for seat, call in deal.calls:
        if call is WhistCall.WHIST and (seat, WhistCall.WHIST) in calls:
            continue
        calls.append((seat, call))
    mode = deal.mode if kind is DealKind.GAME and played else None
    return DealResult(
        seats=state.seats,
        dealer=state.dealer,
        kind=kind,
        declarer=deal.declarer if kind in (DealKind.GAME, DealKind.MISERE, DealKind.ZASTREL) else None,
        contract=None if kind in (DealKind.ALLPASS, DealKind.VOID) else (deal.contract or deal.bid),
        calls=tuple(calls),
        play=mode,
        tricks=tricks,
        talon_tricks=deal.talon_taken if kind is DealKind.ALLPASS else 0,
        misere_partner=misere_partner(state, deal),
        timed_out=tuple(sorted(deal.timed_out)),
    )  # fmt: skip


def misere_partner(state: TableState, deal: DealState) -> int | None:
    """The dealer who joined the declarer's misère for two (§3.3), if any."""
    joined = deal.declarer is not None and deal.misere_partner_of == deal.declarer
    return state.dealer if joined else None


def end_deal(
    state: TableState, deal: DealState, result: DealResult, events: list[Event]
) -> tuple[TableState, list[Event]]:
    events.append(public("deal_over", result=result.to_json(), record=deal_record(deal)))
    return replace(state, phase=Phase.DEAL_OVER, deal=deal, last_result=result), events


def deal_record(deal: DealState) -> dict[str, object]:
    """The full record shown to the table once a deal ends (§12)."""
    return {
        "hands": {str(s): card_texts(deal.dealt[s]) for s in deal.active},
        "talon": card_texts(deal.talon),
        "discard": card_texts(deal.discard),
        "tricks": [[[h, c.text] for h, c in trick] for trick in deal.tricks],
        "winners": list(deal.winners),
        "claim": claim_record(deal),
    }


def claim_record(deal: DealState) -> dict[str, object] | None:
    """The declarer's claim (§4.10) as the views and the deal record show it: public once made (§12)."""
    claim = deal.claim
    if claim is None:
        return None
    return {
        "seat": deal.declarer,
        "tricks": claim.tricks,
        "remaining": claim.remaining,
        "answerers": list(claim.answerers),
        "answers": [[seat, accepted] for seat, accepted in claim.answers],
        "verdict": claim.verdict,
    }
