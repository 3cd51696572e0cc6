"""A table read back from its rows: seats, the replayed action log, the clocks as stored, the score sheet.

Used when a table is loaded (on start, or on demand) and when a running table rereads itself after a
commit whose outcome it does not know (the database may have stored it and lost the reply). The clock is
returned exactly as stored; what to charge for the time since is the caller's decision.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.clock import ClockSettings, ReserveClock
from app.db.models import ActionRecord, Award, GameTable, InterruptedDeal, TableSeat, User
from app.engine import JoinFourth, action_from_json, replay
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
    tables, failed = await read_tables(sessions, [table_id])
    if table_id in failed:
        raise failed[table_id]
    return tables.get(table_id)


# Tables read back per round of queries at start-up (the IN lists stay well below any driver's limit).
READ_CHUNK = 500
_LOG = ActionRecord


async def read_tables(
    sessions: async_sessionmaker[AsyncSession], ids: Sequence[int]
) -> tuple[dict[int, StoredTable], dict[int, Exception]]:
    """Several tables read back with four queries per `READ_CHUNK` of them, not four per table (a start-up
    reads every live table: issue 26 §1.3): the tables, and why each table that could not be rebuilt was
    not (its log does not replay); a missing id is in neither."""
    tables: dict[int, StoredTable] = {}
    failed: dict[int, Exception] = {}
    for first in range(0, len(ids), READ_CHUNK):
        chunk = list(ids[first : first + READ_CHUNK])
        async with sessions() as session:
            rows = (await session.execute(select(GameTable).where(GameTable.id.in_(chunk)))).scalars().all()
            seats = (
                await session.execute(
                    select(TableSeat, User.name)
                    .join(User, User.id == TableSeat.user_id)
                    .where(TableSeat.table_id.in_(chunk))
                )
            ).all()
            log_rows = (
                await session.execute(
                    select(_LOG.table_id, _LOG.action, _LOG.user_id, _LOG.client_seq)
                    .where(ActionRecord.table_id.in_(chunk))
                    .order_by(ActionRecord.table_id, ActionRecord.seq)
                )
            ).all()
            pending = (
                await session.execute(
                    select(InterruptedDeal.table_id, InterruptedDeal.deal_number)
                    .where(InterruptedDeal.table_id.in_(chunk), InterruptedDeal.adjudication.is_(None))
                    .order_by(InterruptedDeal.deal_number)
                )
            ).all()
        seats_of: dict[int, list[tuple[TableSeat, str]]] = defaultdict(list)
        for seat_row, name in seats:
            seats_of[seat_row.table_id].append((seat_row, name))
        log_of: dict[int, list[tuple[Any, int | None, int | None]]] = defaultdict(list)
        for table_id, action, user, seq in log_rows:
            log_of[table_id].append((action, user, seq))
        pending_of: dict[int, list[int]] = defaultdict(list)
        for table_id, deal_number in pending:
            pending_of[table_id].append(deal_number)
        for row in rows:
            try:
                tables[row.id] = _stored(row, seats_of[row.id], log_of[row.id], pending_of[row.id])
            except Exception as exc:  # one table that does not rebuild must not keep the others away
                failed[row.id] = exc
    return tables, failed


def _stored(
    row: GameTable,
    seats: list[tuple[TableSeat, str]],
    log_rows: list[tuple[Any, int | None, int | None]],
    pending: list[int],
) -> StoredTable:
    conventions = Conventions.model_validate(row.conventions)
    seat_users: list[int | None] = [None] * row.seats
    seat_names: list[str | None] = [None] * row.seats
    last_seq = [0] * row.seats
    for seat_row, name in seats:
        seat_users[seat_row.seat] = seat_row.user_id
        seat_names[seat_row.seat] = name
        last_seq[seat_row.seat] = seat_row.last_client_seq
    applied = {(user, seq): action for action, user, seq in log_rows if seq is not None}
    # An action applied before a fourth joined names the seat its player then held: not known here.
    last_action = [
        a if a is None or a.get("seat", seat) == seat else None
        for seat, a in ((seat, applied.get((user, last_seq[seat]))) for seat, user in enumerate(seat_users))
    ]
    actions = [action for action, _, _ in log_rows]
    game = None
    if row.status != TableStatus.WAITING.value:
        # RULES §7.7: the table's row counts its seats now; the log starts at three if a fourth joined.
        joins = sum(1 for a in actions if a.get("type") == JoinFourth.type)
        state = replay(
            [action_from_json(a) for a in actions], row.seats - joins, conventions, row.first_dealer
        )
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
