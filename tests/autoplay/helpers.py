"""Building tables in chosen situations, and a driver that plays live seats and the timeout procedure."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from app.autoplay import TimeoutOutcome, timeout_actions
from app.autoplay.procedure import Robot
from app.engine import (
    Action,
    Bid,
    Card,
    Conventions,
    Phase,
    TableState,
    apply,
    conventions_from,
    current_actor,
    legal_actions,
    new_table,
    shuffle_action,
)
from app.engine.scoring import ScoreSheet


def conventions(reserve_on: bool = True, **overrides: object) -> Conventions:
    return conventions_from(overrides=overrides | ({} if reserve_on else {"reserve_time": 0}))


def dealt(seats: int = 3, seed: int = 1, reserve_on: bool = True, **overrides: object) -> TableState:
    """A fresh table with its first deal dealt; seat 0 deals, so first hand is seat 1."""
    state = new_table(seats, conventions(reserve_on, **overrides), first_dealer=0)
    state, _ = apply(state, shuffle_action(random.Random(seed)))
    return state


def play(state: TableState, *actions: Action) -> TableState:
    for action in actions:
        state, _ = apply(state, action)
    return state


def bid(text: str) -> Bid:
    return Bid.parse(text)


class NoRobot:
    """The robots must not be needed in this situation."""

    def play(self, state: TableState) -> Card:
        raise AssertionError("the solver robot was asked to play")

    def misere_discard(self, state: TableState) -> tuple[Card, Card]:
        raise AssertionError("the misère discard robot was asked to discard")


def next_deal(state: TableState, seed: int = 2) -> TableState:
    state, _ = apply(state, shuffle_action(random.Random(seed)))
    return state


def first_legal(state: TableState) -> Action:
    return legal_actions(state)[0]


def drive(
    state: TableState,
    flagged: Iterable[int],
    *,
    reserve_on: bool,
    robot: Robot,
    live: Callable[[TableState], Action] = first_legal,
) -> tuple[TableState, list[TimeoutOutcome]]:
    """Play to the end of the deal: live seats by ``live``, seats out of time by the timeout procedure."""
    out = frozenset(flagged)
    outcomes = []
    while (actor := current_actor(state)) is not None:
        if actor in out:
            outcome = timeout_actions(state, actor, reserve_on=reserve_on, robot=robot, flagged=out)
            outcomes.append(outcome)
            state = outcome.state
        else:
            state, _ = apply(state, live(state))
    assert state.phase in (Phase.DEAL_OVER, Phase.INTERRUPTED)
    return state, outcomes


def sheet_for(state: TableState) -> ScoreSheet:
    return ScoreSheet.new(state.seats, state.conventions)
