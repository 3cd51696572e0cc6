"""A strong robot's decisions on hands whose right answer is not in doubt, and determinism for a seed."""

from __future__ import annotations

import pytest

from app.engine import MakeBid, PassBid, current_actor, legal_actions, view
from app.robots import LEVELS, RobotError, decide
from tests.engine.helpers import bid, pas, run, start


def _first_hand_decision(hand: str, seed: int = 1, level: str = "strong") -> object:
    state = start(3, dealer=0, hands={1: hand})  # seat 1 is first hand
    seat = current_actor(state)
    assert seat == 1
    return decide(view(state, seat), legal_actions(state), seed, level)


def test_a_hand_of_top_cards_bids() -> None:
    action = _first_hand_decision("sA sK sQ sJ sT s9 cA dA hA hK")
    assert isinstance(action, MakeBid) and not action.bid.is_misere


def test_a_clean_low_hand_bids_misere() -> None:
    action = _first_hand_decision("s7 s8 s9 c7 c8 c9 d7 d8 h7 h8")
    assert isinstance(action, MakeBid) and action.bid.is_misere


def test_a_middling_hand_passes() -> None:
    """No game in any strain (queens and jacks, no aces) and too many high cards for a misère."""
    assert isinstance(_first_hand_decision("sK sJ s9 cQ cT c8 dK d9 hQ hT"), PassBid)


# A borderline opening hand: whether the sampled layouts make 6♠ worth bidding depends on the seed.
BORDERLINE = "sA sK s9 s8 cA c8 d9 d8 h9 h7"


def test_the_same_seed_gives_the_same_decision() -> None:
    """A decision is a function of its seed: the seed picks the layouts the strong robot samples, so on a
    borderline hand different seeds bid differently, and each seed repeats its own decision."""
    by_seed = {seed: repr(_first_hand_decision(BORDERLINE, seed)) for seed in range(1, 7)}
    assert len(set(by_seed.values())) > 1, f"the seed changed no decision: {by_seed}"
    bidding = next(seed for seed, decision in by_seed.items() if decision.startswith("MakeBid"))
    passing = next(seed for seed, decision in by_seed.items() if decision.startswith("PassBid"))
    assert repr(_first_hand_decision(BORDERLINE, bidding)) == by_seed[bidding]
    assert repr(_first_hand_decision(BORDERLINE, passing)) == by_seed[passing]


def test_the_random_level_draws_from_the_seed() -> None:
    """The `random` level picks one of the 66 discards from its seed alone: each seed repeats its pick,
    and different seeds pick differently."""
    state = run(start(3, dealer=0), bid(1, "6s"), pas(2), pas(0))
    legal = legal_actions(state)
    picks = [decide(view(state, 1), legal, seed, "random") for seed in range(8)]
    assert len(legal) == 66 and len(set(picks)) > 1
    assert [decide(view(state, 1), legal, seed, "random") for seed in range(8)] == picks


def test_a_robot_refuses_to_act_for_a_seat_not_to_act() -> None:
    state = start(3, dealer=0)
    legal = legal_actions(state)  # seat 1's
    with pytest.raises(RobotError):
        decide(view(state, 2), legal, 1, "easy")
    with pytest.raises(RobotError):
        decide(view(state, 1), [], 1, "easy")


def test_a_lower_budget_keeps_the_level_and_its_solver_nodes() -> None:
    half = LEVELS["strong"].scaled(0.5)
    assert half.card_layouts == LEVELS["strong"].card_layouts // 2
    assert half.node_budget == LEVELS["strong"].node_budget and half.name == "strong"
    state = start(3, dealer=0, hands={1: "sA sK sQ sJ sT s9 cA dA hA hK"})
    assert isinstance(decide(view(state, 1), legal_actions(state), 3, half), MakeBid)
