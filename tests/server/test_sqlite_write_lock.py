"""The SQLite writer's batch (issue 24) waits for SQLite's one write lock in the writer's thread, never on
the event loop (where the driver's busy timeout would stop every table for up to 30 s). Another
connection holds the lock; the writer's commit waits while the loop goes on, and commits once it is free.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from sqlalchemy import select

from app.db.engine import make_writer_engine
from app.db.migrate import upgrade
from app.server.storage import GroupWriter
from app.server.storage.heartbeats import HEARTBEAT_PREFIX
from app.server.storage.schema import STATE
from app.server.storage.step_write import StepWrite
from app.server.timebase import WallMs


async def _stored_beat(writer: GroupWriter) -> str:
    async with writer.engine.connect() as conn:
        value: str = (
            await conn.execute(select(STATE.c.value).where(STATE.c.key == HEARTBEAT_PREFIX + writer.boot.id))
        ).scalar_one()
    return value


async def test_a_batch_waits_for_the_write_lock_in_its_thread_while_the_loop_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "preferans.db"
    url = f"sqlite+aiosqlite:///{path}"
    await asyncio.to_thread(upgrade, url)
    writer = GroupWriter(make_writer_engine(url), window_ms=0.0, heartbeat_s=3600.0)
    await writer.start()
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        holder.execute("BEGIN IMMEDIATE")  # SQLite's one write lock, held by another connection
        beat = WallMs(writer.time.wall() + 1_000)
        writer._beat = beat  # the batch writes the heartbeat row: it needs the lock
        commit = asyncio.create_task(writer.commit(1, None, StepWrite()))

        # The writer takes the batch, and the loop then turns many times while the batch waits (a wait on
        # the loop would stop these turns for as long as the lock is held, up to the driver's 30 s busy
        # timeout, and the batch would have failed by then).
        async with asyncio.timeout(60):
            while not writer._queue.empty():
                await asyncio.sleep(0)
        for _ in range(200):
            await asyncio.sleep(0)
        assert not commit.done(), "the batch committed while another connection held the write lock"
        assert writer.batches == 0

        await asyncio.to_thread(holder.execute, "ROLLBACK")
        async with asyncio.timeout(60):
            await commit
        assert writer.batches == 1
        assert await _stored_beat(writer) == str(beat)

        # The writer's connection is out of its transaction: the next batch commits too.
        await writer.commit(1, None, StepWrite())
        assert writer.batches == 2
        holder.execute("BEGIN IMMEDIATE")  # and the writer holds no lock between batches
        holder.execute("ROLLBACK")
    finally:
        holder.close()
        await writer.close()
        await writer.engine.dispose()
