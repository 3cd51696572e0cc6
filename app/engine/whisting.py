"""Whisting (вист), RULES.md §4.3–§4.9: who speaks next and what the calls add up to.

The whole dialogue is derived from the calls spoken so far, so the state stores only the calls.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.actions import CallWhist
from app.engine.bids import Bid, Strain
from app.engine.conventions import Conventions
from app.engine.ending import deal_result, end_deal
from app.engine.events import Event, public
from app.engine.play import leads_in_the_dark, resume_after_choice, start_play
from app.engine.result import DealKind, PlayMode, WhistCall
from app.engine.state import DealState, Phase, TableState, defenders
from app.engine.state import evolve as replace

PASS, WHIST, HALF = WhistCall.PASS, WhistCall.WHIST, WhistCall.HALF_WHIST


@dataclass(frozen=True, slots=True)
class Ask:
    """``seat`` must call one of ``calls``; ``may_look`` for the 4-seat dealer (§4.8)."""

    seat: int
    calls: tuple[WhistCall, ...]
    dealer: bool = False


@dataclass(frozen=True, slots=True)
class Outcome:
    whisters: tuple[int, ...]  # whists that stand, in order (empty: nobody)
    half_whister: int | None = None  # a half-whist that stands (no play)
    returned: bool = False  # the lone whister took the whist back after a half-whist (§4.5)
    dealer_whist: bool = False

    @property
    def played(self) -> bool:
        return bool(self.whisters)


def half_whist_allowed(contract: Bid, conv: Conventions) -> bool:
    """§4.4: a half-whist exists only on 6 and 7, where the convention allows it (the rule's one home)."""
    return conv.half_whist and contract.level in (6, 7)


def next_step(
    calls: tuple[tuple[int, WhistCall], ...],
    defenders: tuple[int, int],
    contract: Bid,
    conv: Conventions,
    dealer: int | None,
) -> Ask | Outcome:
    """The next call expected, or how the whisting ended. ``dealer`` is the 4-seat dealer, else None."""
    first, second = defenders
    said = [call for seat, call in calls if seat != dealer]
    compulsory = conv.stalingrad and contract == Bid(6, Strain.SPADES)
    half = half_whist_allowed(contract, conv)
    if not said:
        return Ask(first, (WHIST,) if compulsory else (PASS, WHIST))
    if len(said) == 1:
        if compulsory:
            return Ask(second, (WHIST,))
        if said[0] is PASS:
            return Ask(second, (PASS, WHIST, HALF) if half else (PASS, WHIST))
        return Ask(second, (PASS, WHIST))
    outcome: Outcome | None = None
    match said:
        case [WhistCall.WHIST, WhistCall.WHIST]:
            outcome = Outcome((first, second))
        case [WhistCall.WHIST, WhistCall.PASS]:
            if not (conv.gentleman and half):
                outcome = Outcome((first,))
            else:  # §4.4 gentleman: "whist – pass – half-whist"
                return Ask(first, (WHIST, HALF))
        case [WhistCall.WHIST, WhistCall.PASS, WhistCall.WHIST]:
            outcome = Outcome((first,))
        case [WhistCall.WHIST, WhistCall.PASS, WhistCall.HALF_WHIST]:
            if conv.whist_return:  # §4.5 "вист – пас – полвиста – вист"
                return Ask(second, (PASS, WHIST))
            outcome = Outcome((), half_whister=first)
        case [WhistCall.WHIST, WhistCall.PASS, WhistCall.HALF_WHIST, WhistCall.WHIST]:
            outcome = Outcome((second,), returned=True)
        case [WhistCall.WHIST, WhistCall.PASS, WhistCall.HALF_WHIST, WhistCall.PASS]:
            outcome = Outcome((), half_whister=first)
        case [WhistCall.PASS, WhistCall.WHIST]:
            outcome = Outcome((second,))
        case [WhistCall.PASS, WhistCall.PASS]:
            outcome = Outcome(())
        case [WhistCall.PASS, WhistCall.HALF_WHIST]:
            if conv.whist_return:
                return Ask(first, (PASS, WHIST))
            outcome = Outcome((), half_whister=second)
        case [WhistCall.PASS, WhistCall.HALF_WHIST, WhistCall.WHIST]:
            outcome = Outcome((first,), returned=True)
        case [WhistCall.PASS, WhistCall.HALF_WHIST, WhistCall.PASS]:
            outcome = Outcome((), half_whister=second)
        case _:
            raise AssertionError(f"impossible whist dialogue {said}")
    assert outcome is not None
    if outcome.whisters or dealer is None or not conv.dealer_whist:
        return outcome
    dealer_calls = [call for seat, call in calls if seat == dealer]
    if not dealer_calls:
        return Ask(dealer, (PASS, WHIST), dealer=True)  # §4.8: asked last when no defender whists
    if dealer_calls[0] is WHIST:
        return Outcome(
            (dealer,), half_whister=None, returned=outcome.half_whister is not None, dealer_whist=True
        )
    return outcome


def dealer_if_sitting_out(state: TableState) -> int | None:
    return state.dealer if state.seats == 4 else None


def whist_step(state: TableState, deal: DealState) -> Ask | Outcome:
    assert deal.contract is not None
    return next_step(
        deal.calls, defenders(deal), deal.contract, state.conventions, dealer_if_sitting_out(state)
    )


def call_whist(state: TableState, deal: DealState, action: CallWhist) -> tuple[TableState, list[Event]]:
    deal = replace(deal, calls=(*deal.calls, (action.seat, action.call)))
    events = [public("whist", seat=action.seat, call=action.call.value)]
    step = whist_step(state, deal)
    if isinstance(step, Ask):
        return replace(state, deal=replace(deal, turn=step.seat)), events
    deal = replace(deal, whisters=step.whisters, half_whister=step.half_whister, returned=step.returned,
                   dealer_whist=step.dealer_whist)  # fmt: skip
    if not step.played:
        return end_deal(state, deal, deal_result(state, deal, DealKind.GAME), events)
    pair = defenders(deal)
    if step.dealer_whist:
        deal = replace(deal, mode=PlayMode.OPEN, controller=tuple((h, state.dealer) for h in pair))
        return start_play(state, deal, events)
    if len(step.whisters) == 2:
        return start_play(state, replace(deal, mode=PlayMode.CLOSED), events)
    deal = replace(deal, mode_chooser=step.whisters[0])
    if leads_in_the_dark(deal):  # §4.9: the whister chooses after the declarer's first lead
        return start_play(state, deal, events)
    deal = replace(deal, turn=None)
    return replace(state, phase=Phase.PLAY_MODE, deal=deal), events


def choose_play(state: TableState, deal: DealState, mode: PlayMode) -> tuple[TableState, list[Event]]:
    whister = deal.mode_chooser
    assert whister is not None
    events = [public("play_mode", seat=whister, mode=mode.value)]
    deal = replace(deal, mode=mode, mode_chooser=None)
    if mode is PlayMode.OPEN:
        passer = next(h for h in defenders(deal) if h != whister)
        deal = replace(deal, controller=((passer, whister),))
    resumed = resume_after_choice(state, deal, events)
    return start_play(state, deal, events) if resumed is None else resumed
