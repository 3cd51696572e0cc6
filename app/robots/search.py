"""The solver on sampled layouts: positions in the solver's seats, solved under node budgets only.

Solver seats 0, 1, 2 are the active seats in play order from first hand (`Knowledge.active`), which is
clockwise, as the solver requires. One `Solver` session serves one decision: its transposition table is
warm across the layouts of that decision and fresh for the next, so a decision never depends on what
was solved before it (a budget counts nodes, and nodes depend on the table).
"""

from __future__ import annotations

from app.engine.cards import Card, Suit
from app.solver import Position, Solver, SolverBudgetExceeded

Hands3 = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]


def position(
    active: tuple[int, ...],
    hands: dict[int, tuple[Card, ...]],
    *,
    trump: Suit | None,
    misere: bool,
    declarer: int,
    leader: int,
    trick: tuple[Card, ...] = (),
) -> Position:
    """A solver position from table seats: ``declarer`` and ``leader`` are table seats."""
    ordered: Hands3 = (hands[active[0]], hands[active[1]], hands[active[2]])
    return Position(ordered, trump, misere, active.index(declarer), active.index(leader), trick)


def declarer_tricks(session: Solver, pos: Position, node_budget: int) -> int | None:
    """The declarer's tricks from ``pos`` under double-dummy play, or None when over budget."""
    try:
        return session.solve(pos, node_budget=node_budget).declarer_tricks
    except SolverBudgetExceeded:
        return None


def card_values(session: Solver, pos: Position, node_budget: int) -> dict[Card, int] | None:
    """The declarer's tricks from ``pos`` after each legal card of the player to move, or None."""
    try:
        return session.analyse(pos, node_budget=node_budget)
    except SolverBudgetExceeded:
        return None


CAUGHT_TRICKS = 2  # a caught misère is scored as this many tricks (a test does not count them)


def misere_tricks(session: Solver, pos: Position, node_budget: int) -> int | None:
    """0 when the misère declarer escapes every trick double-dummy, else `CAUGHT_TRICKS`; None over budget.

    A single null-window test ("can the catchers force one trick?") costs a fraction of a full solve.
    """
    try:
        return CAUGHT_TRICKS if session.declarer_makes(pos, 1, node_budget=node_budget) else 0
    except SolverBudgetExceeded:
        return None
