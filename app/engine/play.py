"""Card play (RULES.md §4.7–§4.9, §6.1–§6.2, §10): following rules, trick winners, the play phase.

The first lead of a declarer in first hand is made "in the dark" (§4.9): before the defenders' hands are
opened and before a lone whister chooses open or closed. Everything about it is in the section
"the dark lead" below.
"""

from __future__ import annotations

from app.engine.cards import Card, card_texts
from app.engine.ending import deal_result, end_deal
from app.engine.events import Event, public
from app.engine.result import DealKind, PlayMode
from app.engine.state import TALON, DealState, Phase, TableState, defenders
from app.engine.state import evolve as replace


def legal_cards(hand: tuple[Card, ...], led: Card | None, trump: int | None) -> tuple[Card, ...]:
    """Follow suit; if void, trump if possible; else any card [K 3.9.3]."""
    if led is None:
        return hand
    suit = led.suit
    follow = tuple(c for c in hand if c.suit == suit)
    if follow:
        return follow
    if trump is not None:
        trumps = tuple(c for c in hand if c.suit == trump)
        if trumps:
            return trumps
    return hand


def trick_winner(trick: tuple[tuple[int, Card], ...], trump: int | None) -> int:
    """The hand (or TALON) whose card wins: highest trump, else highest card of the led suit."""
    best_hand, best = trick[0]
    for hand, card in trick[1:]:
        if card.suit == best.suit:
            if card.rank > best.rank:
                best_hand, best = hand, card
        elif trump is not None and card.suit == trump and best.suit != trump:
            best_hand, best = hand, card
    return best_hand


def turn_cards(deal: DealState) -> tuple[Card, ...]:
    assert deal.turn is not None
    led = deal.trick[0][1] if deal.trick else None
    return legal_cards(deal.hands[deal.turn], led, deal.trump)


def talon_in_play(state: TableState) -> bool:
    return state.seats == 4 or state.conventions.allpass_talon_at_three


def start_allpass(state: TableState, deal: DealState, events: list[Event]) -> tuple[TableState, list[Event]]:
    if deal.timed_out:  # §8.4: an all-pass after a timed-out auction is not played
        return end_deal(state, deal, deal_result(state, deal, DealKind.VOID), events)
    deal = replace(deal, allpass=True, trump=None, turn=deal.first_hand)
    events.append(public("allpass", series_step=state.allpass_series + 1))
    if talon_in_play(state):
        deal, led = _lead_talon(deal, 0)
        events.append(led)
    return replace(state, phase=Phase.PLAY, deal=deal), events


def _lead_talon(deal: DealState, index: int) -> tuple[DealState, Event]:
    """§6.2: the talon card is the lead of all-pass tricks 1 and 2."""
    card = deal.talon[index]
    return replace(deal, trick=((TALON, card),)), public("card", hand=TALON, card=card.text)


def next_hand(deal: DealState, hand: int) -> int:
    active = deal.active
    if hand == TALON:
        return deal.first_hand
    return active[(active.index(hand) + 1) % len(active)]


def start_play(state: TableState, deal: DealState, events: list[Event]) -> tuple[TableState, list[Event]]:
    contract = deal.contract
    assert contract is not None
    deal = replace(deal, trump=None if contract.trump is None else int(contract.trump), turn=deal.first_hand)
    deal, opened = open_defenders(deal, defenders_lie_open(deal) and not leads_in_the_dark(deal))
    return replace(state, phase=Phase.PLAY, deal=deal), events + opened


def defenders_lie_open(deal: DealState) -> bool:
    """Open whist (chosen, or the dealer's) and misère both show the defenders' hands (§4.7, §4.8, §12)."""
    return deal.mode is PlayMode.OPEN or (deal.contract is not None and deal.contract.is_misere)


def open_defenders(deal: DealState, condition: bool) -> tuple[DealState, list[Event]]:
    if not condition or deal.open_hands:
        return deal, []
    pair = defenders(deal)
    event = public("hands_open", hands={str(h): card_texts(deal.hands[h]) for h in pair})
    return replace(deal, open_hands=frozenset(pair)), [event]


def play_card(state: TableState, deal: DealState, card: Card) -> tuple[TableState, list[Event]]:
    hand = deal.turn
    assert hand is not None
    hands = list(deal.hands)
    hands[hand] = tuple(c for c in hands[hand] if c is not card)
    trick = (*deal.trick, (hand, card))
    deal = replace(deal, hands=tuple(hands), trick=trick)
    events = [public("card", hand=hand, card=card.text)]
    size = len(deal.active) + (1 if trick[0][0] == TALON else 0)
    if len(trick) < size:
        if not deal.tricks and len(trick) == 1 and hand == deal.declarer:
            return _after_first_lead(state, deal, events)
        return replace(state, deal=replace(deal, turn=next_hand(deal, hand))), events
    return _finish_trick(state, deal, events)


def _finish_trick(state: TableState, deal: DealState, events: list[Event]) -> tuple[TableState, list[Event]]:
    winner = trick_winner(deal.trick, deal.trump)
    taken = list(deal.taken)
    talon_taken = deal.talon_taken
    if winner == TALON:
        talon_taken += 1
    else:
        taken[winner] += 1
    done = len(deal.tricks) + 1
    deal = replace(deal, tricks=(*deal.tricks, deal.trick), winners=(*deal.winners, winner), trick=(),
                   last_trick=deal.trick, taken=tuple(taken), talon_taken=talon_taken)  # fmt: skip
    events.append(public("trick", number=done, winner=winner))
    if done == 10:
        kind = DealKind.ALLPASS if deal.allpass else DealKind.MISERE if _is_misere(deal) else DealKind.GAME
        return end_deal(state, replace(deal, turn=None), deal_result(state, deal, kind), events)
    if deal.allpass and done == 1 and talon_in_play(state):
        deal, led = _lead_talon(deal, 1)
        events.append(led)
        return replace(state, deal=replace(deal, turn=deal.first_hand)), events
    leader = deal.first_hand if deal.allpass and done == 2 and talon_in_play(state) else winner
    return replace(state, deal=replace(deal, turn=leader)), events


def _is_misere(deal: DealState) -> bool:
    return deal.contract is not None and deal.contract.is_misere


# ----------------------------------------------------------------------------- §4.9: the dark lead
# A declarer in first hand leads before the defenders' hands are opened (§12) and before a lone whister
# chooses open or closed: the whisting ends straight into play (`leads_in_the_dark`), the opening of
# the hands waits for that lead (`start_play`), and the choice comes right after it (`_after_first_lead`,
# `resume_after_choice`).


def leads_in_the_dark(deal: DealState) -> bool:
    """The declarer is first hand: his first lead comes before open hands and the whister's choice."""
    return deal.declarer == deal.first_hand


def _after_first_lead(
    state: TableState, deal: DealState, events: list[Event]
) -> tuple[TableState, list[Event]]:
    """The declarer's first lead is on the table: a lone whister now chooses; open hands are now shown."""
    if deal.mode_chooser is not None:
        return replace(state, phase=Phase.PLAY_MODE, deal=replace(deal, turn=None)), events
    deal = replace(deal, turn=next_hand(deal, deal.trick[-1][0]))
    deal, opened = open_defenders(deal, defenders_lie_open(deal))
    return replace(state, deal=deal), events + opened


def resume_after_choice(
    state: TableState, deal: DealState, events: list[Event]
) -> tuple[TableState, list[Event]] | None:
    """After the lone whister's choice: play goes on after a dark lead (None: play has not started)."""
    if not deal.trick:
        return None
    deal = replace(deal, turn=next_hand(deal, deal.trick[-1][0]))
    deal, opened = open_defenders(deal, deal.mode is PlayMode.OPEN)
    return replace(state, phase=Phase.PLAY, deal=deal), events + opened
