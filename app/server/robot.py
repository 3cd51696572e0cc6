"""Running the timeout procedure (RULES.md §8.4, §10) off the event loop.

`app.autoplay.timeout_actions` is pure and may call the solver robot for every remaining card; it runs in
a worker thread, each card's search bounded by the solver's budgets, so the event loop keeps serving every
other table meanwhile.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor
from functools import partial
from typing import Any

from app.autoplay import TimeoutOutcome, timeout_actions
from app.engine.state import TableState


async def run_timeout(
    executor: Executor,
    state: TableState,
    seat: int,
    *,
    reserve_on: bool,
    flagged: frozenset[int],
    clocks: dict[str, Any],
    time_budget: float,
) -> TimeoutOutcome:
    from app.autoplay.robot import SolverRobot  # imports the solver kernels only when a robot is needed

    work = partial(
        timeout_actions,
        state,
        seat,
        reserve_on=reserve_on,
        robot=SolverRobot(time_budget=time_budget),
        flagged=flagged,
        clocks=clocks,
    )
    return await asyncio.get_running_loop().run_in_executor(executor, work)
