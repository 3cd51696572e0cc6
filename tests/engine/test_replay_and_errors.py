"""Replay from the action log, JSON round trips, typed errors (issue 2, items 3–4)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from app.engine import (
    Action,
    Conventions,
    GameOver,
    IllegalAction,
    Interrupt,
    MalformedAction,
    NotYourTurn,
    Phase,
    action_from_json,
    apply,
    legal_actions,
    log_to_json,
    new_table,
    replay,
    replay_json,
    shuffle_action,
    state_from_json,
    state_to_json,
)
from app.engine.__main__ import main

from .helpers import bid, play, run, start


def _played_log(seed: int, deals: int = 3, seats: int = 4) -> list[Action]:
    rng = random.Random(seed)
    state = new_table(seats)
    log: list[Action] = []
    for _ in range(deals):
        action: Action = shuffle_action(rng)
        while True:
            log.append(action)
            state, _ = apply(state, action)
            if state.phase is Phase.DEAL_OVER:
                break
            action = rng.choice(legal_actions(state))
    return log


def test_replay_rebuilds_the_state_exactly() -> None:
    log = _played_log(7)
    live = replay(log, 4)
    assert replay(log, 4) == live and live.deal_number == 3


def test_state_and_log_round_trip_through_json() -> None:
    log = _played_log(8, deals=2, seats=3)
    state = replay(log[:-5], 3)
    assert state_from_json(json.loads(json.dumps(state_to_json(state)))) == state
    data = json.loads(json.dumps(log_to_json(log, 3, Conventions(), 0)))
    assert [action_from_json(a) for a in data["actions"]] == log
    assert replay_json(data) == replay(log, 3)


@pytest.mark.parametrize(
    "frame",
    [
        [],
        {"type": "fly"},
        {"type": "bid", "seat": 1, "bid": "11s"},
        {"type": "bid", "seat": "1", "bid": "6s"},
        {"type": "play", "seat": 1, "card": "zz"},
        {"type": "discard", "seat": 1, "cards": ["sA"]},
        {"type": "shuffle", "deck": ["sA"] * 32},
        {"type": "whist", "seat": 1, "call": "maybe"},
    ],
)
def test_malformed_actions_are_rejected_with_a_typed_error(frame: object) -> None:
    with pytest.raises(MalformedAction):
        action_from_json(frame)


def test_rejected_actions_leave_the_state_unchanged() -> None:
    state = start()
    before = state_to_json(state)
    with pytest.raises(NotYourTurn):
        apply(state, bid(0, "6s"))
    with pytest.raises(IllegalAction, match="expected one of"):
        apply(state, bid(1, "7h"))
    with pytest.raises(IllegalAction):
        apply(state, play(1, "sA"))
    assert state_to_json(state) == before


def test_interrupted_deal_accepts_nothing_more() -> None:
    """§8.4: an interrupted deal awaits adjudication."""
    state = run(start(), Interrupt("declarer timed out before naming the contract"))
    assert state.phase is Phase.INTERRUPTED
    with pytest.raises(GameOver):
        apply(state, bid(1, "6s"))


def test_command_line_random_and_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["random", "--seats", "3", "--deals", "30", "--seed", "3"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["deals"] == 30 and stats["errors"] == 0
    log = _played_log(9, deals=1, seats=3)
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log_to_json(log, 3, Conventions(), 0)))
    assert main(["replay", str(path)]) == 0
    final = json.loads(capsys.readouterr().out)
    assert final["phase"] == "deal_over" and final["deal_number"] == 1
    path.write_text(json.dumps({"seats": 3, "actions": [{"type": "bid", "seat": 1, "bid": "6s"}]}))
    assert main(["replay", str(path)]) == 2
