"""Seeded random positions for the solver tests: endings of n tricks, optionally mid-trick."""

from __future__ import annotations

import random

from app.engine.cards import DECK, Card, Suit
from app.solver import Position, legal_cards


def random_position(rng: random.Random, tricks: int, *, mid_trick: bool = True) -> Position:
    cards = list(DECK)
    rng.shuffle(cards)
    hands = [cards[i * tricks : (i + 1) * tricks] for i in range(3)]
    misere = rng.random() < 0.35
    trump = None if misere or rng.random() < 0.3 else Suit(rng.randrange(4))
    leader = rng.randrange(3)
    trick: list[Card] = []
    for k in range(rng.randrange(3) if mid_trick else 0):
        seat = (leader + k) % 3
        card = rng.choice(legal_cards(tuple(hands[seat]), tuple(trick), trump))
        hands[seat].remove(card)
        trick.append(card)
    return Position(
        (tuple(hands[0]), tuple(hands[1]), tuple(hands[2])),
        trump,
        misere,
        rng.randrange(3),
        leader,
        tuple(trick),
    )
