"""Double-dummy solver robot (RULES.md §10) and the misère discard robot (§8.4).

`IMPLEMENTATION` names the kernel in use: ``"cython"`` (compiled, built by ``pip install -e .``) or
``"python"`` (its pure twin, used when the extension is missing or ``PREFERANS_PURE_SOLVER=1``).

Pure: no clock is read anywhere in here (the kernels included). Every answer and every robot decision is
a function of the position and the node budgets only; a `CancelToken` lets the server stop a search from
outside when its own wall-time guard runs out.
"""

from __future__ import annotations

from app.solver._impl import IMPLEMENTATION, KERNELS, PURE_ENV
from app.solver.api import Solution, Solver, analyse, declarer_makes, play_out, solve
from app.solver.cancel import CancelToken
from app.solver.errors import InvalidPosition, SolverBudgetExceeded, SolverCancelled, SolverError
from app.solver.misere import misere_discard
from app.solver.position import Position, legal_cards, trick_winner

__all__ = [
    "IMPLEMENTATION",
    "KERNELS",
    "PURE_ENV",
    "CancelToken",
    "InvalidPosition",
    "Position",
    "Solution",
    "Solver",
    "SolverBudgetExceeded",
    "SolverCancelled",
    "SolverError",
    "analyse",
    "declarer_makes",
    "legal_cards",
    "misere_discard",
    "play_out",
    "solve",
    "trick_winner",
]
