"""The talon, the discard and the contract (RULES.md §3): what the declarer does after the auction."""

from __future__ import annotations

from app.engine import bidding
from app.engine.actions import Discard
from app.engine.bids import LADDER, Bid
from app.engine.cards import card_texts, sort_cards
from app.engine.ending import deal_result, end_deal
from app.engine.errors import IllegalAction
from app.engine.events import Event, private, public
from app.engine.play import start_play
from app.engine.result import DealKind
from app.engine.state import DealState, Phase, TableState, defenders
from app.engine.state import evolve as replace


def contracts(deal: DealState) -> list[Bid]:
    """§3.1: a trick contract at or above the bid, in the bid's talon mode; never misère after a trick bid."""
    assert deal.bid is not None
    bid = deal.bid
    return [c for c in LADDER if not c.is_misere and c.no_talon == bid.no_talon and c.rank >= bid.rank]


def may_zastrel(state: TableState, deal: DealState) -> bool:
    """§3.2: in a series, after winning with one's only bid, 6♠ or 7♠ with talon («первичная заявка»)."""
    if not state.conventions.zastrel or state.allpass_series == 0 or deal.declarer is None:
        return False
    mine = bidding.own_bids(deal, deal.declarer)
    return len(mine) == 1 and mine[0] in (bidding.SIX_SPADES, bidding.SEVEN_SPADES)


def discard(state: TableState, deal: DealState, action: Discard) -> tuple[TableState, list[Event]]:
    if state.phase is not Phase.DISCARD:
        raise IllegalAction(f"no discard is due in {state.phase.value}")
    first, second = action.cards
    hand = deal.hands[action.seat]
    if first is second or first not in hand or second not in hand:
        raise IllegalAction(f"discard two different cards of your hand, not {first} {second}")
    hands = list(deal.hands)
    hands[action.seat] = tuple(c for c in hand if c is not first and c is not second)
    discard = sort_cards((first, second))
    deal = replace(deal, hands=tuple(hands), discard=discard)
    events = [public("discarded", seat=action.seat),
              private("discard", {action.seat}, cards=card_texts(discard))]  # fmt: skip
    assert deal.bid is not None
    if deal.bid.is_misere:
        return start_play(state, replace(deal, contract=deal.bid), events)
    return replace(state, phase=Phase.CONTRACT, deal=deal), events


def name_contract(state: TableState, deal: DealState, contract: Bid) -> tuple[TableState, list[Event]]:
    deal = replace(deal, contract=contract)
    events = [public("contract", seat=deal.declarer, contract=contract.text)]
    if contract.level == 10 and not state.conventions.ten_whisted:
        return end_deal(state, deal, deal_result(state, deal, DealKind.GAME), events)
    deal = replace(deal, turn=defenders(deal)[0])
    return replace(state, phase=Phase.WHISTING, deal=deal), events
