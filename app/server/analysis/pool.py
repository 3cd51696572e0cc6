"""Where analyses are computed: a pool of worker processes (the solver would hold the event loop, and
threads would share its two cores with the tables' robots), with a bounded backlog.

An analysis's figures depend only on the deal and the node budget (`app.analysis`), never on the
machine's speed: a busy machine answers later, not differently.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from app.analysis.deal import DEFAULT_NODE_BUDGET, analyse_json
from app.protocol.codes import ErrorCode
from app.server.errors import ApiError
from app.solver import SolverBudgetExceeded

OVER_BUDGET = "budget_exceeded"


class AnalysisOverBudget(Exception):
    """The deal's analysis needs more than the pool's node budget (deterministic: it always will)."""

    def __init__(self, node_budget: int) -> None:
        super().__init__(f"the deal's analysis needs more than {node_budget} solver nodes")
        self.node_budget = node_budget


def _analyse(deal: dict[str, Any], node_budget: int) -> dict[str, Any]:
    """`analyse_json` in the worker; a budget overrun comes back as a value (``{OVER_BUDGET: budget}``),
    since the solver's exception does not cross the process boundary intact."""
    try:
        return analyse_json(deal, node_budget)
    except SolverBudgetExceeded:
        return {OVER_BUDGET: node_budget}


class AnalysisPool:
    """``workers`` processes (started on first use), at most ``backlog`` analyses waiting or running;
    past that a request is refused ``busy`` (503) rather than queued without end."""

    def __init__(self, workers: int = 1, backlog: int = 16, node_budget: int = DEFAULT_NODE_BUDGET) -> None:
        self.workers = workers
        self.node_budget = node_budget
        self._slots = asyncio.BoundedSemaphore(backlog)
        self._backlog = backlog
        self._waiting = 0
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # spawn: a forked copy of a process running an event loop and threads is not safe.
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(self.workers, mp_context=context)
        return self._executor

    async def analyse(self, deal: dict[str, Any]) -> dict[str, Any]:
        """`app.analysis.deal.analyse_json` of ``deal`` in a worker process; `AnalysisOverBudget` when the
        solver passes the node budget."""
        if self._waiting >= self._backlog:
            raise ApiError(ErrorCode.BUSY, "the solver is busy with other analyses; try again shortly")
        self._waiting += 1
        try:
            async with self._slots:
                loop = asyncio.get_running_loop()
                result: dict[str, Any] = await loop.run_in_executor(
                    self._pool(), _analyse, deal, self.node_budget
                )
        finally:
            self._waiting -= 1
        if OVER_BUDGET in result:
            raise AnalysisOverBudget(self.node_budget)
        return result

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
