"""When the solver's analysis of a deal may be shown (RULES §12, last point): only once the deal has
ended, and at a tournament table only once the round has ended at every table **[ours]**.

The tournament code (issue 19, built beside this) plugs its rule in with `register_round_gate`: a gate
answers for one table whether its round is over (True), still being played (False), or that the table is
not a tournament's (None). Every gate must allow it. The broadcast of a room's finished deals asks the
same function, so the two can never disagree.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlalchemy.ext.asyncio import AsyncSession

RoundGate = Callable[[AsyncSession, int], Awaitable[bool | None]]

_ROUND_GATES: list[RoundGate] = []


def register_round_gate(gate: RoundGate) -> None:
    """Add a rule that may hold a table's analyses back until its round is over (idempotent)."""
    if gate not in _ROUND_GATES:
        _ROUND_GATES.append(gate)


async def analysis_allowed(session: AsyncSession, table_id: int, deal_over: bool) -> bool:
    """Whether the analysis of a deal of ``table_id`` may be shown now: ``deal_over`` says the deal has
    ended (its record is stored); every registered round gate must not say "round still on"."""
    if not deal_over:
        return False
    for gate in _ROUND_GATES:
        if await gate(session, table_id) is False:
            return False
    return True
