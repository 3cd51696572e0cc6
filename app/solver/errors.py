"""The solver's errors."""

from __future__ import annotations


class SolverError(Exception):
    """Base of the solver's errors."""


class InvalidPosition(SolverError, ValueError):
    """The position cannot arise in play: bad or duplicate cards, hand sizes, trick, seats or mode."""


class SolverBudgetExceeded(SolverError):
    """The search passed its node or time budget before finishing; nothing was decided."""

    def __init__(self, message: str, nodes: int) -> None:
        super().__init__(message)
        self.nodes = nodes
