"""Issue 12: every robot decision is legal, over many random deals at 3 and 4 seats, in every phase."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from app.engine import Action, TableState, legal_actions
from app.robots import Level, Robot
from tests.robots.helpers import CHEAP, play_robot_deal

DEALS_PER_RUN = 250


@pytest.mark.parametrize(("seats", "seed"), [(3, 1), (3, 2), (4, 1), (4, 2)])
def test_every_robot_action_is_legal(seats: int, seed: int) -> None:
    rng = random.Random(seed)
    decided: Counter[str] = Counter()

    def check(state: TableState, seat: int, robot: Robot, action: Action) -> None:
        assert action in legal_actions(state), (
            f"{robot.level.name} at seat {seat} chose {action} in {state.phase}"
        )
        if robot.level.name != "random":
            decided[f"{state.phase.value}:{action.type}"] += 1

    for deal in range(DEALS_PER_RUN):
        # Mixed tables: random bots drive the auction into rare corners (no-talon games, misère-nt,
        # invitations, high contracts) that robots alone seldom reach; series vary for zastrel and 7♠.
        levels: list[str | Level] = ["easy", CHEAP, "random", "easy"]
        robots = {s: Robot(levels[(deal + s) % 4]) for s in range(seats)}
        play_robot_deal(seats, rng, robots, series=deal % 3, check=check)
    for needed in ("bidding:bid", "bidding:pass", "discard:discard", "contract:contract", "whisting:whist",
                   "play_mode:play_mode", "play:play"):  # fmt: skip
        assert decided[needed] > 0, f"no robot decision of kind {needed} in {DEALS_PER_RUN} deals: {decided}"
    if seats == 4:
        assert decided["dealer_invitation:answer_invitation"] > 0
