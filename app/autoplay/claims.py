"""The solver's verdict on a rejected claim (RULES.md §4.10, §10): judged from the true position.

Pure, like every robot decision here: the limit is a node budget, never the wall clock, so the same claim
gets the same verdict on every machine. A claim stands when the declarer takes at least the claimed tricks
under optimal play by all sides (a misère: takes none); a search past the budget leaves it "undecided",
which voids the claim (§4.10). A `CancelToken` raised by the server's last-resort guard counts as
undecided as well.
"""

from __future__ import annotations

from app.autoplay.robot import DEFAULT_NODE_BUDGET, position_of
from app.engine.actions import ClaimVerdict
from app.engine.state import Phase, TableState
from app.engine.state import evolve as replace
from app.solver import CancelToken, Solver
from app.solver.errors import SolverError


def judge_claim(
    state: TableState,
    *,
    node_budget: int | None = DEFAULT_NODE_BUDGET,
    implementation: str | None = None,
    cancel: CancelToken | None = None,
) -> ClaimVerdict:
    """The verdict on the claim that awaits one in ``state`` (`app.engine.claims.awaits_verdict`)."""
    deal = state.deal
    if state.phase is not Phase.CLAIM or deal is None or deal.claim is None or deal.contract is None:
        raise ValueError(f"no claim awaits a verdict ({state.phase.value})")
    claim = deal.claim
    # The position where play stopped: the claim froze it at the declarer's turn.
    position = position_of(replace(state, phase=Phase.PLAY))
    solver = Solver(implementation, cancel=cancel)
    try:
        if deal.contract.is_misere:
            stands = not solver.declarer_makes(position, 1, node_budget=node_budget)
        else:
            stands = solver.declarer_makes(position, claim.tricks, node_budget=node_budget)
    except SolverError:
        return ClaimVerdict("undecided")
    return ClaimVerdict("stands" if stands else "fails")
