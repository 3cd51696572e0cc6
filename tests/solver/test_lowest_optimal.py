"""RULES.md §10: the robot plays the optimal card of lowest rank; only equal ranks go by suit ♠ ♣ ♦ ♥."""

from __future__ import annotations

import random

from app.engine.cards import Card, parse_cards
from app.solver import Position, Solver, play_out, solve
from tests.solver.positions import random_position


def _rank_then_suit(cards: tuple[Card, ...]) -> Card:
    return min(cards, key=lambda c: (c.rank, c.suit))


def test_lowest_rank_first_then_suit(implementation: str) -> None:
    """The declarer leads and takes every trick whatever he leads: ♠K, ♦7 and ♥7 are all optimal.
    The lowest rank is a seven, and of the two sevens ♦ comes before ♥: ♦7 — not ♠K, the first by suit."""
    hands = (
        parse_cards(["sK", "d7", "h7"]),
        parse_cards(["c7", "c8", "c9"]),
        parse_cards(["cT", "cJ", "cQ"]),
    )
    position = Position(hands, None, False, 0, 0, ())
    (d7,) = parse_cards(["d7"])
    solution = solve(position, implementation=implementation)
    assert set(solution.best) == set(hands[0]) and solution.declarer_tricks == 3
    assert solution.lowest == d7
    assert Solver(implementation).lowest_optimal(position) == (d7, 3)
    assert play_out(position, implementation=implementation)[0] == (0, d7)


def test_the_robot_card_is_the_lowest_rank_among_the_optimal_on_random_positions(implementation: str) -> None:
    """On random endings with several optimal cards of different suits, the robot's card is the optimal
    card of lowest rank (ties by suit), including where the first optimal card by suit is another one."""
    rng = random.Random(31)
    differs = 0
    for _ in range(150 if implementation == "cython" else 40):
        position = random_position(rng, 4)
        best = solve(position, implementation=implementation).best
        expected = _rank_then_suit(best)
        differs += expected != min(best, key=lambda c: (c.suit, c.rank))
        assert Solver(implementation).lowest_optimal(position)[0] == expected
        assert solve(position, implementation=implementation).lowest == expected
    assert differs > 0
