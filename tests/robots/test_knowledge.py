"""What a robot knows from its view: played cards, voids shown by play, the shown talon, remembered tricks;
and the layouts it samples respect all of it."""

from __future__ import annotations

import random
from dataclasses import replace

from app.engine import Bid, Card, NameContract, Suit, TableState, apply, view
from app.engine.actions import Discard
from app.engine.cards import parse_cards
from app.robots.knowledge import DEAD, read, remember
from app.robots.layouts import layouts
from tests.engine.helpers import bid, pas, play, run, start, whist

# Dealer 0: seat 1 is first hand and declares 6♠; seat 2 holds no clubs and no spades.
HANDS = {
    1: "sA sK sQ sJ sT s9 cA cK dA hA",
    2: "h7 h8 h9 hT hJ hQ hK d7 d8 d9",
    0: "c7 c8 c9 cT cJ cQ dT dJ dQ dK",
}
TALON = "s7 s8"


def _to_second_trick() -> tuple[TableState, TableState]:
    """(the state after trick 1, the state with seat 0 to play to trick 2)."""
    state = start(3, dealer=0, hands=HANDS, talon=TALON)
    state = run(state, bid(1, "6s"), pas(2), pas(0))
    state, _ = apply(state, Discard(1, (Card.parse("s7"), Card.parse("s8"))))
    state = run(state, NameContract(1, Bid.parse("6s")), whist(2, "whist"), whist(0, "whist"))
    state = run(state, play(1, "cA"), play(2, "h7"), play(0, "c7"))
    after_first = state
    state = run(state, play(1, "cK"), play(2, "h8"))
    return after_first, state


def test_a_renounce_shows_a_void_in_the_led_suit_and_in_trumps() -> None:
    first, second = _to_second_trick()
    know = read(view(second, 0), remember(None, view(first, 0)))
    assert know.voids[2] == {Suit.CLUBS, Suit.SPADES}  # h7 on a club lead, not a trump: no clubs, no spades
    assert set(parse_cards(["cA", "h7", "c7", "cK", "h8"])) == know.played
    assert know.slots == {1: 8, 2: 8, DEAD: 2}


def test_the_shown_talon_stays_with_the_declarer_or_his_discard() -> None:
    _, second = _to_second_trick()
    know = read(view(second, 0))
    for text in TALON.split():
        assert know.allowed[Card.parse(text)] == {1, DEAD}


def test_sampled_layouts_respect_sizes_voids_and_talon() -> None:
    first, second = _to_second_trick()
    know = read(view(second, 0), remember(None, view(first, 0)))
    for layout in layouts(know, 200, random.Random(3)):
        assert {s: len(cs) for s, cs in layout.items()} == {1: 8, 2: 8, DEAD: 2}
        assert not any(c.suit in (Suit.CLUBS, Suit.SPADES) for c in layout[2])
        dealt = [c for cs in layout.values() for c in cs]
        assert sorted(dealt, key=lambda c: c.index) == sorted(know.pool, key=lambda c: c.index)


def test_without_memory_unwitnessed_tricks_go_to_the_unseen_slot() -> None:
    """A seat that missed trick 1 still accounts for every card: its cards may lie anywhere unseen."""
    _, second = _to_second_trick()
    later = run(second, play(0, "c8"), play(1, "sA"), play(2, "h9"))  # trick 3 under way: trick 1 is gone
    forgetful = read(view(later, 0))
    remembering = read(view(later, 0), remember(remember(None, view(second, 0)), view(later, 0)))
    assert Card.parse("cA") not in forgetful.played and Card.parse("cA") in forgetful.pool
    assert Card.parse("cA") in remembering.played
    assert forgetful.slots[DEAD] == remembering.slots[DEAD] + 3


def test_memory_starts_afresh_each_deal() -> None:
    first, _ = _to_second_trick()
    memory = remember(None, view(first, 0))
    assert memory.tricks
    next_deal = replace(start(3, dealer=1), deal_number=first.deal_number + 1)
    fresh = remember(memory, view(next_deal, 0))
    assert fresh.deal_number == next_deal.deal_number
    assert fresh.tricks == ()
