"""The tournaments' rule for the solver's analysis and the broadcast (RULES.md §12, last point): a deal of a
tournament table is analysed or shown only once its round has ended at every table."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import TournamentRound, TournamentTable

FINISHED = "finished"


async def round_over(session: AsyncSession, table_id: int) -> bool | None:
    """True once the round that seated ``table_id`` is finished, False while it is played, None when no
    tournament seated the table (the gate's contract: `app.server.analysis.register_round_gate`)."""
    status = await session.scalar(
        select(TournamentRound.status)
        .join(TournamentTable, TournamentTable.round_id == TournamentRound.id)
        .where(TournamentTable.table_id == table_id)
    )
    if status is None:
        return None
    return bool(status == FINISHED)
