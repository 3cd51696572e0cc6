"""Table actors by id: created on demand, reloaded from the database on start (recovery).

After a crash the running seat of each table is charged its thinking up to the dead process's last
heartbeat (`app.server.persistence.charge_after_crash`), never the downtime; the resumed clocks are stored
again (one batch) so that a second crash counts from this process's turn start.
"""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy import select

from app.clock import ClockSettings, ReserveClock
from app.db.models import ActionRecord, GameTable, InterruptedDeal, TableSeat, User
from app.engine import action_from_json, replay
from app.engine.conventions import Conventions
from app.engine.scoring import ScoreSheet
from app.server.actor import TableActor
from app.server.cluster import TableElsewhere
from app.server.commands import mono_ms
from app.server.context import ServerContext
from app.server.persistence import (
    StepWrite,
    charge_after_crash,
    clock_record,
    forget_heartbeats,
    read_heartbeats,
)
from app.server.robot_seats import attach_robots
from app.table import Game, Outcome, TableStatus, Termination

log = logging.getLogger(__name__)

LIVE = ("waiting", "playing")


async def get_actor(ctx: ServerContext, table_id: int) -> TableActor | None:
    """The table's actor, loaded if need be. With several workers, only once this process owns the table
    (`app.server.cluster`); `TableElsewhere` (503) when another live worker runs it."""
    actor = ctx.tables.get(table_id)
    if actor is None:
        if ctx.cluster is not None and not await ctx.cluster.claim(ctx, table_id):
            raise TableElsewhere(table_id)
        actor = await load_actor(ctx, table_id)
    return actor


async def place_table(ctx: ServerContext, table_id: int) -> None:
    """A table just created: loaded here, or (several workers) given to the least busy live worker,
    which loads it when its first request or socket arrives."""
    if ctx.cluster is None or await ctx.cluster.place(ctx, table_id) == ctx.cluster.boot:
        await get_actor(ctx, table_id)


async def load_actor(ctx: ServerContext, table_id: int) -> TableActor | None:
    """Rebuild a table from its rows: seats, the replayed action log, the clocks, the score sheet."""
    async with ctx.sessions() as session:
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
        actions = [action for action, _, _ in log_rows]
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
    if table_id in ctx.tables:  # loaded concurrently meanwhile
        return ctx.tables[table_id]
    conventions = Conventions.model_validate(row.conventions)
    actor = TableActor(
        ctx,
        row.id,
        row.seats,
        conventions,
        first_dealer=row.first_dealer,
        status=row.status,
        version=row.version,
    )
    for seat_row, name in seats:
        actor.seat_users[seat_row.seat] = seat_row.user_id
        actor.seat_names[seat_row.seat] = name
        actor.last_seq[seat_row.seat] = seat_row.last_client_seq
    applied = {(user, seq): action for action, user, seq in log_rows if seq is not None}
    for seat, user in enumerate(actor.seat_users):
        actor.last_action[seat] = applied.get((user, actor.last_seq[seat]))
    actor.next_action_seq = len(actions) + 1
    if row.status != "waiting":
        state = replay([action_from_json(a) for a in actions], row.seats, conventions, row.first_dealer)
        resumed = row.status == "playing" and row.clock is not None
        if row.clock is not None:
            clock = ReserveClock.from_json(row.clock)
            # A restart: the downtime is not charged to anyone (RULES §8.1: the clock runs only while
            # the table waits for a player, and a dead server waits for nobody).
            clock = clock.resume_after_crash(mono_ms(), charge_after_crash(row.clock, ctx.heartbeats))
        else:
            clock = ReserveClock.new(row.seats, ClockSettings.from_conventions(conventions))
        sheet = ScoreSheet.from_json(row.sheet) if row.sheet else ScoreSheet.new(row.seats, conventions)
        outcome = None
        if row.finish_reason is not None and row.settlement is not None:
            outcome = Outcome(Termination(row.finish_reason), row.settlement)
        actor.game = Game(state, clock, sheet, TableStatus(row.status), outcome, tuple(pending))
        if resumed:
            record = clock_record(clock, ctx.writer.boot, mono_ms())
            await ctx.writer.commit(table_id, None, StepWrite(table={"clock": record}))
            if table_id in ctx.tables:
                return ctx.tables[table_id]
    ctx.tables[table_id] = actor
    actor.start()
    if row.status in LIVE:
        attach_robots(ctx, actor)
    return actor


async def recover_all(ctx: ServerContext) -> int:
    """Reload every unfinished table; returns how many."""
    ctx.heartbeats = {
        boot: beat
        for boot, beat in (await read_heartbeats(ctx.writer.engine)).items()
        if boot != ctx.writer.boot.id
    }
    async with ctx.sessions() as session:
        ids = (await session.execute(select(GameTable.id).where(GameTable.status.in_(LIVE)))).scalars().all()
    failed = 0
    for table_id in ids:
        try:
            await load_actor(ctx, table_id)
        except Exception:
            failed += 1
            log.exception("table %s could not be recovered", table_id)
    if not failed:
        # Every table counts from this process now; the dead processes' rows are no longer needed.
        await forget_heartbeats(ctx.writer.engine, ctx.heartbeats)
    return len(ids)


async def recover_owned(ctx: ServerContext) -> int:
    """Several workers: take this worker's slot (and the tables of the process it replaces) and reload
    the unfinished tables it owns; the heartbeats of live workers stay (they are not dead)."""
    assert ctx.cluster is not None
    await ctx.cluster.register(ctx)
    ids = await ctx.cluster.owned_live(ctx)
    for table_id in ids:
        try:
            await load_actor(ctx, table_id)
        except Exception:
            log.exception("table %s could not be recovered", table_id)
    return len(ids)


async def shutdown_all(ctx: ServerContext) -> None:
    """Graceful stop: every actor ends, running clocks are frozen and persisted (one batch)."""
    actors = list(ctx.tables.values())
    ctx.tables.clear()
    for actor in actors:
        await actor.stop()
    frozen: list[tuple[int, StepWrite]] = []
    for actor in actors:
        game = actor.game
        if game is not None and actor.status == "playing":
            clock = game.clock.freeze(mono_ms())
            frozen.append((actor.table_id, StepWrite(table={"clock": clock.to_json()})))
    results = await asyncio.gather(
        *(ctx.writer.commit(table_id, None, write) for table_id, write in frozen), return_exceptions=True
    )
    for (table_id, _), result in zip(frozen, results, strict=True):
        if isinstance(result, BaseException):
            log.error("table %s: could not freeze its clock: %s", table_id, result)
