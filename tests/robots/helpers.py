"""Driving whole deals with robots (and the random bot) from the engine, as a table would."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from app.engine import (
    Action,
    Phase,
    TableState,
    apply,
    current_actor,
    legal_actions,
    new_table,
    shuffle_action,
    view,
)
from app.robots import Level, Robot

# Cheap enough for thousands of decisions in a test, yet every sampling path of `strong` (tiny budgets).
CHEAP = Level("cheap", card_layouts=2, bid_layouts=2, discard_candidates=2, node_budget=20_000, noise=0.1)

Check = Callable[[TableState, int, Robot, Action], None]


def play_robot_deal(
    seats: int, rng: random.Random, robots: dict[int, Robot], series: int = 0, check: Check | None = None
) -> TableState:
    """Deal a random deck and let ``robots`` play it; ``check`` sees each robot decision before it applies."""
    state = replace(new_table(seats, first_dealer=rng.randrange(seats)), allpass_series=series)
    state, _ = apply(state, shuffle_action(rng))
    step = 0
    while state.phase is not Phase.DEAL_OVER:
        seat = current_actor(state)
        assert seat is not None
        step += 1
        action = robots[seat].act(view(state, seat), legal_actions(state), rng.randrange(1 << 30))
        if check is not None:
            check(state, seat, robots[seat], action)
        state, _ = apply(state, action)
    return state
