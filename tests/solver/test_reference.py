"""Both kernels agree with a plain exhaustive minimax (tests/solver/reference.py) on random endings.

RULES.md §10: the value is the declarer's tricks from here, the current trick included, under optimal play
by all sides; every legal card's value is checked, so the optimal cards are checked too.
"""

from __future__ import annotations

import functools
import random

import pytest

from app.solver import Position, analyse, solve
from tests.solver.positions import random_position
from tests.solver.reference import TreeTooLarge, card_values


def _reference(position: Position, leaf_limit: int | None = None) -> dict[str, int]:
    values = card_values(
        position.hands,
        trump=position.trump,
        misere=position.misere,
        declarer=position.declarer,
        leader=position.leader,
        trick=position.trick,
        leaf_limit=leaf_limit,
    )
    return {c.text: v for c, v in values.items()}


def _check(position: Position, expected: dict[str, int], implementation: str) -> None:
    got = {c.text: v for c, v in analyse(position, implementation=implementation).items()}
    assert got == expected, position.to_json()
    maximise = (position.mover == position.declarer) != position.misere
    value = max(expected.values()) if maximise else min(expected.values())
    solution = solve(position, implementation=implementation)
    assert solution.declarer_tricks == value, position.to_json()
    assert sorted(c.text for c in solution.best) == sorted(c for c, v in expected.items() if v == value)


@pytest.mark.parametrize("tricks", [1, 2, 3, 4])
def test_values_match_exhaustive_minimax_on_short_endings(implementation: str, tricks: int) -> None:
    """RULES.md §10: card values equal plain minimax on 1–4 trick endings, mid-trick ones included."""
    rng = random.Random(1000 + tricks)
    for _ in range(150):
        position = random_position(rng, tricks)
        _check(position, _reference(position), implementation)


def test_values_match_exhaustive_minimax_on_five_trick_endings(implementation: str) -> None:
    """RULES.md §10: card values equal plain minimax on 5-trick endings (trumps, no-trump, misère)."""
    rng = random.Random(2005)
    for _ in range(12):
        position = random_position(rng, 5)
        _check(position, _reference(position), implementation)


@functools.cache
def _six_trick_cases() -> list[tuple[Position, dict[str, int]]]:
    rng = random.Random(2006)
    cases: list[tuple[Position, dict[str, int]]] = []
    while len(cases) < 4:
        position = random_position(rng, 6)
        try:
            cases.append((position, _reference(position, leaf_limit=60_000)))
        except TreeTooLarge:
            continue
    return cases


def test_values_match_exhaustive_minimax_on_six_trick_endings(implementation: str) -> None:
    """RULES.md §10: card values equal plain minimax on 6-trick endings.

    The full game tree of a 6-trick ending can have hundreds of millions of leaves; positions whose tree
    is over the leaf limit are skipped (deterministically, by seed) to keep the suite fast.
    """
    for position, expected in _six_trick_cases():
        _check(position, expected, implementation)
