"""The robots and claims (RULES.md §4.10): answers agree with the solver's verdict; strong robots claim
what they can prove, from their own views only (§12)."""

from __future__ import annotations

import pytest

from app.autoplay.claims import judge_claim
from app.engine import AnswerClaim, Claim, PlayCard, PlayMode, apply, legal_actions, view
from app.engine.cards import parse_cards
from app.engine.claims import claim_options
from app.robots import Robot, decide
from tests.table.claim_deals import (
    CLEAN_MISERE,
    LOSING_MISERE,
    MINUTES,
    NINE_TRICKS,
    TEN_TRICKS,
    bid_misere,
    follow_to_declarer,
    play_to_claim,
)
from tests.table.helpers import Table


def _answer(table: Table, seat: int, level: str = "normal") -> AnswerClaim:
    state = table.game.state
    action = decide(view(state, seat), legal_actions(state), 1, level)
    assert isinstance(action, AnswerClaim) and action.seat == seat
    return action


def _verdict_stands(table: Table, answerer: int) -> bool:
    rejected, _ = apply(table.game.state, AnswerClaim(answerer, False))
    return judge_claim(rejected).verdict == "stands"


@pytest.mark.parametrize("mode", [PlayMode.CLOSED, PlayMode.OPEN])
@pytest.mark.parametrize("tricks", [7, 8, 9])
def test_a_whisting_robot_accepts_exactly_when_the_solver_upholds_it(mode: PlayMode, tricks: int) -> None:
    """The closed whister sees his hand and the declarer's; the talon went to the discard; the rest is
    his partner's: one layout, so his answer is the verdict itself."""
    table = Table.start(NINE_TRICKS, **MINUTES)
    play_to_claim(table, mode=mode)
    table.act(Claim(1, tricks))
    answer = _answer(table, 2)
    assert answer.accept == _verdict_stands(table, 2)
    assert answer.accept == (tricks <= 8)


@pytest.mark.parametrize("hand", [CLEAN_MISERE, LOSING_MISERE])
def test_catching_robots_answer_a_misere_claim_as_the_solver_would(hand: object) -> None:
    table = Table.start(hand, **MINUTES)  # type: ignore[arg-type]
    bid_misere(table)
    table.act(Claim(1, 0))
    first = _answer(table, 2)
    assert first.accept == _verdict_stands(table, 2) == (hand is CLEAN_MISERE)


def test_a_strong_declarer_claims_the_rest_when_he_sees_it_is_his() -> None:
    table = Table.start(TEN_TRICKS, **MINUTES)
    play_to_claim(table, mode=PlayMode.OPEN)
    state = table.game.state
    action = decide(view(state, 1), legal_actions(state), 1, "strong")
    assert action == Claim(1, 9)
    assert decide(view(state, 1), legal_actions(state), 1, "normal") != action  # only strong claims


def test_a_strong_declarer_does_not_claim_what_he_cannot_prove() -> None:
    table = Table.start(NINE_TRICKS, **MINUTES)
    play_to_claim(table, mode=PlayMode.OPEN)
    state = table.game.state
    assert claim_options(state)
    action = decide(view(state, 1), legal_actions(state), 1, "strong")
    assert not isinstance(action, Claim)


def test_a_strong_declarer_against_closed_hands_claims_once_few_layouts_are_left() -> None:
    """Closed whist: early on the defenders' hidden cards allow too many layouts to prove anything; with
    three tricks left every layout is solved and the rest is proven his. The robot remembers the tricks
    it saw, as at a server table (it sees every view of its seat)."""
    table = Table.start(TEN_TRICKS, **MINUTES)
    robot = Robot("strong")
    play_to_claim(table)
    state = table.game.state
    assert not isinstance(robot.act(view(state, 1), legal_actions(state), 1), Claim)
    for card in ("sK", "sQ", "sJ", "sT", "s9", "s8"):
        table.act(PlayCard(1, parse_cards([card])[0]))
        follow_to_declarer(table)  # the trick is complete: its view shows it as the last trick
        robot.observe(view(table.game.state, 1))
    state = table.game.state
    assert claim_options(state)[-1] == 3
    assert robot.act(view(state, 1), legal_actions(state), 1) == Claim(1, 3)
