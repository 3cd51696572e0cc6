"""The tournaments' rule for the solver's analysis and the broadcast (RULES.md §12, last point): a deal of a
tournament table is analysed or shown only once its round has ended at every table."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import GameTable, TournamentRound, TournamentTable
from app.table import LIVE

FINISHED = "finished"


async def round_over(session: AsyncSession, table_id: int) -> bool | None:
    """True once the round that seated ``table_id`` is finished, False while it is played, None when no
    tournament seated the table (the gate's contract: `app.server.analysis.register_round_gate`)."""
    row = (
        await session.execute(
            select(TournamentRound.id, TournamentRound.status)
            .join(TournamentTable, TournamentTable.round_id == TournamentRound.id)
            .where(TournamentTable.table_id == table_id)
        )
    ).first()
    if row is None:
        return None
    round_id, status = row
    if status == FINISHED:
        return True
    # Ended at every table: none of them live. The round clock stores the round finished within its second,
    # and the tournament's page shows it so from the tables (`routes.tournaments._round_out`) at once.
    live = await session.scalar(
        select(TournamentTable.id)
        .join(GameTable, GameTable.id == TournamentTable.table_id)
        .where(TournamentTable.round_id == round_id, GameTable.status.in_(LIVE))
        .limit(1)
    )
    return live is None
