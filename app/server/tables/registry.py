"""Table actors by id: created on demand, reloaded from the database on start (recovery).

After a crash the running seat of each table is charged its thinking up to the dead process's last
heartbeat (`app.server.storage.charge_after_crash`), never the downtime. On start every table is read
back with its clock stopped (`recover_all`, `recover_owned`) and stays so: `Recovery.resume`, the last
step before the process serves, stores the clocks frozen (one batch; a second crash then charges nothing
more) and starts the tables, and each running clock runs again only when its seat to move connects or
after the grace of `Settings.resume_grace` (RULES §8.6 [ours]), the same after a takeover: neither the
downtime, nor a slow start-up, nor the player's way back is charged.

`watch_storage` passes the writer's outage news to every table (§8.6: all freeze, all thaw).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import select

from app.db.models import GameTable
from app.server.context import ServerContext, pool_of
from app.server.errors import TableElsewhere
from app.server.storage import (
    StepWrite,
    StoredTable,
    TableStore,
    charge_after_crash,
    clock_record,
    forget_heartbeats,
    read_heartbeats,
    read_table,
    read_tables,
)
from app.server.tables.actor import TableActor
from app.server.tables.robot import OffLoopRobot
from app.server.tables.robot_seats import attach_robots
from app.server.timebase import MonoMs, WallMs
from app.table import LIVE, Game, TableStatus

log = logging.getLogger(__name__)


def watch_storage(ctx: ServerContext) -> None:
    """Every loaded table hears when the server cannot store and when it stores again (RULES §8.6)."""

    def told(since: MonoMs | None) -> None:
        for actor in list(ctx.tables.values()):
            if since is None:
                actor.storage_back()
            else:
                actor.storage_down(since)

    ctx.writer.on_outage = told


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
    loaded = await _read_back(ctx, table_id)
    if not isinstance(loaded, _Stopped):
        return loaded
    for failure in (await _resume(ctx, [loaded])).values():
        raise failure
    return ctx.tables.get(table_id)


@dataclass(frozen=True, slots=True)
class _Stopped:
    """A table read back whose task has not started and whose clock does not run yet: ``thought`` is what
    the crash charges its running seat (`charge_after_crash`), None when it has no clock to resume."""

    actor: TableActor
    thought: int | None
    playing: bool


async def _read_back(ctx: ServerContext, table_id: int) -> TableActor | _Stopped | None:
    """The table from its rows with its clock stopped, or the actor already loaded (None: no table)."""
    stored = await read_table(pool_of(ctx).sessions, table_id)  # the tick's own pool when it takes one over
    if stored is None:
        return None
    if table_id in ctx.tables:  # loaded concurrently meanwhile
        return ctx.tables[table_id]
    return _stopped(ctx, stored)


def _stopped(ctx: ServerContext, stored: StoredTable) -> _Stopped:
    store = TableStore(ctx.writer, ctx.sessions)
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
        # A game's end or a seat's new holder changes a room's list of tables, a tournament's standings,
        # rounds and players' tables: their shared answers (`http.shared_answers`) are read anew at the
        # next request.
        on_listing=lambda _changed: ctx.answers.forget(),
        seat_grace_s=ctx.settings.waiting_seat_grace or None,
    )
    actor.restore(stored)
    thought = None
    if actor.game is not None and stored.clock_json is not None:
        thought = charge_after_crash(stored.clock_json, ctx.heartbeats)
    return _Stopped(actor, thought, stored.status is TableStatus.PLAYING)


async def _resume(ctx: ServerContext, tables: list[_Stopped]) -> dict[int, BaseException]:
    """Start tables read back, their clocks held. A restart charges nobody the downtime, nor the server's
    own work of reading the tables back (RULES §8.1), nor the seat to move's way back (§8.6): each clock
    is charged what the crash proves its running seat thought, frozen, stored so (one batch: a second crash
    charges nothing more), and runs again when that seat connects or after `Settings.resume_grace`
    (`TableActor.await_reconnect`). A table whose clock could not be stored is not started (returned, with
    why, by id)."""
    stored_at, resumed_ms = ctx.writer.time.mono(), ctx.writer.time.wall()
    writes: list[tuple[_Stopped, StepWrite]] = []
    for t in tables:
        if t.playing and t.thought is not None:
            clock = _resumed(t, stored_at).clock
            boot = ctx.writer.boot
            record = clock_record(
                clock, boot, stored_at, resumed_ms, resumed_ms=resumed_ms, charged_ms=t.thought
            )
            writes.append((t, StepWrite(table={"clock": record})))
    commits = [ctx.writer.commit(t.actor.table_id, None, write) for t, write in writes]
    results = await asyncio.gather(*commits, return_exceptions=True)
    failed = {
        t.actor.table_id: result
        for (t, _), result in zip(writes, results, strict=True)
        if isinstance(result, BaseException)
    }
    for t in tables:
        actor = t.actor
        if actor.table_id in failed or actor.table_id in ctx.tables:  # not stored, or loaded meanwhile
            continue
        if t.playing and t.thought is not None:  # an adjourned table's clocks stay frozen (RULES §7.7)
            actor.game = _resumed(t, stored_at)
            actor.await_reconnect(round(ctx.settings.resume_grace * 1000))
        ctx.tables[actor.table_id] = actor
        actor.start()
        if actor.status in LIVE:
            attach_robots(ctx, actor)
    return failed


def _resumed(table: _Stopped, now: MonoMs) -> Game:
    """The table's game with its clock held at ``now``: the running seat charged what the crash proves it
    thought and no further (a clock frozen by a graceful stop stays as it was), to run again later."""
    game = table.actor.game
    assert game is not None and table.thought is not None
    clock = game.clock.resume_after_crash(now, table.thought)
    return replace(game, clock=clock if game.is_over else clock.freeze(now))


def _unload(ctx: ServerContext, actor: TableActor) -> None:
    """A finished table nobody watches leaves memory; it reloads on the next connection."""
    if ctx.tables.get(actor.table_id) is actor:
        del ctx.tables[actor.table_id]
        actor.unload()


class Recovery:
    """The tables a starting process read back, stopped until `resume` (the last thing before it serves)."""

    def __init__(self, tables: list[_Stopped], dead: dict[str, WallMs] | None) -> None:
        self.tables = tables
        self.dead = dead  # heartbeats of dead processes to forget once their tables run here

    async def resume(self, ctx: ServerContext) -> None:
        started = time.monotonic()
        failures = await _resume(ctx, self.tables)
        for table_id, failure in failures.items():
            log.error("table %s could not be recovered (its resumed clock not stored): %s", table_id, failure)
        log.info("resumed %d tables, their clocks held (§8.6), in %.2f s",
                 len(self.tables) - len(failures), time.monotonic() - started)  # fmt: skip
        if self.dead is not None and all(t.actor.table_id in ctx.tables for t in self.tables):
            # Every table counts from this process now; the dead processes' rows are no longer needed.
            await forget_heartbeats(ctx.writer.engine, self.dead)


async def recover_all(ctx: ServerContext) -> Recovery:
    """Read back every unfinished table; `Recovery.resume` starts them."""
    ctx.heartbeats = {
        boot: beat
        for boot, beat in (await read_heartbeats(ctx.writer.engine)).items()
        if boot != ctx.writer.boot.id
    }
    async with ctx.sessions() as session:
        ids = (await session.execute(select(GameTable.id).where(GameTable.status.in_(LIVE)))).scalars().all()
    tables, failed = await _read_all(ctx, ids)
    return Recovery(tables, None if failed else ctx.heartbeats)


async def recover_owned(ctx: ServerContext) -> Recovery:
    """Several workers: take this worker's slot (and the tables of the process it replaces) and read back
    the unfinished tables it owns; the heartbeats of live workers stay (they are not dead)."""
    assert ctx.cluster is not None
    await ctx.cluster.register(ctx)
    tables, _ = await _read_all(ctx, await ctx.cluster.owned_live(ctx))
    return Recovery(tables, None)


async def _read_all(ctx: ServerContext, ids: Sequence[int]) -> tuple[list[_Stopped], int]:
    started = time.monotonic()
    stored, failures = await read_tables(ctx.sessions, ids)
    for table_id, exc in failures.items():
        log.error("table %s could not be recovered", table_id, exc_info=exc)
    tables = [_stopped(ctx, stored[i]) for i in ids if i in stored and i not in ctx.tables]
    log.info("read back %d live tables in %.2f s", len(tables), time.monotonic() - started)
    return tables, len(failures)


async def quiesce_all(ctx: ServerContext, timeout: float = 5.0) -> None:
    """A graceful stop, before the server closes the sockets: every table ends the command it is on, so
    each committed action is acknowledged on its socket first (issue 26 §1.4)."""
    actors = list(ctx.tables.values())
    await asyncio.gather(*(actor.quiesce(timeout) for actor in actors))


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
