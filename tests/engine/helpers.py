"""Building specific deals and driving them with readable scripts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app.engine import (
    DECK,
    Action,
    Bid,
    CallWhist,
    Card,
    DealResult,
    DealState,
    Discard,
    MakeBid,
    PassBid,
    PlayCard,
    Shuffle,
    TableState,
    WhistCall,
    apply,
    conventions_from,
    legal_actions,
    new_table,
)
from app.engine.cards import parse_cards


def active_order(seats: int, dealer: int) -> list[int]:
    if seats == 3:
        return [(dealer + 1) % 3, (dealer + 2) % 3, dealer]
    return [(dealer + k) % 4 for k in (1, 2, 3)]


def deck_for(seats: int, dealer: int, hands: dict[int, str], talon: str | None = None) -> tuple[Card, ...]:
    """A deck dealing ``hands`` (space-separated cards per seat) and ``talon``; the rest filled in order."""
    given = {seat: list(parse_cards(text.split())) for seat, text in hands.items()}
    talon_cards = list(parse_cards(talon.split())) if talon else []
    used = {c for cards in given.values() for c in cards} | set(talon_cards)
    spare = [c for c in DECK if c not in used]
    deck: list[Card] = []
    for seat in active_order(seats, dealer):
        cards = given.get(seat, [])
        while len(cards) < 10:
            cards.append(spare.pop(0))
        deck += cards
    while len(talon_cards) < 2:
        talon_cards.append(spare.pop(0))
    deck += talon_cards
    assert len(set(deck)) == 32
    return tuple(deck)


def start(
    seats: int = 3,
    dealer: int = 0,
    hands: dict[int, str] | None = None,
    talon: str | None = None,
    series: int = 0,
    **overrides: Any,
) -> TableState:
    """A table with the given deal dealt (dealer ``dealer``), optionally inside an all-pass series."""
    table = new_table(seats, conventions_from("fspr-leningrad", overrides), first_dealer=dealer)
    table = replace(table, allpass_series=series)
    table, _ = apply(table, Shuffle(deck_for(seats, dealer, hands or {}, talon)))
    return table


def run(state: TableState, *actions: Action) -> TableState:
    for action in actions:
        state, _ = apply(state, action)
    return state


def bid(seat: int, text: str) -> MakeBid:
    return MakeBid(seat, Bid.parse(text))


def pas(seat: int) -> PassBid:
    return PassBid(seat)


def whist(seat: int, call: str) -> CallWhist:
    return CallWhist(seat, WhistCall(call))


def play(seat: int, card: str) -> PlayCard:
    return PlayCard(seat, Card.parse(card))


def discard(seat: int, cards: str) -> Discard:
    """The discard of the two cards named, e.g. ``discard(1, "s9 s8")``."""
    first, second = parse_cards(cards.split())
    return Discard(seat, (first, second))


def discard_first_two(state: TableState, seat: int) -> Discard:
    """The discard of the first two cards of ``seat``'s hand, whatever they are."""
    hand = deal_of(state).hands[seat]
    return Discard(seat, (hand[0], hand[1]))


def deal_of(state: TableState) -> DealState:
    """The deal at the table; a test that expects one fails here when there is none."""
    assert state.deal is not None, f"no deal at the table ({state.phase.value})"
    return state.deal


def result_of(state: TableState) -> DealResult:
    """The result of the deal that just ended."""
    assert state.last_result is not None, f"no deal has ended ({state.phase.value})"
    return state.last_result


def legal_types(state: TableState) -> set[str]:
    return {a.type for a in legal_actions(state)}


def legal_bids(state: TableState) -> list[str]:
    return [a.bid.text for a in legal_actions(state) if isinstance(a, MakeBid)]


def legal_calls(state: TableState) -> set[str]:
    return {a.call.value for a in legal_actions(state) if isinstance(a, CallWhist)}


def legal_cards(state: TableState) -> set[str]:
    return {a.card.text for a in legal_actions(state) if isinstance(a, PlayCard)}
