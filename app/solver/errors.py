"""The solver's errors."""

from __future__ import annotations


class SolverError(Exception):
    """Base of the solver's errors."""


class InvalidPosition(SolverError, ValueError):
    """The position cannot arise in play: bad or duplicate cards, hand sizes, trick, seats or mode."""


class SolverBudgetExceeded(SolverError):
    """The search passed its node budget before finishing; nothing was decided.

    Deterministic: the same position and budget always stop at the same node, on any machine.
    """

    def __init__(self, message: str, nodes: int) -> None:
        super().__init__(message)
        self.nodes = nodes


class SolverCancelled(SolverError):
    """The search was stopped from outside through its `CancelToken` (the server's wall-time guard).

    Nothing was decided; unlike `SolverBudgetExceeded` this depends on the machine's speed, so it is only
    ever the server's last resort.
    """

    def __init__(self, message: str, nodes: int) -> None:
        super().__init__(message)
        self.nodes = nodes
