"""The solver robot for the server: built from the settings, run off the event loop.

A table step that needs the robot (a seat out of time must play a card or discard for a misère, §8.4,
§10) is pure and may search for a while; it runs in a worker thread, each search bounded by the solver's
budgets, so the event loop keeps serving every other table meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Executor
from typing import TypeVar

from app.autoplay.procedure import Robot
from app.server import metrics
from app.server.settings import Settings

_T = TypeVar("_T")


def solver_robot(settings: Settings) -> Robot:
    from app.autoplay.robot import SolverRobot  # imports the solver kernels only when a robot is needed

    return SolverRobot(time_budget=settings.solver_budget)


async def run_off_loop(executor: Executor, work: Callable[[], _T]) -> _T:
    with metrics.solver_timer():
        return await asyncio.get_running_loop().run_in_executor(executor, work)
