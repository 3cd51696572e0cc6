"""Random legal play, for property tests, benchmarks and the `random` command."""

from __future__ import annotations

import random
from collections.abc import Iterator

from app.engine.actions import Action, shuffle_action
from app.engine.conventions import Conventions
from app.engine.machine import apply, legal_actions
from app.engine.result import DealResult
from app.engine.state import Phase, TableState, new_table


def play_deal(state: TableState, rng: random.Random, log: list[Action] | None = None) -> TableState:
    """Deal and play one deal with uniformly random legal actions; return the DEAL_OVER state."""
    action: Action = shuffle_action(rng)
    while True:
        if log is not None:
            log.append(action)
        state, _ = apply(state, action)
        if state.phase is Phase.DEAL_OVER:
            return state
        action = rng.choice(legal_actions(state))


def random_deals(
    seats: int, count: int, seed: int, conventions: Conventions | None = None
) -> Iterator[DealResult]:
    """``count`` consecutive random deals of one table (dealer rotating, all-pass series carried)."""
    rng = random.Random(seed)
    state = new_table(seats, conventions, first_dealer=rng.randrange(seats))
    for _ in range(count):
        state = play_deal(state, rng)
        assert state.last_result is not None
        yield state.last_result
