"""A table read back from its rows: seats, the replayed action log, the clocks as stored, the score sheet.

Used when a table is loaded (on start, or on demand) and when a running table rereads itself after a
commit whose outcome it does not know (the database may have stored it and lost the reply). The clock is
returned exactly as stored; what to charge for the time since is the caller's decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.clock import ClockSettings, ReserveClock
from app.db.models import ActionRecord, Award, GameTable, InterruptedDeal, TableSeat, User
from app.engine import action_from_json, replay
from app.engine.conventions import Conventions
from app.engine.scoring import ScoreSheet
from app.table import Adjournment, Game, Outcome, Proposal, Seating, TableStatus, Termination


@dataclass(frozen=True, slots=True)
class StoredTable:
    table_id: int
    seats: int
    conventions: Conventions
    first_dealer: int
    version: int
    seating: Seating
    next_action_seq: int
    game: Game | None  # None while the table waits for players
    clock_json: dict[str, Any] | None  # the clock row as stored (its wall-clock turn start included)

    @property
    def status(self) -> TableStatus:
        return TableStatus.WAITING if self.game is None else self.game.status


async def read_table(sessions: async_sessionmaker[AsyncSession], table_id: int) -> StoredTable | None:
    async with sessions() as session:
        row = await session.get(GameTable, table_id)
        if row is None:
            return None
        seats = (
            await session.execute(
                select(TableSeat, User.name)
                .join(User, User.id == TableSeat.user_id)
                .where(TableSeat.table_id == table_id)
            )
        ).all()
        log_rows = (
            await session.execute(
                select(ActionRecord.action, ActionRecord.user_id, ActionRecord.client_seq)
                .where(ActionRecord.table_id == table_id)
                .order_by(ActionRecord.seq)
            )
        ).all()
        pending = (
            (
                await session.execute(
                    select(InterruptedDeal.deal_number)
                    .where(InterruptedDeal.table_id == table_id, InterruptedDeal.adjudication.is_(None))
                    .order_by(InterruptedDeal.deal_number)
                )
            )
            .scalars()
            .all()
        )
    conventions = Conventions.model_validate(row.conventions)
    seat_users: list[int | None] = [None] * row.seats
    seat_names: list[str | None] = [None] * row.seats
    last_seq = [0] * row.seats
    for seat_row, name in seats:
        seat_users[seat_row.seat] = seat_row.user_id
        seat_names[seat_row.seat] = name
        last_seq[seat_row.seat] = seat_row.last_client_seq
    applied = {(user, seq): action for action, user, seq in log_rows if seq is not None}
    last_action = [applied.get((user, last_seq[seat])) for seat, user in enumerate(seat_users)]
    actions = [action for action, _, _ in log_rows]
    game = None
    if row.status != TableStatus.WAITING.value:
        state = replay([action_from_json(a) for a in actions], row.seats, conventions, row.first_dealer)
        if row.clock is not None:
            clock = ReserveClock.from_json(row.clock)
        else:
            clock = ReserveClock.new(row.seats, ClockSettings.from_conventions(conventions))
        sheet = ScoreSheet.from_json(row.sheet) if row.sheet else ScoreSheet.new(row.seats, conventions)
        outcome = None
        if row.finish_reason is not None and row.settlement is not None:
            outcome = Outcome.from_json(Termination(row.finish_reason), row.settlement)
        life = row.life or {}
        proposal, adjourned = life.get("proposal"), life.get("adjourned")
        game = Game(
            state, clock, sheet, TableStatus(row.status), outcome, tuple(pending),
            None if proposal is None else Proposal.from_json(proposal),
            None if adjourned is None else Adjournment.from_json(adjourned),
        )  # fmt: skip
    return StoredTable(
        table_id=row.id,
        seats=row.seats,
        conventions=conventions,
        first_dealer=row.first_dealer,
        version=row.version,
        seating=Seating(tuple(seat_users), tuple(seat_names), tuple(last_seq), tuple(last_action)),
        next_action_seq=len(actions) + 1,
        game=game,
        clock_json=row.clock,
    )


async def next_award_revision(sessions: async_sessionmaker[AsyncSession], deal_id: int) -> int:
    """The number the next award of interrupted deal ``deal_id`` takes in its history of awards."""
    async with sessions() as session:
        given = await session.scalar(select(func.count(Award.id)).where(Award.deal_id == deal_id))
    return (given or 0) + 1
