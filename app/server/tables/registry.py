"""Table actors by id: created on demand, reloaded from the database on start (recovery).

After a crash the running seat of each table is charged its thinking up to the dead process's last
heartbeat (`app.server.storage.charge_after_crash`), never the downtime; the resumed clocks are stored
again (one batch) so that a second crash counts from this process's turn start.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from sqlalchemy import select

from app.db.models import GameTable
from app.server.context import ServerContext
from app.server.errors import TableElsewhere
from app.server.storage import (
    StepWrite,
    TableStore,
    charge_after_crash,
    clock_record,
    forget_heartbeats,
    read_heartbeats,
)
from app.server.tables.actor import TableActor
from app.server.tables.robot import OffLoopRobot
from app.server.tables.robot_seats import attach_robots
from app.table import LIVE, TableStatus

log = logging.getLogger(__name__)


async def get_actor(ctx: ServerContext, table_id: int) -> TableActor | None:
    """The table's actor, loaded if need be. With several workers, only once this process owns the table
    (`app.server.cluster.ownership`); `TableElsewhere` (503) when another live worker runs it."""
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
    """Rebuild a table from its rows (`app.server.storage.reading`), resume its clock and start its task."""
    store = TableStore(ctx.writer, ctx.sessions)
    stored = await store.read(table_id)
    if stored is None:
        return None
    if table_id in ctx.tables:  # loaded concurrently meanwhile
        return ctx.tables[table_id]
    actor = TableActor(
        store,
        stored.table_id,
        stored.seats,
        stored.conventions,
        first_dealer=stored.first_dealer,
        now=ctx.writer.time.mono,
        robot=OffLoopRobot(ctx.solver_executor, ctx.settings),
        queue_limit=ctx.settings.table_queue_limit,
        on_idle=lambda idle: _unload(ctx, idle),
    )
    actor.restore(stored)
    game = actor.game
    if game is not None and stored.clock_json is not None:
        # A restart: the downtime is not charged to anyone (RULES §8.1: the clock runs only while the
        # table waits for a player, and a dead server waits for nobody).
        thought = charge_after_crash(stored.clock_json, ctx.heartbeats)
        now = ctx.writer.time.mono()
        clock = game.clock.resume_after_crash(now, thought)
        actor.game = replace(game, clock=clock)
        if stored.status is TableStatus.PLAYING:
            record = clock_record(clock, ctx.writer.boot, now, ctx.writer.time.wall())
            await ctx.writer.commit(table_id, None, StepWrite(table={"clock": record}))
            if table_id in ctx.tables:
                return ctx.tables[table_id]
    ctx.tables[table_id] = actor
    actor.start()
    if stored.status in LIVE:
        attach_robots(ctx, actor)
    return actor


def _unload(ctx: ServerContext, actor: TableActor) -> None:
    """A finished table nobody watches leaves memory; it reloads on the next connection."""
    if ctx.tables.get(actor.table_id) is actor:
        del ctx.tables[actor.table_id]
        actor.unload()


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
        if game is not None and game.status is TableStatus.PLAYING:
            clock = game.clock.freeze(ctx.writer.time.mono())
            frozen.append((actor.table_id, StepWrite(table={"clock": clock.to_json()})))
    results = await asyncio.gather(
        *(ctx.writer.commit(table_id, None, write) for table_id, write in frozen), return_exceptions=True
    )
    for (table_id, _), result in zip(frozen, results, strict=True):
        if isinstance(result, BaseException):
            log.error("table %s: could not freeze its clock: %s", table_id, result)
