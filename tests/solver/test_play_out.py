"""The robot that finishes a deal (RULES.md §8.4): card by card, each side its lowest optimal card."""

from __future__ import annotations

import random

import pytest

from app.engine.cards import Card
from app.solver import Position, Solver, SolverBudgetExceeded, play_out, solve
from tests.solver.positions import random_position


def _declarer_tricks(position: Position, plays: list[tuple[int, Card]]) -> int:
    taken = 0
    for _, card in plays:
        position, taker = position.play(card)
        if taker == position.declarer:
            taken += 1
    return taken


def test_play_out_realises_the_solved_value(implementation: str) -> None:
    """§8.4 and §10: optimal play by all sides gives the declarer exactly the solved number of tricks."""
    rng = random.Random(31)
    for _ in range(8):
        position = random_position(rng, 6)
        plays = play_out(position, implementation=implementation)
        assert len(plays) == 3 * position.tricks_left - len(position.trick)
        assert (
            _declarer_tricks(position, plays)
            == solve(position, implementation=implementation).declarer_tricks
        )


def test_each_card_played_is_the_lowest_optimal_one(implementation: str) -> None:
    """§8.4: the robot plays the optimal card of lowest rank, ties broken by suit order."""
    position = random_position(random.Random(32), 5)
    for seat, card in play_out(position, implementation=implementation):
        assert seat == position.mover
        best = solve(position, implementation=implementation).best
        assert card == min(best, key=lambda c: (c.rank, c.suit))
        position, _ = position.play(card)


def test_lowest_optimal_matches_the_full_solution(implementation: str) -> None:
    """§8.4: the robot's shortcut (stop at the first optimal card) picks `Solution.lowest` with its value."""
    rng = random.Random(33)
    for i in range(300):
        position = random_position(rng, 1 + i % 6)
        solution = solve(position, implementation=implementation)
        card, value = Solver(implementation).lowest_optimal(position)
        assert (card, value) == (solution.lowest, solution.declarer_tricks), position.to_json()


def test_lowest_optimal_keeps_to_its_budget(implementation: str) -> None:
    """§8.4: the shortcut raises SolverBudgetExceeded like every other search."""
    position = random_position(random.Random(34), 10, mid_trick=False)
    with pytest.raises(SolverBudgetExceeded):
        Solver(implementation).lowest_optimal(position, node_budget=100)
