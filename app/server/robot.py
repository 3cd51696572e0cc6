"""Running the timeout procedure (RULES.md §8.4, §10) off the event loop, under the wall-time guard.

`app.autoplay.timeout_actions` is pure and may call the robots for every remaining card; it runs in the
solver executor so the event loop keeps serving every other table meanwhile. The robots' decisions are a
function of the position only (node budgets, see `app.autoplay.robot`); their worst case fits well inside
the guard. The guard (``PREFERANS_ROBOT_GUARD_SECONDS``) is the last resort for a machine far slower or
busier than measured: when it runs out, the event loop raises the robot's `CancelToken`, the search stops
within a few thousand nodes, the procedure archives the deal as interrupted (§8.4) and this module logs
it. It never changes a decision that completes within it.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import partial
from typing import Any

from app.autoplay import TimeoutOutcome, timeout_actions
from app.engine.cards import Card
from app.engine.state import TableState
from app.solver.cancel import CancelToken
from app.solver.errors import SolverCancelled

log = logging.getLogger(__name__)


@dataclass
class _Watched:
    """The robot as the procedure sees it, noting whether the guard stopped one of its searches."""

    robot: Any  # app.autoplay.robot.SolverRobot, imported lazily
    cancelled: bool = False

    def play(self, state: TableState) -> Card:
        try:
            card: Card = self.robot.play(state)
        except SolverCancelled:
            self.cancelled = True
            raise
        return card

    def misere_discard(self, state: TableState) -> tuple[Card, Card]:
        try:
            cards: tuple[Card, Card] = self.robot.misere_discard(state)
        except SolverCancelled:
            self.cancelled = True
            raise
        return cards


async def run_timeout(
    executor: Executor,
    state: TableState,
    seat: int,
    *,
    reserve_on: bool,
    flagged: frozenset[int],
    clocks: dict[str, Any],
    guard_seconds: float | None = None,
    time_budget: float | None = None,
) -> TimeoutOutcome:
    """`timeout_actions` for ``seat`` in the executor, its robots stopped after ``guard_seconds``.

    ``time_budget`` is the old name of ``guard_seconds``, kept until app/server/actor.py passes the new
    one; give exactly one.
    """
    from app.autoplay.robot import SolverRobot  # imports the solver kernels only when a robot is needed

    if (guard_seconds is None) == (time_budget is None):
        raise TypeError("run_timeout takes guard_seconds (or its old name time_budget), exactly one")
    guard = guard_seconds if guard_seconds is not None else time_budget
    assert guard is not None
    token = CancelToken()
    robot = _Watched(SolverRobot(cancel=token))
    work = partial(
        timeout_actions, state, seat, reserve_on=reserve_on, robot=robot, flagged=flagged, clocks=clocks
    )
    loop = asyncio.get_running_loop()
    timer = loop.call_later(guard, token.cancel)
    try:
        outcome = await loop.run_in_executor(executor, work)
    except asyncio.CancelledError:
        token.cancel()  # nobody waits for the answer any more: free the worker thread
        raise
    except SolverCancelled:
        log.error(
            "robot guard of %.1f s ran out for seat %d in %s; nothing was applied",
            guard,
            seat,
            state.phase.value,
        )
        raise
    finally:
        timer.cancel()
    if robot.cancelled:
        log.warning(
            "robot guard of %.1f s ran out for seat %d: deal %d archived as interrupted (%s)",
            guard,
            seat,
            state.deal_number,
            outcome.interrupted.reason if outcome.interrupted is not None else "no record",
        )
    return outcome
