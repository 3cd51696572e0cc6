"""A game is its action log: replaying the log rebuilds the LIVE state, after every single action.

Replays are compared with the state the table reached by applying each action as it came (never one replay
with another), from the first shuffle to the last card, whole log and JSON log alike; a replay that lost
or repeated an action, the last one included, differs from the live state.
"""

from __future__ import annotations

import json
import random

import pytest

from app.engine import (
    Conventions,
    Phase,
    apply,
    conventions_from,
    legal_actions,
    log_to_json,
    new_table,
    replay,
    replay_json,
    shuffle_action,
)
from app.engine.actions import Action


@pytest.mark.parametrize(("seats", "seed"), [(3, 11), (4, 12), (3, 13)])
def test_replay_of_the_log_so_far_is_the_live_state_after_every_action(seats: int, seed: int) -> None:
    rng = random.Random(seed)
    conventions: Conventions = conventions_from("fspr-leningrad")
    first_dealer = rng.randrange(seats)
    live = new_table(seats, conventions, first_dealer)
    log: list[Action] = []
    kinds = set()
    while live.deal_number < 4 or live.phase not in (Phase.DEAL_OVER, Phase.INTERRUPTED):
        if live.phase in (Phase.AWAITING_DEAL, Phase.DEAL_OVER):
            action: Action = shuffle_action(rng)
        else:
            actions = legal_actions(live)
            passes = [a for a in actions if a.type == "pass"]
            action = passes[0] if passes and rng.random() < 0.5 else rng.choice(actions)
        live, _ = apply(live, action)
        log.append(action)
        kinds.add(type(action).__name__)
        assert replay(log, seats, conventions, first_dealer) == live, f"after action {len(log)}: {action}"
        data = json.loads(json.dumps(log_to_json(log, seats, conventions, first_dealer)))
        assert replay_json(data) == live, f"JSON log, after action {len(log)}"
    assert {"Shuffle", "PassBid", "PlayCard"} <= kinds
