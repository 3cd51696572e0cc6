"""The per-user caps the workers count together (`accounts.shared_caps`), on two engines standing for two
workers: of sockets admitted at once exactly the cap pass, a closed one frees its place, a worker no slot
names is not counted; and a user's sit lease is held by one sit at a time."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from sqlalchemy import event, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.orm import InstrumentedAttribute

from app.db.engine import is_sqlite, make_engine
from app.db.migrate import upgrade
from app.db.models import SitLease, UsedTicket, UserSockets, WorkerSlot
from app.server.accounts.sessions import forget_used_tickets
from app.server.accounts.shared_caps import SharedSockets, sit_lease
from app.server.context import ServerContext


@pytest.fixture
def database(migrated_database: str) -> str:
    return migrated_database


async def _settled(workers: list[SharedSockets]) -> None:
    """Every background decrement stored."""
    for worker in workers:
        while worker._background:
            await asyncio.gather(*worker._background)


def test_two_workers_admit_at_most_the_cap_of_a_users_sockets(database: str) -> None:
    async def scenario() -> None:
        engines = [make_engine(database), make_engine(database)]
        try:
            async with engines[0].begin() as conn:
                for slot, boot in enumerate(("boot-a", "boot-b")):
                    address = f"127.0.0.1:{9000 + slot}"
                    await conn.execute(
                        insert(WorkerSlot).values(
                            slot=slot, boot=boot, address=address, started_at=time.time()
                        )
                    )
            # As the app makes them: on SQLite an admission is one statement, committed as it runs.
            auto = [make_engine(database, autocommit=True) if is_sqlite(database) else None for _ in engines]
            workers = [
                SharedSockets(engines[0], "boot-a", 3, autocommit=auto[0]),
                SharedSockets(engines[1], "boot-b", 3, autocommit=auto[1]),
            ]
            engines += [engine for engine in auto if engine is not None]
            admitted = await asyncio.gather(*(workers[i % 2].admit(7) for i in range(12)))
            await _settled(workers)
            assert sum(admitted) == 3, admitted  # the user's admissions take turns: exactly the cap
            assert not await workers[0].admit(7) and not await workers[1].admit(7)
            assert await workers[0].admit(8)  # another user has his own
            await _settled(workers)
            held = workers[0] if await _count(workers[0], 7) else workers[1]
            held.release(7)
            await _settled(workers)
            other = workers[1 - workers.index(held)]
            assert await other.admit(7)  # the place a socket closed at one worker left, at the other
            # A worker no slot names any more (crashed, replaced) is not counted, and its rows go.
            assert all([await workers[1].admit(9) for _ in range(3)]) and not await workers[0].admit(9)
            async with engines[0].begin() as conn:
                await conn.execute(update(WorkerSlot).where(WorkerSlot.slot == 1).values(boot="boot-c"))
            assert await workers[0].admit(9)
            await _settled(workers)
            assert await _count(workers[1], 9) == 3
            await workers[0].forget_gone()
            assert await _count(workers[1], 9) == 0 and await _count(workers[0], 9) == 1
        finally:
            for engine in engines:
                await engine.dispose()

    asyncio.run(scenario())


async def _count(worker: SharedSockets, user_id: int) -> int:
    async with worker.engine.connect() as conn:
        value = await conn.scalar(
            select(func.coalesce(func.sum(UserSockets.sockets), 0)).where(
                UserSockets.user_id == user_id, UserSockets.boot == worker.boot
            )
        )
    return int(value or 0)


def test_a_users_sit_lease_is_held_by_one_sit_at_a_time(database: str) -> None:
    """Two workers' sits of one user: the second waits until the first gives the lease back; another
    user's sit does not wait; a lease left by a dead worker is taken at once once it has expired."""

    async def scenario() -> None:
        engines = [make_engine(database), make_engine(database)]
        # As the app makes them: on SQLite each worker's lease statements commit as they run.
        auto = [make_engine(database, autocommit=True) if is_sqlite(database) else None for _ in engines]
        order: list[str] = []
        first_in = asyncio.Event()
        let_go = asyncio.Event()

        async def first() -> None:
            async with sit_lease(engines[0], 5, autocommit=auto[0]):
                order.append("first in")
                first_in.set()
                await let_go.wait()
                order.append("first out")

        async def second() -> None:
            await first_in.wait()
            async with sit_lease(engines[1], 5, autocommit=auto[1]):
                order.append("second in")

        try:
            racing = asyncio.gather(first(), second())
            await first_in.wait()
            async with sit_lease(engines[1], 6, autocommit=auto[1]):  # another user: not held up
                order.append("other")
            let_go.set()
            await racing
            assert order == ["first in", "other", "first out", "second in"]
            # A dead worker's sit left its lease behind, expired since: the next sit takes it at once.
            async with engines[0].begin() as conn:
                await conn.execute(insert(SitLease).values(user_id=7, holder="dead", until=time.time() - 1))
            async with sit_lease(engines[1], 7, autocommit=auto[1]):
                holders = await _rows(engines[1], SitLease.holder)
                assert len(holders) == 1 and holders != ["dead"]
            assert await _rows(engines[1], SitLease.holder) == []
        finally:
            for engine in [*engines, *(a for a in auto if a is not None)]:
                await engine.dispose()

    asyncio.run(scenario())


class _LockProbe:
    """After every statement of the engines it listens to, another connection tries SQLite's write lock
    at once (no wait: a lock still held is an error): what it could not take, and the statements run."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, timeout=0)
        self.locked: list[str] = []
        self.statements: list[str] = []

    def listen(self, *engines: AsyncEngine) -> None:
        for engine in engines:
            event.listen(engine.sync_engine, "after_cursor_execute", self._try)

    def _try(self, *args: object) -> None:
        self.statements.append(str(args[2]))
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            self.locked.append(f"{exc}: {args[2]}")


Scenario = Callable[[AsyncEngine, AsyncEngine, "_LockProbe"], Awaitable[None]]


def _probed(tmp_path: Path, scenario: Scenario) -> list[str]:
    """Run ``scenario`` on a fresh SQLite file (worker ``boot-a`` in slot 0) with an engine, an engine whose
    statements commit as they run (as the app makes `ServerContext.autocommit`) and a probe; asserts that
    the probe never found the write lock held, and returns the statements it saw."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'caps.db'}"
    upgrade(url)
    probe = _LockProbe(tmp_path / "caps.db")

    async def run() -> None:
        engine, auto = make_engine(url), make_engine(url, autocommit=True)
        try:
            async with engine.begin() as conn:
                await conn.execute(
                    insert(WorkerSlot).values(slot=0, boot="boot-a", address="127.0.0.1:9000", started_at=0.0)
                )
            await scenario(engine, auto, probe)
        finally:
            await engine.dispose()
            await auto.dispose()

    try:
        asyncio.run(run())
    finally:
        probe.conn.close()
    assert probe.locked == []
    return probe.statements


def test_a_sqlite_admission_holds_no_write_lock_while_the_loop_runs(tmp_path: Path) -> None:
    """SQLite: a socket's admission is committed as its statement runs, so no other worker's commit waits
    on it across the loop's turns (a thousand sockets reconnecting at once made the workers' writers wait
    past the outage threshold): after each of its statements, another connection takes the write lock at
    once. Nothing is counted twice or lost by it: the count above holds on this path too."""

    async def scenario(engine: AsyncEngine, auto: AsyncEngine, probe: _LockProbe) -> None:
        sockets = SharedSockets(engine, "boot-a", 2, autocommit=auto)
        probe.listen(auto)
        assert [await sockets.admit(4) for _ in range(3)] == [True, True, False]
        sockets.release(4)
        await _settled([sockets])
        assert await _count(sockets, 4) == 1

    statements = _probed(tmp_path, scenario)
    assert len(statements) == 3 + 2  # one statement an admission; the decrement and the emptied row


def test_sqlite_sits_and_housekeeping_hold_no_write_lock_while_the_loop_runs(tmp_path: Path) -> None:
    """SQLite with several workers: a sit's lease (taken, given back), the tick's housekeeping (the rows
    of workers gone, the used tickets expired) and a stopping worker's rows are one statement each,
    committed as it runs, as an admission is; each does what it did in a transaction before."""

    async def scenario(engine: AsyncEngine, auto: AsyncEngine, probe: _LockProbe) -> None:
        ctx = cast(ServerContext, SimpleNamespace(engine=engine, sessions=None, autocommit=auto))
        async with engine.begin() as conn:
            await conn.execute(
                insert(UserSockets), [{"user_id": 4, "boot": b, "sockets": 1} for b in ("boot-a", "gone")]
            )
            await conn.execute(
                insert(UsedTicket),
                [{"nonce": "old", "expires_at": time.time() - 120}, {"nonce": "new", "expires_at": 1e12}],
            )
        probe.listen(engine, auto)
        async with sit_lease(engine, 5, autocommit=auto):
            assert await _rows(engine, SitLease.user_id) == [5]
        assert await _rows(engine, SitLease.user_id) == []
        sockets = SharedSockets(engine, "boot-a", 2, autocommit=auto)
        await sockets.forget_gone()
        assert await _rows(engine, UserSockets.boot) == ["boot-a"]
        await forget_used_tickets(ctx)
        assert await _rows(engine, UsedTicket.nonce) == ["new"]
        await sockets.close()
        assert await _rows(engine, UserSockets.boot) == []

    statements = _probed(tmp_path, scenario)
    writes = [s for s in statements if not s.lstrip().upper().startswith("SELECT")]
    assert len(writes) == 5, writes  # the lease taken and given back, two deletes of rows, one of tickets


async def _rows(engine: AsyncEngine, column: InstrumentedAttribute[Any]) -> list[Any]:
    async with engine.connect() as conn:
        return list((await conn.execute(select(column).order_by(column))).scalars())
