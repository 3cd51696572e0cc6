"""The misère discard robot (RULES.md §8.4: a missing misère discard is made from the declarer's hand
only, "logically optimal" without seeing the other hands)."""

from __future__ import annotations

import pytest

from app.engine.cards import parse_cards
from app.solver import InvalidPosition, misere_discard


def test_discards_the_two_dangerous_cards(implementation: str) -> None:
    """§8.4: with ten sure losers (7, 8, 9 of three suits and ♥7) the two aces go."""
    cards = parse_cards(["s7", "s8", "s9", "c7", "c8", "c9", "d7", "d8", "d9", "h7", "sA", "hA"])
    budget = 3.0 if implementation == "python" else 1.0
    assert misere_discard(cards, seed=1, time_budget=budget, implementation=implementation) == tuple(
        parse_cards(["sA", "hA"])
    )


def test_a_singleton_high_card_is_shed_first(implementation: str) -> None:
    """§8.4: a lone ♦K can be caught by any diamond lead; the robot discards it (and the ♠A)."""
    cards = parse_cards(["s7", "s8", "s9", "sA", "c7", "c8", "c9", "dK", "h7", "h8", "h9", "hT"])
    budget = 3.0 if implementation == "python" else 1.0
    discard = misere_discard(cards, seed=2, leader=1, time_budget=budget, implementation=implementation)
    assert parse_cards(["dK"])[0] in discard


def test_same_seed_same_discard() -> None:
    """§8.4: the robot is deterministic for a given seed."""
    cards = parse_cards(["s7", "s9", "sJ", "c8", "cT", "d7", "d9", "dQ", "h8", "hT", "hK", "cA"])
    first = misere_discard(cards, seed=7)
    assert all(misere_discard(cards, seed=7) == first for _ in range(2))
    assert first[0].index < first[1].index
    assert set(first) <= set(cards)


def test_needs_twelve_distinct_cards() -> None:
    with pytest.raises(InvalidPosition):
        misere_discard(parse_cards(["s7", "s8"]), seed=1)
