"""A game is its action log: rebuild any state from it, and carry states and logs as JSON."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.engine.actions import Action, action_from_json
from app.engine.codec import decode, encode
from app.engine.conventions import Conventions
from app.engine.machine import apply
from app.engine.state import TableState, new_table


def replay(
    log: Iterable[Action], seats: int, conventions: Conventions | None = None, first_dealer: int = 0
) -> TableState:
    state = new_table(seats, conventions, first_dealer)
    for action in log:
        state, _ = apply(state, action)
    return state


def state_to_json(state: TableState) -> dict[str, Any]:
    data: dict[str, Any] = encode(state)
    return data


def state_from_json(data: dict[str, Any]) -> TableState:
    state: TableState = decode(TableState, data)
    return state


def log_to_json(
    log: Iterable[Action], seats: int, conventions: Conventions, first_dealer: int
) -> dict[str, Any]:
    return {
        "seats": seats,
        "first_dealer": first_dealer,
        "conventions": conventions.model_dump(mode="json"),
        "actions": [a.to_json() for a in log],
    }


def replay_json(data: dict[str, Any]) -> TableState:
    """Replay a log file: ``{"seats", "first_dealer", "conventions", "actions": [...]}``."""
    conventions = Conventions.model_validate(data.get("conventions", {}))
    actions = [action_from_json(a) for a in data["actions"]]
    return replay(actions, int(data["seats"]), conventions, int(data.get("first_dealer", 0)))
