"""How the supervisor tells a hung worker (`cluster.hang_watch`): its heartbeat older than the lease and its
own port silent, both; a worker still starting, or one whose port answers, is left alone."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from sqlalchemy import insert

from app.db.engine import make_engine
from app.db.migrate import upgrade
from app.db.models import ServerState, WorkerSlot
from app.server.cluster.hang_watch import HangWatch
from app.server.storage import HEARTBEAT_PREFIX

LEASE = 5.0


async def _workers(url: str, rows: list[tuple[int, str, float, float]]) -> None:
    """``rows``: slot, boot, registered at (wall s), last heartbeat (wall s)."""
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            for slot, boot, registered, beat in rows:
                await conn.execute(
                    insert(WorkerSlot).values(
                        slot=slot, boot=boot, address=f"127.0.0.1:{9000 + slot}", started_at=registered
                    )
                )
                await conn.execute(
                    insert(ServerState).values(key=HEARTBEAT_PREFIX + boot, value=str(int(beat * 1000)))
                )
    finally:
        await engine.dispose()


def test_only_a_silent_worker_that_does_not_answer_is_hung(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'preferans.db'}"
    upgrade(url)
    now = time.time()
    started = {0: now - 60, 1: now - 60, 2: now - 10}
    asyncio.run(
        _workers(
            url,
            [
                (0, "stale", now - 59, now - 20),  # no beat for 20 s
                (1, "beating", now - 59, now - 0.5),
                (2, "before", now - 70, now - 30),  # the previous process's row: slot 2 is starting
            ],
        )
    )
    watch = HangWatch(url, LEASE)
    try:
        silent = watch.silent(started)
        assert [(s.slot, s.boot) for s in silent] == [(0, "stale")] and silent[0].age >= 20
        asked: list[int] = []

        def silent_port(slot: int) -> bool:
            asked.append(slot)
            return False

        assert [h.slot for h in watch.hung(started, silent_port)] == [0]
        assert asked == [0]  # a worker that beats is never probed
        # Its heartbeat stale but its port answering: the database refuses writes, the worker is alive.
        assert watch.hung(started, lambda slot: True) == []
    finally:
        watch.close()


def test_an_unreadable_database_judges_nobody(tmp_path: Path) -> None:
    watch = HangWatch(f"sqlite+aiosqlite:///{tmp_path / 'missing' / 'preferans.db'}", LEASE)
    try:
        assert watch.hung({0: 0.0}, lambda slot: False) == []
    finally:
        watch.close()
