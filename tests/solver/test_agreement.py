"""The compiled kernel and its pure-Python twin give identical answers and identical node counts.

RULES.md §10 defines one robot; the two kernels are one algorithm, so not only the values and optimal
cards but the search itself (node counts) must match on every position.
"""

from __future__ import annotations

import random

import pytest

from app.solver import KERNELS, Solver
from tests.solver.positions import random_position

pytestmark = pytest.mark.skipif(len(KERNELS) < 2, reason="the compiled kernel is not built here")


def test_kernels_agree_on_thousands_of_random_endings() -> None:
    """RULES.md §10: same value, optimal cards and node count from both kernels (1–7 tricks, mid-trick)."""
    rng = random.Random(4242)
    for i in range(2000):
        position = random_position(rng, 1 + i % 7)
        pure, compiled = Solver("python"), Solver("cython")
        a, b = pure.solve(position), compiled.solve(position)
        assert (a.declarer_tricks, a.best, a.nodes) == (b.declarer_tricks, b.best, b.nodes), (
            position.to_json()
        )


def test_kernels_agree_on_card_values_of_full_deals() -> None:
    """RULES.md §10: same value of every legal card at the start of 10-trick deals, node counts included."""
    rng = random.Random(77)
    for _ in range(12):
        position = random_position(rng, 10, mid_trick=False)
        pure, compiled = Solver("python"), Solver("cython")
        assert pure.analyse(position) == compiled.analyse(position), position.to_json()
        assert pure.nodes == compiled.nodes


def test_kernels_agree_through_a_warm_session() -> None:
    """RULES.md §8.4: finishing a deal card by card on one warm table gives the same play in both kernels."""
    rng = random.Random(5)
    for _ in range(3):
        position = random_position(rng, 8)
        sessions = (Solver("python"), Solver("cython"))
        while position.tricks_left:
            a, b = (s.solve(position) for s in sessions)
            assert (a.declarer_tricks, a.best, a.nodes) == (b.declarer_tricks, b.best, b.nodes)
            position, _ = position.play(a.lowest)


@pytest.mark.parametrize("limit", [1, 7, 64])
def test_a_full_table_is_emptied_alike_and_answers_stay_right(limit: int) -> None:
    """RULES.md §10: emptying a full table changes node counts, never values; both kernels empty it alike."""
    rng = random.Random(900 + limit)
    for i in range(150):
        position = random_position(rng, 2 + i % 6)
        small = [Solver(name, table_limit=limit) for name in ("python", "cython")]
        a, b = (s.solve(position) for s in small)
        assert (a.declarer_tricks, a.best, a.nodes) == (b.declarer_tricks, b.best, b.nodes), (
            position.to_json()
        )
        roomy = Solver("cython").solve(position)
        assert (a.declarer_tricks, a.best) == (roomy.declarer_tricks, roomy.best)


def test_one_session_across_contracts_and_misere_stays_right() -> None:
    """RULES.md §10: a session given positions of other trumps, modes and declarers answers each rightly."""
    rng = random.Random(515)
    pure, compiled = Solver("python"), Solver("cython")
    for i in range(200):
        position = random_position(rng, 2 + i % 5)
        a, b = pure.solve(position), compiled.solve(position)
        assert (a.declarer_tricks, a.best, a.nodes) == (b.declarer_tricks, b.best, b.nodes), (
            position.to_json()
        )
        fresh = Solver("cython").solve(position)
        assert (a.declarer_tricks, a.best) == (fresh.declarer_tricks, fresh.best)
