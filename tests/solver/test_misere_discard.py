"""The misère discard robot (RULES.md §8.4: a missing misère discard is made from the declarer's hand
only, "logically optimal" without seeing the other hands).

The robot's choices are checked on the best kernel (the pure one would take minutes for a whole
discard); the kernels' agreement is checked on discards cut short by a small node budget.
"""

from __future__ import annotations

import pytest

from app.engine.cards import parse_cards
from app.solver import KERNELS, InvalidPosition, misere_discard
from app.solver.misere import ROUNDS, choose_discard

PLAYABLE = parse_cards(["s7", "s8", "s9", "sT", "c7", "c8", "cT", "d7", "d9", "h7", "h9", "dA"])


def test_discards_the_two_dangerous_cards() -> None:
    """§8.4: with ten sure losers (7, 8, 9 of three suits and ♥7) the two aces go."""
    cards = parse_cards(["s7", "s8", "s9", "c7", "c8", "c9", "d7", "d8", "d9", "h7", "sA", "hA"])
    assert misere_discard(cards, seed=1) == tuple(parse_cards(["sA", "hA"]))


def test_a_singleton_high_card_is_shed_first() -> None:
    """§8.4: a lone ♦K can be caught by any diamond lead; the robot discards it (and the ♠A)."""
    cards = parse_cards(["s7", "s8", "s9", "sA", "c7", "c8", "c9", "dK", "h7", "h8", "h9", "hT"])
    discard = misere_discard(cards, seed=2, leader=1)
    assert parse_cards(["dK"])[0] in discard


def test_same_seed_same_discard() -> None:
    """§8.4: the robot is deterministic for a given seed."""
    cards = parse_cards(["s7", "s9", "sJ", "c8", "cT", "d7", "d9", "dQ", "h8", "hT", "hK", "cA"])
    first = misere_discard(cards, seed=7)
    assert all(misere_discard(cards, seed=7) == first for _ in range(2))
    assert first[0].index < first[1].index
    assert set(first) <= set(cards)


def test_the_whole_discard_is_bounded_by_its_node_budget() -> None:
    """The work is counted in nodes, never timed: a budget cut stops at the same node every time and
    picks from the rounds completed; a sufficient budget changes nothing."""
    full = choose_discard(PLAYABLE, seed=3, leader=1)
    assert full.rounds == len(ROUNDS) and full.nodes > 0
    assert choose_discard(PLAYABLE, seed=3, leader=1, node_budget=full.nodes) == full
    cut = choose_discard(PLAYABLE, seed=3, leader=1, node_budget=full.nodes // 3)
    assert cut.rounds < len(ROUNDS)
    assert full.nodes // 3 < cut.nodes <= full.nodes // 3 + 1
    assert choose_discard(PLAYABLE, seed=3, leader=1, node_budget=full.nodes // 3) == cut


@pytest.mark.skipif(len(KERNELS) < 2, reason="the compiled kernel is not built here")
@pytest.mark.parametrize("budget", [20_000, 150_000])
def test_kernels_agree_on_the_discard_node_for_node(budget: int) -> None:
    """Both kernels pick the same cards after the same nodes and rounds."""
    choices = {name: choose_discard(PLAYABLE, seed=5, leader=2, node_budget=budget, implementation=name)
               for name in ("python", "cython")}  # fmt: skip
    assert choices["python"] == choices["cython"]
    assert choices["python"].nodes > budget  # the budget, not the rounds, ended both


def test_needs_twelve_distinct_cards() -> None:
    """§8.4: the discard is made from the declarer's twelve cards (hand and talon): not fewer, and no card
    twice — neither twelve with a repeat (eleven distinct) nor thirteen that repeat one of twelve."""
    twelve = list(PLAYABLE)
    with pytest.raises(InvalidPosition):
        misere_discard(twelve[:2], seed=1)
    with pytest.raises(InvalidPosition, match="12 distinct"):
        misere_discard([*twelve[:11], twelve[0]], seed=1)
    with pytest.raises(InvalidPosition, match="12 distinct"):
        misere_discard([*twelve, twelve[5]], seed=1)
