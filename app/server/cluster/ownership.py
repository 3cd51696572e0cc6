"""Several worker processes sharing the tables (``python -m app serve --workers N``).

Each worker has a slot (0..N-1, given by the supervisor), a boot id (its heartbeat row, kept by the
group writer once a second) and its own listener (``workers.address``). A table is run by exactly one
process: ``game_tables.owner`` names the owner's boot id, and a process loads a table only after it owns
it. Ownership changes only by a compare-and-set ``UPDATE … WHERE owner = <what was read>``, so two
processes racing for a table can never both win.

A table is claimable when it has no owner, when its owner is the process this one replaced in its slot
(the supervisor restarts a worker only after the old one is dead), or when its owner's heartbeat is older
than ``worker_lease``. New tables go to the live worker with the fewest live tables. Every second each
worker re-reads the workers and heartbeats, unloads any table it no longer owns (the fence), and adopts
the tables of dead workers. With one worker (the default) nothing of this runs: the one process loads
every table, as before.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import bindparam, func, literal, select, update

from app.db.engine import writing
from app.db.models import GameTable, ServerState, WorkerSlot
from app.protocol.codes import CloseCode
from app.server.context import pool_of
from app.server.storage import HEARTBEAT_PREFIX, forget_heartbeats, read_heartbeats
from app.server.timebase import WallMs, wall_ms
from app.table import LIVE

if TYPE_CHECKING:
    from app.server.context import ServerContext

log = logging.getLogger(__name__)

_FENCE_SLICE = 250  # ids a query names (hundreds of parameters are milliseconds of the loop)
# The fence's statements, built once: a statement built per call leaves its bound parameters in reference
# cycles (with the writer's per-batch fence, ~2,000 objects a second; README "Capacity").
_LIVE_OWNED_BY = select(GameTable.id).where(GameTable.owner == bindparam("boot"), GameTable.status.in_(LIVE))
_OWNERS_OF = select(GameTable.id, GameTable.owner).where(GameTable.id.in_(bindparam("ids", expanding=True)))
# A table's owner and the owner's heartbeat as stored (its row in `server_state`), in one read.
_OWNER_AND_BEAT = (
    select(GameTable.owner, ServerState.value)
    .select_from(GameTable)
    .outerjoin(ServerState, ServerState.key == literal(HEARTBEAT_PREFIX) + GameTable.owner)
    .where(GameTable.id == bindparam("id"))
)
# Ownership's compare-and-set (module docstring); ``expected`` None: the table is nobody's.
_SWAP = (
    update(GameTable)
    .where(GameTable.id == bindparam("table"), GameTable.owner.is_not_distinct_from(bindparam("expected")))
    .values(owner=bindparam("new"))
)
ADOPT_PER_TICK = 200
# A new table is nobody's for a moment, between its insert and `Cluster.place`; a tick that adopted it
# then would undo the placement (both of two new tables on one worker). Ticks leave it alone this long.
PLACING_S = 10.0


@dataclass
class Cluster:
    slot: int
    workers: int
    boot: str
    address: str  # host:port of this worker's own listener
    lease_ms: int
    interval: float
    previous_boot: str | None = None  # the process this one replaced in its slot
    started: float = field(default_factory=time.monotonic)
    # Refreshed every tick: the live workers' addresses by boot id, and every heartbeat.
    addresses: dict[str, str] = field(default_factory=dict)
    slots: dict[int, str] = field(default_factory=dict)
    beats: dict[str, WallMs] = field(default_factory=dict)

    # ---- who runs what -------------------------------------------------------------------------------

    def live(self, boot: str) -> bool:
        if boot == self.boot:
            return True
        beat = self.beats.get(boot)
        return beat is not None and wall_ms() - beat <= self.lease_ms

    async def refresh(self, ctx: ServerContext) -> None:
        async with pool_of(ctx).sessions() as session:
            rows = (await session.execute(select(WorkerSlot.slot, WorkerSlot.boot, WorkerSlot.address))).all()
        self.beats = await read_heartbeats(ctx.writer.engine)
        self.slots = {slot: boot for slot, boot, _ in rows}
        self.addresses = {boot: address for _, boot, address in rows if self.live(boot)}

    async def owner_of(self, ctx: ServerContext, table_id: int) -> tuple[bool, str | None]:
        """Whether the table exists, and its owner."""
        exists, owner, _ = await self._owner_and_beat(ctx, table_id)
        return exists, owner

    async def _owner_and_beat(self, ctx: ServerContext, table_id: int) -> tuple[bool, str | None, bool]:
        """Whether the table exists, its owner, and whether the owner is alive by its heartbeat as read
        now, with the owner, in one statement (the tick's cache may predate a worker's start or death)."""
        async with pool_of(ctx).engine.connect() as db:
            row = (await db.execute(_OWNER_AND_BEAT, {"id": table_id})).first()
        if row is None:
            return False, None, False
        owner, value = row
        if owner is None or owner == self.boot:
            return True, owner, owner is not None
        try:
            beat = WallMs(int(value)) if value is not None else None
        except ValueError:
            beat = None
        if beat is not None:
            self.beats[owner] = beat
        return True, owner, beat is not None and wall_ms() - beat <= self.lease_ms

    async def locate(self, ctx: ServerContext, table_id: int) -> str | None:
        """The address of the other live worker that runs the table, or None: it is this process's (or
        nobody's, or a dead worker's: this process will claim it)."""
        if table_id in ctx.tables:
            return None
        _, owner, alive = await self._owner_and_beat(ctx, table_id)
        return await self._address_of_other(ctx, owner, alive)

    async def _address_of_other(self, ctx: ServerContext, owner: str | None, alive: bool) -> str | None:
        if owner is None or owner in (self.boot, self.previous_boot):
            return None
        if owner not in self.addresses:
            await self.refresh(ctx)  # which keeps the addresses of live workers only
            return self.addresses.get(owner)
        # A tick may have refreshed the addresses since the read, without a worker found dead since.
        return self.addresses.get(owner) if alive else None

    async def address_of(self, ctx: ServerContext, table_id: int) -> str | None:
        """The own address of the worker that runs the table, this one included (None: not known yet)."""
        if table_id in ctx.tables:
            return self.address
        _, owner, alive = await self._owner_and_beat(ctx, table_id)
        if owner == self.boot:
            return self.address
        return await self._address_of_other(ctx, owner, alive)

    async def claim(self, ctx: ServerContext, table_id: int) -> bool:
        """Make this process the table's owner if it may (module docstring): one conditional UPDATE.
        True for an unknown table too (the caller finds nothing to load)."""
        exists, owner, alive = await self._owner_and_beat(ctx, table_id)
        if not exists or owner == self.boot:
            return True
        if owner is not None and owner != self.previous_boot and alive:
            return False
        return await self._swap(ctx, table_id, owner, self.boot)

    async def _swap(self, ctx: ServerContext, table_id: int, expected: str | None, new: str) -> bool:
        async with writing(pool_of(ctx).engine, ctx.autocommit) as db:
            result = await db.execute(_SWAP, {"table": table_id, "expected": expected, "new": new})
        won = bool(result.rowcount == 1)
        if won and expected is not None and expected != self.boot:
            log.warning("table %s taken over from worker %s by %s", table_id, expected, new)
            # The dead owner's last beat bounds what its crash charges the seat on move.
            if expected in self.beats:
                ctx.heartbeats[expected] = self.beats[expected]
        return won

    async def place(self, ctx: ServerContext, table_id: int) -> str | None:
        """A new table goes to the live worker with the fewest live tables (this one on a tie); returns
        the owner's boot id."""
        await self.refresh(ctx)
        async with pool_of(ctx).sessions() as session:
            counts = dict(
                (
                    await session.execute(
                        select(GameTable.owner, func.count())
                        .where(GameTable.status.in_(LIVE), GameTable.owner.is_not(None))
                        .group_by(GameTable.owner)
                    )
                ).all()
            )
        candidates = [self.boot, *(b for b in self.addresses if b != self.boot)]
        chosen = min(candidates, key=lambda b: counts.get(b, 0))
        if await self._swap(ctx, table_id, None, chosen):
            return chosen
        _, owner = await self.owner_of(ctx, table_id)
        return owner

    # ---- start and the periodic tick ----------------------------------------------------------------

    async def register(self, ctx: ServerContext) -> None:
        """Take the slot: remember the process it had (dead: the supervisor waited for it) and take its
        tables, and this worker's share of the tables nobody owns yet (``id % N == slot``)."""
        async with pool_of(ctx).sessions() as session, session.begin():
            row = await session.get(WorkerSlot, self.slot)
            if row is None:
                row = WorkerSlot(slot=self.slot, boot=self.boot, address=self.address, started_at=time.time())
                session.add(row)
            else:
                self.previous_boot = row.boot
                row.boot, row.address, row.started_at = self.boot, self.address, time.time()
        beats = await read_heartbeats(ctx.writer.engine)
        ctx.heartbeats = {boot: beat for boot, beat in beats.items() if boot != self.boot}
        async with pool_of(ctx).sessions() as session, session.begin():
            if self.previous_boot is not None:
                await session.execute(
                    update(GameTable).where(GameTable.owner == self.previous_boot).values(owner=self.boot)
                )
            await session.execute(
                update(GameTable)
                .where(
                    GameTable.owner.is_(None),
                    GameTable.created_at < time.time() - PLACING_S,  # one being placed is `place`'s
                    GameTable.status.in_(LIVE),
                    GameTable.id % self.workers == self.slot,
                )
                .values(owner=self.boot)
            )
        await self.refresh(ctx)

    async def owned_live(self, ctx: ServerContext) -> list[int]:
        async with pool_of(ctx).engine.connect() as db:
            return list((await db.execute(_LIVE_OWNED_BY, {"boot": self.boot})).scalars())

    async def fence(self, ctx: ServerContext) -> None:
        """Unload the tables another worker has taken over (this one was presumed dead): their sockets
        are closed with `CloseCode.MOVED` and reconnect to the new owner."""
        loaded = list(ctx.tables)
        if not loaded:
            return
        # Its live tables by the owner index, through Core: an IN list naming its 550 loaded tables took
        # 1.9 ms of each tick on PostgreSQL, this 0.7 ms. Only the rest (finished tables still watched,
        # tables taken away) are looked up by id; `owner` is kept on finished tables, so a query of all
        # the tables it owns would grow with every pulya the process has run.
        async with pool_of(ctx).engine.connect() as db:
            owned = set((await db.execute(_LIVE_OWNED_BY, {"boot": self.boot})).scalars())
            others = [table_id for table_id in loaded if table_id not in owned]
            lost: list[int] = []
            for start in range(0, len(others), _FENCE_SLICE):
                rows = await db.execute(_OWNERS_OF, {"ids": others[start : start + _FENCE_SLICE]})
                lost.extend(table_id for table_id, owner in rows if owner != self.boot)
        for table_id in lost:
            actor = ctx.tables.pop(table_id, None)
            if actor is not None:
                log.error("table %s is owned by another worker now: unloaded here", table_id)
                for conn in list(ctx.table_connections.get(table_id, ())):
                    conn.close(CloseCode.MOVED)
                await actor.stop()

    async def orphans(self, ctx: ServerContext) -> list[int]:
        live = [b for b in self.beats if self.live(b)] + [self.boot]
        async with pool_of(ctx).sessions() as session:
            rows = (
                await session.execute(
                    select(GameTable.id, GameTable.owner)
                    .where(
                        GameTable.status.in_(LIVE),
                        (GameTable.owner.is_(None) & (GameTable.created_at < time.time() - PLACING_S))
                        | GameTable.owner.not_in(live),
                    )
                    .order_by(GameTable.id)
                    .limit(ADOPT_PER_TICK * 4)
                )
            ).all()
        settled = time.monotonic() - self.started > self.lease_ms / 1000
        mine = []
        for table_id, owner in rows:
            if owner is None:
                # Nobody's yet: its slot's worker takes it, or anyone once that slot has been dead a while.
                home = self.slots.get(table_id % self.workers)
                if not (table_id % self.workers == self.slot or (settled and not (home and self.live(home)))):
                    continue
            mine.append(table_id)
        return mine[:ADOPT_PER_TICK]

    async def forget_dead(self, ctx: ServerContext) -> None:
        """Heartbeat rows of dead processes that no slot names and that own no live table."""
        async with pool_of(ctx).sessions() as session:
            owning = set(
                (await session.execute(select(GameTable.owner).where(GameTable.status.in_(LIVE)).distinct()))
                .scalars()
                .all()
            )
        dead = [
            b for b in self.beats if not self.live(b) and b not in owning and b not in self.slots.values()
        ]
        await forget_heartbeats(pool_of(ctx).engine, dead)
