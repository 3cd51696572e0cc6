"""A worker's tick (several processes only): once a second it re-reads the workers, unloads the tables
another worker took (the fence), adopts the tables of dead workers, and now and then closes spectators a
room no longer admits and forgets used tickets and dead heartbeats."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy import select

from app.db.models import GameTable, Room
from app.server.accounts.privacy import close_unwelcome_watchers
from app.server.accounts.sessions import forget_used_tickets
from app.server.cluster.ownership import Cluster
from app.server.context import OWN_POOL, Pool, ServerContext, pool_of
from app.server.tables.registry import load_actor

log = logging.getLogger(__name__)

WATCHER_RECHECK_TICKS = 5
HOUSEKEEPING_TICKS = 60


async def run_ticks(ctx: ServerContext, cluster: Cluster, pool: Pool | None = None) -> None:
    """The tick, every ``cluster.interval``, on ``pool`` (its own: issue 26 §1.2) when given."""
    OWN_POOL.set(pool)
    ticks = 0
    while True:
        await asyncio.sleep(cluster.interval)
        ticks += 1
        try:
            await tick(ctx, cluster, ticks)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("worker tick failed")


async def tick(ctx: ServerContext, cluster: Cluster, number: int) -> None:
    await cluster.refresh(ctx)
    await cluster.fence(ctx)
    for table_id in await cluster.orphans(ctx):
        if await cluster.claim(ctx, table_id):
            try:
                await load_actor(ctx, table_id)
            except Exception:
                log.exception("table %s could not be taken over", table_id)
    if number % WATCHER_RECHECK_TICKS == 0:
        await recheck_watchers(ctx)
    if ctx.shared_sockets is not None:
        await ctx.shared_sockets.settle()  # closed sockets' decrements the database missed
    if number % HOUSEKEEPING_TICKS == 0:
        await forget_used_tickets(ctx)
        await cluster.forget_dead(ctx)
        if ctx.shared_sockets is not None:
            await ctx.shared_sockets.forget_gone()


async def recheck_watchers(ctx: ServerContext) -> None:
    """A room turned private (or closed to spectators) at another worker: that worker closed only its
    own tables' spectators; this one closes those of its tables within a few ticks."""
    watched = [
        table_id
        for table_id, actor in list(ctx.tables.items())
        if any(c.seat is None for c in actor.connections)
    ]
    if not watched:
        return
    async with pool_of(ctx).sessions() as session:
        rooms = (
            await session.scalars(
                select(Room).where(Room.id.in_(select(GameTable.room_id).where(GameTable.id.in_(watched))))
            )
        ).all()
        for room in rooms:
            await close_unwelcome_watchers(ctx, session, room)
