"""Storing a table's steps: one transaction per step, committed before anything is acknowledged or sent.

`StepWrite` collects the rows and table fields of one step (seats, actions with the clocks after each,
ended deals, archived interrupted deals, awards, the table's status, clock, sheet and settlement);
`commit_step` writes them together with the table's next version.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import ActionRecord, DealRecord, GameTable, InterruptedDeal, TableSeat
from app.table import Game, Step


@dataclass(slots=True)
class StepWrite:
    """What one step writes: rows to add and table fields to set, committed in one transaction."""

    rows: list[Any] = field(default_factory=list)
    table: dict[str, Any] = field(default_factory=dict)
    seat_removed: int | None = None
    seat_seq: tuple[int, int] | None = None  # (seat, client seq) applied by this step
    adjudications: dict[int, dict[str, Any]] = field(default_factory=dict)  # archive row id -> award

    def add_step(
        self,
        table_id: int,
        before: Game | None,
        result: Step,
        *,
        first_seq: int,
        users: list[int | None],
        client_seq: int | None = None,
    ) -> int:
        """Add a table step's rows (``before``: the game it started from, None for the game's start); returns
        how many actions it stores (the caller advances its action sequence by that after the commit)."""
        game = result.game
        now = time.time()
        sheet_json = None if before is not None and game.sheet is before.sheet else game.sheet.to_json()
        last = len(result.applied) - 1
        for i, applied in enumerate(result.applied):
            by_player = applied.seat is not None
            self.rows.append(
                ActionRecord(
                    table_id=table_id,
                    seq=first_seq + i,
                    action=applied.action.to_json(),
                    user_id=users[applied.seat] if applied.seat is not None else None,
                    client_seq=client_seq if by_player else None,
                    by_server=not by_player,
                    at=now,
                    clock=applied.clock.to_json(),
                    # The sheet changes only when a deal ends: stored then, not with every card.
                    sheet=sheet_json if i == last else None,
                )
            )
        for deal in result.deals:
            self.rows.append(
                DealRecord(
                    table_id=table_id,
                    deal_number=deal.deal_number,
                    result=deal.result.to_json(),
                    record=deal.record,
                    at=now,
                )
            )
        for record in result.archived:
            self.rows.append(
                InterruptedDeal(
                    table_id=table_id,
                    deal_number=record.deal_number,
                    reason=record.reason[:255],
                    record=record.to_json(),
                    clock=record.clocks,
                    at=now,
                )
            )
        self.table["clock"] = game.clock.to_json()
        self.table["status"] = game.status.value
        if sheet_json is not None:
            self.table["sheet"] = sheet_json
        if result.started:
            self.table["started_at"] = now
        if game.outcome is not None:
            self.table["finish_reason"] = game.outcome.termination.value
            self.table["settlement"] = game.outcome.settlement
            if before is None or before.outcome is None:
                self.table["finished_at"] = now
        return len(result.applied)


async def commit_step(
    sessions: async_sessionmaker[AsyncSession], table_id: int, version: int, write: StepWrite
) -> None:
    """Write ``write`` and the table's new ``version`` in one transaction."""
    async with sessions() as session, session.begin():
        session.add_all(write.rows)
        if write.seat_removed is not None:
            row = await session.get(TableSeat, (table_id, write.seat_removed))
            if row is not None:
                await session.delete(row)
        if write.seat_seq is not None:
            seat, seq = write.seat_seq
            await session.execute(
                update(TableSeat)
                .where(TableSeat.table_id == table_id, TableSeat.seat == seat)
                .values(last_client_seq=seq)
            )
        for row_id, adjudication in write.adjudications.items():
            await session.execute(
                update(InterruptedDeal).where(InterruptedDeal.id == row_id).values(adjudication=adjudication)
            )
        await session.execute(
            update(GameTable).where(GameTable.id == table_id).values(version=version, **write.table)
        )
