"""The server's wall-time guard on the robots (issue 9): the last resort, never a decision of the game.

Within the guard the outcome is exactly the pure procedure's; when the guard runs out before the robot
is done, its search is cancelled, the deal is archived as interrupted (RULES.md §8.4) and it is logged.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

import pytest

from app.autoplay import REASON_SOLVER, timeout_actions
from app.autoplay.robot import SolverRobot
from app.engine import Interrupt, Phase, TimeOut
from app.server.settings import Settings
from app.server.tables.robot import run_off_loop, solver_robot
from tests.autoplay.test_robot import whisted_six


class LateExecutor(Executor):
    """Starts each job only once ``go`` is set: lets the guard run out before the robot begins."""

    def __init__(self, go: threading.Event) -> None:
        self.go = go

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()

        def job() -> None:
            self.go.wait()
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:
                future.set_exception(exc)

        threading.Thread(target=job, daemon=True).start()
        return future


async def test_within_the_guard_the_outcome_is_the_pure_procedures() -> None:
    state = whisted_six(seed=3)
    expected = timeout_actions(state, 1, reserve_on=True, robot=SolverRobot())
    robot = solver_robot(Settings(robot_guard_seconds=30.0))
    with ThreadPoolExecutor(1) as executor:
        outcome = await run_off_loop(
            executor, lambda: timeout_actions(state, 1, reserve_on=True, robot=robot), robot
        )
    assert outcome == expected and outcome.state.phase is Phase.DEAL_OVER
    assert not robot.cancelled and not robot.token.cancelled  # disarmed when the work was done


async def test_a_guard_that_runs_out_interrupts_the_deal_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The robot starts only after the guard fired: its first card's search (about 10 000 nodes) sees the
    raised token at its first look and stops; the procedure interrupts the deal, the server logs it."""
    state = whisted_six(seed=3)
    go = threading.Event()
    guard = 0.001

    async def release_after_the_guard() -> None:
        # A later deadline on the same loop: the guard's call_later has fired by then.
        await asyncio.sleep(guard * 10)
        go.set()

    with caplog.at_level(logging.WARNING, logger="app.server.tables.robot"):
        releaser = asyncio.ensure_future(release_after_the_guard())
        robot = solver_robot(Settings(robot_guard_seconds=guard))
        outcome = await run_off_loop(
            LateExecutor(go), lambda: timeout_actions(state, 1, reserve_on=True, robot=robot), robot
        )
        await releaser
    assert outcome.actions == (TimeOut(1), Interrupt(REASON_SOLVER))
    assert outcome.state.phase is Phase.INTERRUPTED and outcome.interrupted is not None
    assert robot.cancelled
    assert any("guard" in r.getMessage() and "interrupted" in r.getMessage() for r in caplog.records)


def test_the_guard_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREFERANS_ROBOT_GUARD_SECONDS", "12.5")
    assert Settings().robot_guard_seconds == 12.5
    assert solver_robot(Settings()).guard_seconds == 12.5  # no event loop here: made, not armed
