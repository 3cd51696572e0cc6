"""Storing the tables' steps: group commit through one writer, committed before anything is acknowledged.

`StepWrite` collects the rows and table fields of one step (seats, actions with the clocks after each,
ended deals, archived interrupted deals, awards, the table's version, status, clock, sheet, settlement).
`GroupWriter` takes the writes of every table, commits those that are waiting together in one transaction
(plain SQLAlchemy Core ``executemany``, no ORM unit of work), and only then answers each table: a table
acknowledges and publishes only what is committed, and a batch that fails answers every one of its tables
with the error (each keeps its state as before the step; nothing of the batch is stored).

The writer also keeps this process's heartbeat (one row, one update a second, in the same batches): after
a crash the running seat of every table is charged from its turn's start (stored on the wall clock with
each step, `clock_record`) up to the last heartbeat, and never for the downtime (RULES §8.1).

The writer is also where the server first sees its database away (RULES §8.6): a batch that fails, or one
that has not been answered after ``stall_s`` (a hung database fails nothing), marks the outage from the
last instant the database answered (`failing_since`), and the first batch committed after it ends the
outage; ``on_outage`` hears both moments (every live table freezes and thaws its clocks).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.engine import make_sqlite_batch_engine
from app.server.storage.batch import HEARTBEAT, Fence, HeldConnection, Pending, Statement
from app.server.storage.clock_rows import Boot
from app.server.storage.heartbeats import HEARTBEAT_PREFIX
from app.server.storage.pg_batch import run_asyncpg
from app.server.storage.schema import STATE, TABLES
from app.server.storage.step_write import StepWrite
from app.server.timebase import SYSTEM_TIME, MonoMs, Timestamper, WallMs

log = logging.getLogger(__name__)


class WriteRefused(Exception):
    """The writer is closed or its queue is full: nothing was stored."""


class TableMoved(WriteRefused):
    """Another worker process owns the table now: its step was not stored here."""


class GroupWriter:
    """One writer for every table of this process (module docstring)."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        boot: Boot | None = None,
        time: Timestamper = SYSTEM_TIME,
        window_ms: float = 2.0,
        interval_ms: float = 0.0,
        max_batch: int = 512,
        max_waiting: int = 20_000,
        heartbeat_s: float = 1.0,
        stall_s: float = 2.0,
    ) -> None:
        self.engine = engine
        self.boot = boot or Boot()
        self.time = time
        self.window = window_ms / 1000.0
        # Under load (the last batch held several tables' steps), the least time from one batch's start to
        # the next one's: a commit's cost is mostly its own (on SQLite the WAL's fsync and pages, 0.2-0.3 ms
        # of CPU whether it stores 1 step or 20), so fewer, larger batches cost less CPU per step (issue
        # 24). A step that comes alone (one table, a quiet server) is not held for it.
        self.interval = interval_ms / 1000.0
        self._started_at = float("-inf")  # the loop's time when the last batch was taken
        self._last_size = 0  # the steps in it
        self.max_batch = max_batch
        self.heartbeat_s = heartbeat_s
        self.stall_s = stall_s
        self._queue: asyncio.Queue[Pending] = asyncio.Queue(maxsize=max_waiting)
        self._beat: WallMs | None = None  # a heartbeat to write with the next batch
        self._wake = asyncio.Event()
        # Set by `close` and by a commit that fills a batch: the writer stops waiting for more steps.
        self._hurry = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.batches = 0
        self.committed = 0
        self._closing = False
        # With several worker processes: this process's boot id, the owner every table it writes must
        # still have (`app.server.cluster.ownership`); a batch's rows of a table taken over meanwhile are
        # not written.
        self.owner: str | None = None
        # Since when (monotonic ms) the database has not answered — the end of the last batch it committed
        # (a batch failed or stalled since, heartbeats included): None while commits succeed. A table that
        # cannot store freezes its clocks from then, not from its own first failure.
        self.failing_since: MonoMs | None = None
        self._answered: MonoMs = self.time.mono()
        # Told when the database is first seen away (with `failing_since`) and when it stores again (None).
        self.on_outage: Callable[[MonoMs | None], None] | None = None
        # SQLite: batches go to one thread with a synchronous engine (`make_sqlite_batch_engine`).
        self._batch_engine: Engine | None = make_sqlite_batch_engine(engine)
        self._batch_thread = (
            None if self._batch_engine is None else ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")
        )
        self._batch_conn = None if self._batch_engine is None else HeldConnection(self._batch_engine)

    async def start(self) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                insert(STATE), [{"key": HEARTBEAT_PREFIX + self.boot.id, "value": str(self.time.wall())}]
            )
        self._tasks = [
            asyncio.create_task(self._run(), name="group-writer"),
            asyncio.create_task(self._heartbeat(), name="heartbeat"),
        ]

    async def close(self) -> None:
        """Commit what is waiting, then stop (the writer's loop ends once it has answered every batch it
        took: a batch is never cut off between its commit and its answers)."""
        for task in self._tasks[1:]:
            task.cancel()
            await asyncio.wait({task})
        self._closing = True
        self._hurry.set()
        self._wake.set()
        if self._tasks:
            await asyncio.wait({self._tasks[0]})
        self._tasks = []
        while not self._queue.empty():  # anything that raced the stop gets its answer
            pending = self._queue.get_nowait()
            if not pending.done.done():
                pending.done.set_exception(WriteRefused("the server is stopping"))
        if self._batch_thread is not None and self._batch_engine is not None:
            await asyncio.to_thread(self._batch_thread.shutdown, True)
            if self._batch_conn is not None:  # its thread is done: nothing uses the connection now
                await asyncio.to_thread(self._batch_conn.close)
            self._batch_engine.dispose()

    async def commit(self, table_id: int, version: int | None, write: StepWrite) -> None:
        """Store ``write`` (and the table's new ``version``); returns once committed, raises if not."""
        if not self._tasks:
            raise WriteRefused("the writer is not running")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        try:
            self._queue.put_nowait(Pending(table_id, version, write, done))
        except asyncio.QueueFull:
            raise WriteRefused("too many writes are waiting; try again") from None
        if self._queue.qsize() >= self.max_batch:
            self._hurry.set()
        self._wake.set()
        await done

    async def stored_version(self, table_id: int) -> int | None:
        """The table's version as committed (None: no such table): what a commit with an unknown outcome
        did is read back from here."""
        async with self.engine.connect() as conn:
            version: int | None = (
                await conn.execute(select(TABLES.c.version).where(TABLES.c.id == table_id))
            ).scalar_one_or_none()
        return version

    # ---- the loop -----------------------------------------------------------------------------------

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_s)
            self._beat = self.time.wall()
            self._wake.set()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if not self._queue.empty() or self._beat is not None:
                # Let the other tables' steps of this instant join the batch.
                await self._gather(self.window)
                while not self._queue.empty() or self._beat is not None:
                    await self._gather(0.0)
                    self._started_at = asyncio.get_running_loop().time()
                    batch = self._take()
                    self._last_size = len(batch)
                    await self._write_batch(batch)
            if self._closing and self._queue.empty():
                return

    async def _gather(self, window: float) -> None:
        """Wait ``window`` and, under load, at least until `interval` since the last batch began, unless
        the batch is full already or the writer is closing."""
        paced = self._started_at + self.interval if self._last_size > 1 else float("-inf")
        wait = max(window, paced - asyncio.get_running_loop().time())
        if wait > 0 and self._queue.qsize() < self.max_batch and not self._closing:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self._hurry.wait()
        if not self._closing:
            self._hurry.clear()

    def _take(self) -> list[Pending]:
        batch: list[Pending] = []
        while len(batch) < self.max_batch and not self._queue.empty():
            batch.append(self._queue.get_nowait())
        return batch

    async def _write_batch(self, batch: list[Pending]) -> None:
        beat, self._beat = self._beat, None
        tail: list[Statement] = []
        if beat is not None:
            tail.append((HEARTBEAT, [{"k": HEARTBEAT_PREFIX + self.boot.id, "v": str(beat)}]))
        fence = Fence(self.owner, batch, tail)
        # A hung database fails nothing: a batch still unanswered after `stall_s` is an outage too.
        stalled = asyncio.get_running_loop().call_later(self.stall_s, self._database_away)
        try:
            if self._batch_thread is not None and self._batch_conn is not None:
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(self._batch_thread, self._batch_conn.run, fence)
            elif not await run_asyncpg(self.engine, fence):
                async with self.engine.begin() as conn:
                    if fence.query is not None:
                        fence.exclude((await conn.execute(fence.query, fence.params)).scalars().all())
                    for statement, rows in fence.statements():
                        await conn.execute(statement, rows)
        except Exception as exc:
            stalled.cancel()
            if isinstance(exc, IntegrityError) and len(batch) > 1:
                # One table's bad row must not fail the others: each alone, once.
                log.warning(
                    "group commit of %d writes failed (%s); committing them one by one", len(batch), exc
                )
                if beat is not None and self._beat is None:
                    self._beat = beat  # written with the first of them
                for pending in batch:
                    await self._write_batch([pending])
                return
            if not isinstance(exc, IntegrityError):  # a refused row is no outage: the database answered
                self._database_away()
            log.error("group commit of %d writes failed: %s", len(batch), exc)
            for pending in batch:
                if not pending.done.done():
                    pending.done.set_exception(exc)
            return
        stalled.cancel()
        self._answered = self.time.mono()
        self.batches += 1
        self.committed += len(batch) - len(fence.moved)
        for pending in batch:
            if pending.done.done():
                continue
            if pending.table_id in fence.moved:
                moved = TableMoved(f"table {pending.table_id} is run by another worker now")
                pending.done.set_exception(moved)
            else:
                pending.done.set_result(None)
        if self.failing_since is not None:
            self.failing_since = None
            log.warning("the database stores again")
            self._tell(None)

    def _database_away(self) -> None:
        if self.failing_since is not None:
            return
        self.failing_since = self._answered
        log.error("the database does not answer (a batch failed or has waited %.1f s)", self.stall_s)
        self._tell(self._answered)

    def _tell(self, since: MonoMs | None) -> None:
        if self.on_outage is not None:
            try:
                self.on_outage(since)
            except Exception:  # a listener's bug must not stop the writer
                log.exception("the outage listener failed")
