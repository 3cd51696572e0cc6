"""`abort`: a fault in the table's own step ends the game, typed (`Termination.FAULT`), the fault in the note
(issue 13 §7). Mid-deal it is an early end like §7.7's stop: the deal is archived for an administrator and
the sheet settled as it stands; if even that fails, the game ends without a settlement."""

from __future__ import annotations

import importlib
import random

import pytest

from app.engine import Interrupt, Phase, conventions_from, shuffle_action
from app.table import Game, ServerMoves, TableRefused, TableStatus, Termination, abort, start_game

step_module = importlib.import_module("app.table.step")  # the module (`app.table.step` names the function)


def _started() -> Game:
    rng = random.Random(11)
    started = start_game(3, conventions_from("fspr-leningrad", {}), 0, now_ms=1_000,
                         moves=ServerMoves(lambda: shuffle_action(rng)))  # fmt: skip
    assert started.game.state.phase is Phase.BIDDING
    return started.game


def test_a_fault_mid_deal_ends_the_game_as_an_early_stop_does_7_7() -> None:
    """RULES §7.7 (an early end): the deal in progress archived for an administrator, the sheet settled
    as it stands; [ours] a fault of the server ends the game that way, typed `server_fault`."""
    game = _started()
    result = abort(game, "ZeroDivisionError: boom", now_ms=5_000)
    ended = result.game
    assert ended.status is TableStatus.AWAITING_ADJUDICATION  # the archived deal awaits an award
    assert ended.outcome is not None and ended.outcome.termination is Termination.FAULT
    assert ended.outcome.note == "server fault: ZeroDivisionError: boom"
    assert ended.outcome.settlement_json()["result"] == [0, 0, 0]
    assert [a.action for a in result.applied] == [Interrupt("server fault: ZeroDivisionError: boom")]
    assert [r.deal_number for r in result.archived] == [1] and ended.pending == (1,)
    assert ended.clock.running is None
    (over,) = [e for e in result.events if e.kind == "game_over"]
    assert over.data["reason"] == "server_fault" and over.visible_to is None


def test_when_even_the_settlement_fails_the_game_ends_without_one(monkeypatch: pytest.MonkeyPatch) -> None:
    game = _started()

    def broken(*_args: object) -> None:
        raise ArithmeticError("overflow")

    monkeypatch.setattr(step_module, "settle", broken)
    result = abort(game, "ArithmeticError: overflow", now_ms=5_000)
    assert result.game.status is TableStatus.FINISHED
    assert result.game.outcome is not None
    assert result.game.outcome.termination is Termination.FAULT
    assert result.game.outcome.settlement is None
    assert result.game.outcome.settlement_json() == {"note": "server fault: ArithmeticError: overflow"}
    assert result.game.state is game.state and not result.applied  # nothing half-done is kept
    assert [e.kind for e in result.events] == ["game_over"]


def test_a_game_over_is_not_ended_again() -> None:
    game = abort(_started(), "x", now_ms=5_000).game
    with pytest.raises(TableRefused):
        abort(game, "y", now_ms=6_000)
