"""A new deal (RULES.md §1.2–§1.4): the recorded shuffle deals ten cards to each active seat."""

from __future__ import annotations

from app.engine.actions import Shuffle
from app.engine.cards import Card, card_texts, sort_cards
from app.engine.errors import GameOver, IllegalAction, MalformedAction
from app.engine.events import Event, private, public
from app.engine.result import next_allpass_series
from app.engine.state import DealState, Phase, TableState
from app.engine.state import evolve as replace


def deal_cards(state: TableState, action: Shuffle) -> tuple[TableState, list[Event]]:
    if state.phase not in (Phase.AWAITING_DEAL, Phase.DEAL_OVER):
        # §8.2 [ours]: reserve off, the game goes on after a deal archived as interrupted.
        if state.phase is Phase.INTERRUPTED and state.conventions.reserve_on:
            raise GameOver("the deal was interrupted and awaits adjudication; no more actions")
        if state.phase is not Phase.INTERRUPTED:
            raise IllegalAction(f"a new deal cannot start during {state.phase.value}")
    if len(action.deck) != 32 or len(set(action.deck)) != 32:
        raise MalformedAction("a shuffle must order each of the 32 cards once")
    # §8.6: an interrupted deal leaves the all-pass series as it stands (it has no result yet).
    series = next_allpass_series(state.allpass_series, state.last_result)
    dealer = state.next_dealer
    n = state.seats
    # First hand sits left of the dealer; the 4-seat dealer gets no cards (§1.2, §1.4).
    active = (
        tuple((dealer + k) % n for k in range(1, 4))
        if n == 4
        else ((dealer + 1) % 3, (dealer + 2) % 3, dealer)
    )
    dealt: list[tuple[Card, ...]] = [() for _ in range(n)]
    for k, seat in enumerate(active):
        dealt[seat] = sort_cards(action.deck[10 * k : 10 * k + 10])
    hands = tuple(dealt)
    deal = DealState(first_hand=active[0], active=active, dealt=hands, talon=action.deck[30:32], hands=hands,
                     turn=active[0], taken=(0,) * n)  # fmt: skip
    new = replace(state, phase=Phase.BIDDING, deal=deal, dealer=dealer, deal_number=state.deal_number + 1,
                  allpass_series=series, last_result=None, interrupt_reason=None)  # fmt: skip
    events = [public("deal_started", deal_number=new.deal_number, dealer=dealer, first_hand=active[0],
                     allpass_series=series)]  # fmt: skip
    events += [private("hand", {seat}, seat=seat, cards=card_texts(hands[seat])) for seat in active]
    return new, events
