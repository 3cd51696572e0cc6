"""Bidding (торговля), RULES.md §2 and the misère-for-two invitation of §3.3.

The questions about a deal in the BIDDING phase, and the bids, passes and invitations applied.
"""

from __future__ import annotations

from app.engine.actions import AnswerInvitation, MakeBid, PassBid
from app.engine.bids import LADDER, MISERE, MISERE_NO_TALON, Bid, Strain
from app.engine.cards import card_texts, sort_cards
from app.engine.conventions import Conventions
from app.engine.events import Event, private, public
from app.engine.play import start_allpass, start_play
from app.engine.state import DealState, Phase, TableState
from app.engine.state import evolve as replace

SIX_SPADES = Bid(6, Strain.SPADES)
SIX_SPADES_NO_TALON = Bid(6, Strain.SPADES, True)
SEVEN_SPADES = Bid(7, Strain.SPADES)
_TRICK_BIDS = tuple(b for b in LADDER if not b.is_misere)


def own_bids(deal: DealState, seat: int) -> list[Bid]:
    return [bid for who, bid in deal.auction if who == seat and bid is not None]


def remaining(deal: DealState) -> list[int]:
    return [s for s in deal.active if s not in deal.passed]


def _lowest_above(rank: int, no_talon: bool) -> Bid | None:
    for bid in _TRICK_BIDS:
        if bid.no_talon == no_talon and bid.rank > rank:
            return bid
    return None


def legal_bids(deal: DealState, seat: int, conv: Conventions, allpass_series: int) -> list[Bid]:
    """Every bid ``seat`` may make now (passing is always allowed and not listed)."""
    highest = deal.highest
    top = highest.rank if highest is not None else -1
    mine = own_bids(deal, seat)
    out: list[Bid] = []
    # Misère is "кабальный": a first bid only; misère without talon also after one's own misère (§2.6).
    if not mine and top < MISERE.rank:
        out.append(MISERE)
    if conv.no_talon_games and top < MISERE_NO_TALON.rank and (not mine or mine == [MISERE]):
        out.append(MISERE_NO_TALON)
    if any(b.is_misere for b in mine):
        return out

    order = deal.active.index
    can_hold = (
        highest is not None
        and not highest.is_misere
        and deal.highest_seat is not None
        and order(seat) < order(deal.highest_seat)
    )
    if can_hold and highest is not None:
        # §2.5: with two players left, the one with priority may only hold (or pass).
        if conv.senior_must_hold and len(remaining(deal)) == 2:
            return [highest]
        out.append(highest)

    if conv.no_jumps:
        if highest is None:
            out.append(SIX_SPADES)
            if conv.no_talon_games:
                out.append(SIX_SPADES_NO_TALON)
            if allpass_series > 0:
                out.append(SEVEN_SPADES)  # §2.4 [ours]: "7 пик" may open while a series runs
        else:
            for no_talon in (False, True) if conv.no_talon_games else (False,):
                raise_to = _lowest_above(top, no_talon)
                if raise_to is not None:
                    out.append(raise_to)
    else:
        out.extend(b for b in _TRICK_BIDS if b.rank > top and (conv.no_talon_games or not b.no_talon))
    return out


def may_invite_dealer(deal: DealState, seat: int, seats: int, conv: Conventions, allpass_series: int) -> bool:
    """§3.3: a player who may bid misère now may invite the 4-seat dealer, once per deal."""
    return (
        seats == 4
        and conv.misere_with_dealer
        and not deal.invitation_used
        and MISERE in legal_bids(deal, seat, conv, allpass_series)
    )


def next_bidder(deal: DealState, after: int) -> int:
    active = deal.active
    i = active.index(after)
    for step in range(1, len(active) + 1):
        seat = active[(i + step) % len(active)]
        if seat not in deal.passed:
            return seat
    raise AssertionError("no bidder left")  # callers end the auction before this


def auction_over(deal: DealState) -> bool:
    left = remaining(deal)
    return not left or (len(left) == 1 and deal.highest_seat == left[0])


def apply_bid(
    state: TableState, deal: DealState, action: MakeBid | PassBid
) -> tuple[TableState, list[Event]]:
    seat = action.seat
    if isinstance(action, PassBid):
        deal = replace(deal, auction=(*deal.auction, (seat, None)), passed=deal.passed | {seat})
        events = [public("bid", seat=seat, bid=None)]
    else:
        deal = replace(
            deal, auction=(*deal.auction, (seat, action.bid)), highest=action.bid, highest_seat=seat
        )
        events = [public("bid", seat=seat, bid=action.bid.text)]
    if not auction_over(deal):
        deal = replace(deal, turn=next_bidder(deal, seat))
        return replace(state, deal=deal), events
    if deal.highest_seat is None:
        return start_allpass(state, deal, events)
    return _auction_won(state, deal, events)


def invite_dealer(state: TableState, deal: DealState, seat: int) -> tuple[TableState, list[Event]]:
    """§3.3: a misère-for-two invitation; the 4-seat dealer is shown the inviter's hand and answers."""
    deal = replace(deal, invitation_used=True, inviter=seat, turn=state.dealer,
                   dealer_seen=(*deal.dealer_seen, seat))  # fmt: skip
    events = [
        public("invitation", seat=seat),
        private("shown_hand", {state.dealer}, seat=seat, cards=card_texts(deal.hands[seat])),
    ]
    return replace(state, phase=Phase.DEALER_INVITATION, deal=deal), events


def answer_invitation(
    state: TableState, deal: DealState, action: AnswerInvitation
) -> tuple[TableState, list[Event]]:
    inviter = deal.inviter
    assert inviter is not None
    deal = replace(deal, inviter=None, turn=inviter)
    events = [public("invitation_answer", seat=action.seat, accept=action.accept)]
    if not action.accept:
        return replace(state, phase=Phase.BIDDING, deal=deal), events
    deal = replace(deal, misere_partner_of=inviter)
    state, more = apply_bid(replace(state, phase=Phase.BIDDING, deal=deal), deal, MakeBid(inviter, MISERE))
    return state, events + more


def _auction_won(state: TableState, deal: DealState, events: list[Event]) -> tuple[TableState, list[Event]]:
    declarer = deal.highest_seat
    bid = deal.highest
    assert declarer is not None and bid is not None
    deal = replace(deal, declarer=declarer, bid=bid, turn=declarer)
    events.append(public("auction_won", declarer=declarer, bid=bid.text))
    if bid.no_talon:
        if bid.is_misere:
            return start_play(state, replace(deal, contract=bid), events)
        return replace(state, phase=Phase.CONTRACT, deal=deal), events
    hands = list(deal.hands)
    hands[declarer] = sort_cards(hands[declarer] + deal.talon)
    deal = replace(deal, hands=tuple(hands), talon_open=True)
    events.append(public("talon", cards=card_texts(deal.talon)))
    return replace(state, phase=Phase.DISCARD, deal=deal), events
