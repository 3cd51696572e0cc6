"""The solver robot for the server: built from the settings, run off the event loop, under a guard.

A table step that needs the robot (a seat out of time must play a card or discard for a misère, §8.4,
§10) is pure and may search for a while; it runs in a worker thread so the event loop keeps serving every
other table meanwhile. The robot's decisions are a function of the position only: its limits are node
budgets (`app.autoplay.robot`), whose worst case fits well inside the guard.

The guard (``PREFERANS_ROBOT_GUARD_SECONDS``) is the last resort for a machine far slower or busier than
measured: the only wall-clock limit on the robots, and it lives here, not in the pure packages. When it
runs out, the event loop raises the robot's `CancelToken`; its search stops within `CANCEL_EVERY` nodes
with `SolverCancelled` (a `SolverError`), the timeout procedure archives the deal as interrupted (§8.4)
and this module logs it. It never changes a decision that completes within it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from app.engine.actions import ClaimVerdict
from app.engine.cards import Card
from app.engine.state import TableState
from app.server import metrics
from app.server.settings import Settings
from app.solver.cancel import CancelToken
from app.solver.errors import SolverCancelled

if TYPE_CHECKING:
    from app.autoplay.robot import SolverRobot

_T = TypeVar("_T")
log = logging.getLogger(__name__)


class GuardedRobot:
    """The solver robot of one step (`app.autoplay.procedure.Robot`), its token and its guard.

    The guard is armed on the running event loop when the robot is made (`solver_robot`), so make it
    right before the step that uses it, and pass it to `run_off_loop` to disarm it when the step is done.
    """

    def __init__(self, robot: SolverRobot, token: CancelToken, guard_seconds: float) -> None:
        self.robot = robot
        self.token = token
        self.guard_seconds = guard_seconds
        self.cancelled = False  # a search of this robot was stopped by the guard
        self._timer: asyncio.TimerHandle | None = None

    def arm(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = loop.call_later(self.guard_seconds, self.token.cancel)

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def play(self, state: TableState) -> Card:
        try:
            return self.robot.play(state)
        except SolverCancelled as exc:
            self._log(state, "card", exc)
            raise

    def judge_claim(self, state: TableState) -> ClaimVerdict:
        verdict = self.robot.judge_claim(state)
        if self.token.cancelled:
            self.cancelled = True
            log.warning("robot guard of %.1f s ran out: the claim in deal %d is undecided, so void",
                        self.guard_seconds, state.deal_number)  # fmt: skip
        return verdict

    def misere_discard(self, state: TableState) -> tuple[Card, Card]:
        try:
            return self.robot.misere_discard(state)
        except SolverCancelled as exc:
            self._log(state, "misère discard", exc)
            raise

    def _log(self, state: TableState, decision: str, exc: SolverCancelled) -> None:
        self.cancelled = True
        log.warning(
            "robot guard of %.1f s ran out: the %s in deal %d was cancelled after %d nodes; the deal is "
            "archived as interrupted",
            self.guard_seconds,
            decision,
            state.deal_number,
            exc.nodes,
        )


def solver_robot(settings: Settings) -> GuardedRobot:
    """A fresh robot with its own token; its guard starts now when called on the event loop."""
    from app.autoplay.robot import SolverRobot  # imports the solver kernels only when a robot is needed

    token = CancelToken()
    robot = GuardedRobot(SolverRobot(cancel=token), token, settings.robot_guard_seconds)
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return robot  # no event loop (a script calling it directly): no wall-clock guard
    robot.arm(loop)
    return robot


async def run_off_loop(executor: Executor, work: Callable[[], _T], robot: GuardedRobot | None = None) -> _T:
    """``work()`` in ``executor``; ``robot``: the guarded robot it uses, disarmed (and, if nobody waits
    for the answer any more, cancelled) when it is over."""
    timer = metrics.solver_timer() if robot is not None else contextlib.nullcontext()
    try:
        with timer:
            return await asyncio.get_running_loop().run_in_executor(executor, work)
    except asyncio.CancelledError:
        if robot is not None:
            robot.token.cancel()  # frees the worker thread within a few thousand nodes
        raise
    finally:
        if robot is not None:
            robot.disarm()


@dataclass(frozen=True, slots=True)
class OffLoopRobot:
    """The solver robot for a table step that needs it, run off the event loop in ``executor``."""

    executor: Executor
    settings: Settings

    async def run(self, work: Callable[[GuardedRobot], _T]) -> _T:
        robot = solver_robot(self.settings)
        return await run_off_loop(self.executor, lambda: work(robot), robot)
