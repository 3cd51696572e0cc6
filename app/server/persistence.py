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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    Executable,
    Select,
    Table,
    and_,
    bindparam,
    delete,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from app.clock import ReserveClock
from app.db.engine import make_sqlite_batch_engine
from app.db.models import (
    ActionRecord,
    AuditEntry,
    Award,
    DealRecord,
    GameTable,
    InterruptedDeal,
    ServerState,
    TableSeat,
)
from app.table import Game, Step

log = logging.getLogger(__name__)

_ACTIONS: Table = ActionRecord.__table__  # type: ignore[assignment]
_DEALS: Table = DealRecord.__table__  # type: ignore[assignment]
_INTERRUPTED: Table = InterruptedDeal.__table__  # type: ignore[assignment]
_SEATS: Table = TableSeat.__table__  # type: ignore[assignment]
_AWARDS: Table = Award.__table__  # type: ignore[assignment]
_AUDIT: Table = AuditEntry.__table__  # type: ignore[assignment]
_TABLES: Table = GameTable.__table__  # type: ignore[assignment]
_STATE: Table = ServerState.__table__  # type: ignore[assignment]

HEARTBEAT_PREFIX = "heartbeat:"


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Boot:
    """This server process: its id (names its heartbeat row) and how to map its monotonic instants to the
    wall clock, which survives the process."""

    id: str = field(default_factory=lambda: secrets.token_hex(8))

    def wall_of(self, mono: int, now_mono: int) -> int:
        return wall_ms() - (now_mono - mono)


def clock_record(clock: ReserveClock, boot: Boot, now_mono: int) -> dict[str, Any]:
    """The clock as stored on the table's row: its JSON plus, while a seat runs, the turn's start on the
    wall clock and the process that started it (whose last heartbeat bounds the charge after a crash)."""
    data = clock.to_json()
    if clock.running is not None and clock.since is not None:
        data["wall"] = {"boot": boot.id, "since_ms": boot.wall_of(clock.since, now_mono)}
    return data


def charge_after_crash(stored: dict[str, Any], heartbeats: dict[str, int]) -> int:
    """How long the running seat thought before the crash, as far as the server can prove: from the turn's
    start to the writing process's last heartbeat (0 when it never beat after the turn started)."""
    wall = stored.get("wall")
    if not isinstance(wall, dict):
        return 0
    beat = heartbeats.get(str(wall.get("boot")))
    since = wall.get("since_ms")
    if beat is None or not isinstance(since, int):
        return 0
    return max(0, beat - since)


@dataclass(slots=True)
class StepWrite:
    """What one step writes: rows to insert and table fields to set, committed in one transaction."""

    actions: list[dict[str, Any]] = field(default_factory=list)
    deals: list[dict[str, Any]] = field(default_factory=list)
    interrupted: list[dict[str, Any]] = field(default_factory=list)
    seats: list[dict[str, Any]] = field(default_factory=list)
    table: dict[str, Any] = field(default_factory=dict)
    seat_removed: int | None = None
    seat_seq: tuple[int, int] | None = None  # (seat, client seq) applied by this step
    adjudications: dict[int, dict[str, Any]] = field(default_factory=dict)  # archive row id -> award
    # The award's entry in the deal's history of awards and its audit line: stored with the award itself.
    award_rows: list[dict[str, Any]] = field(default_factory=list)
    audit_rows: list[dict[str, Any]] = field(default_factory=list)

    def add_step(
        self,
        table_id: int,
        before: Game | None,
        result: Step,
        *,
        first_seq: int,
        users: list[int | None],
        clock: dict[str, Any],
        client_seq: int | None = None,
    ) -> int:
        """Add a table step's rows (``before``: the game it started from, None for the game's start;
        ``clock``: the game's clock as `clock_record` stores it); returns how many actions it stores (the
        caller advances its action sequence by that after the commit)."""
        game = result.game
        now = time.time()
        sheet_json = None if before is not None and game.sheet is before.sheet else game.sheet.to_json()
        last = len(result.applied) - 1
        for i, applied in enumerate(result.applied):
            by_player = applied.seat is not None
            self.actions.append(
                {
                    "table_id": table_id,
                    "seq": first_seq + i,
                    "action": applied.action.to_json(),
                    "user_id": users[applied.seat] if applied.seat is not None else None,
                    "client_seq": client_seq if by_player else None,
                    "by_server": not by_player,
                    "at": now,
                    "clock": applied.clock.to_json(),
                    # The sheet changes only when a deal ends: stored then, not with every card.
                    "sheet": sheet_json if i == last else None,
                }
            )
        for deal in result.deals:
            self.deals.append(
                {
                    "table_id": table_id,
                    "deal_number": deal.deal_number,
                    "result": deal.result.to_json(),
                    "record": deal.record,
                    "at": now,
                }
            )
        for record in result.archived:
            self.interrupted.append(
                {
                    "table_id": table_id,
                    "deal_number": record.deal_number,
                    "reason": record.reason[:255],
                    "record": record.to_json(),
                    "clock": record.clocks,
                    "at": now,
                }
            )
        self.table["clock"] = clock
        if before is None or game.status is not before.status:
            self.table["status"] = game.status.value
        if sheet_json is not None:
            self.table["sheet"] = sheet_json
        if result.started:
            self.table["started_at"] = now
        if game.outcome is not None and (before is None or game.outcome is not before.outcome):
            self.table["finish_reason"] = game.outcome.termination.value
            self.table["settlement"] = game.outcome.settlement
            if before is None or before.outcome is None:
                self.table["finished_at"] = now
        return len(result.applied)


class WriteRefused(Exception):
    """The writer is closed or its queue is full: nothing was stored."""


class TableMoved(WriteRefused):
    """Another worker process owns the table now: its step was not stored here."""


@dataclass(slots=True)
class _Pending:
    table_id: int
    version: int | None  # None: the table's version is left as it is
    write: StepWrite
    done: asyncio.Future[None]


class GroupWriter:
    """One writer for every table of this process (module docstring)."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        boot: Boot | None = None,
        window_ms: float = 2.0,
        max_batch: int = 512,
        max_waiting: int = 20_000,
        heartbeat_s: float = 1.0,
    ) -> None:
        self.engine = engine
        self.boot = boot or Boot()
        self.window = window_ms / 1000.0
        self.max_batch = max_batch
        self.heartbeat_s = heartbeat_s
        self._queue: asyncio.Queue[_Pending] = asyncio.Queue(maxsize=max_waiting)
        self._beat: int | None = None  # a heartbeat to write with the next batch
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.batches = 0
        self.committed = 0
        self._closing = False
        # With several worker processes: this process's boot id, the owner every table it writes must still
        # have (`app.server.cluster`); a batch's rows of a table taken over meanwhile are not written.
        self.owner: str | None = None
        # Since when (monotonic ms) every batch has failed, heartbeats included: None while commits succeed.
        # A table that could not store freezes its clocks from then, not from its own first failure.
        self.failing_since: int | None = None
        # SQLite: batches go to one thread with a synchronous engine (`make_sqlite_batch_engine`).
        self._batch_engine: Engine | None = make_sqlite_batch_engine(engine)
        self._batch_thread = (
            None if self._batch_engine is None else ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")
        )

    async def start(self) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                insert(_STATE), [{"key": HEARTBEAT_PREFIX + self.boot.id, "value": str(wall_ms())}]
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
            self._batch_engine.dispose()

    async def commit(self, table_id: int, version: int | None, write: StepWrite) -> None:
        """Store ``write`` (and the table's new ``version``); returns once committed, raises if not."""
        if not self._tasks:
            raise WriteRefused("the writer is not running")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        try:
            self._queue.put_nowait(_Pending(table_id, version, write, done))
        except asyncio.QueueFull:
            raise WriteRefused("too many writes are waiting; try again") from None
        self._wake.set()
        await done

    async def stored_version(self, table_id: int) -> int | None:
        """The table's version as committed (None: no such table): what a commit with an unknown outcome
        did is read back from here."""
        async with self.engine.connect() as conn:
            version: int | None = (
                await conn.execute(select(_TABLES.c.version).where(_TABLES.c.id == table_id))
            ).scalar_one_or_none()
        return version

    # ---- the loop -----------------------------------------------------------------------------------

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_s)
            self._beat = wall_ms()
            self._wake.set()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if not self._queue.empty() or self._beat is not None:
                if self.window > 0 and self._queue.qsize() < self.max_batch and not self._closing:
                    # Let the other tables' steps of this instant join the batch.
                    await asyncio.sleep(self.window)
                while not self._queue.empty() or self._beat is not None:
                    await self._write_batch(self._take())
            if self._closing and self._queue.empty():
                return

    def _take(self) -> list[_Pending]:
        batch: list[_Pending] = []
        while len(batch) < self.max_batch and not self._queue.empty():
            batch.append(self._queue.get_nowait())
        return batch

    async def _write_batch(self, batch: list[_Pending]) -> None:
        beat, self._beat = self._beat, None
        tail: list[_Statement] = []
        if beat is not None:
            tail.append(
                (
                    update(_STATE)
                    .where(_STATE.c.key == HEARTBEAT_PREFIX + self.boot.id)
                    .values(value=str(beat)),
                    None,
                )
            )
        fence = _Fence(self.owner, batch, tail)
        try:
            if self._batch_thread is not None and self._batch_engine is not None:
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(self._batch_thread, _run_sync, self._batch_engine, fence)
            else:
                async with self.engine.begin() as conn:
                    if fence.query is not None:
                        fence.exclude((await conn.execute(fence.query, fence.params)).scalars().all())
                    for statement, rows in fence.statements():
                        await conn.execute(statement, rows)
        except Exception as exc:
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
            if self.failing_since is None:
                self.failing_since = time.monotonic_ns() // 1_000_000
            log.error("group commit of %d writes failed: %s", len(batch), exc)
            for pending in batch:
                if not pending.done.done():
                    pending.done.set_exception(exc)
            return
        self.failing_since = None
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


_Statement = tuple[Executable, list[dict[str, Any]] | None]


# Built once: built for every batch it left its bound parameters in reference cycles, and the cycle
# collector's passes over them held the loop 40-110 ms every ~15 s (README "Capacity").
_NOT_OWNED = (
    select(_TABLES.c.id)
    .where(
        _TABLES.c.id.in_(bindparam("ids", expanding=True)),
        or_(_TABLES.c.owner.is_(None), _TABLES.c.owner != bindparam("owner")),
    )
    .with_for_update()
)


class _Fence:
    """A batch's statements, less those of tables this process no longer owns. The owners are read in the
    batch's own transaction, locked on PostgreSQL (``FOR UPDATE``: a takeover waits for the commit, then
    finds this process still the owner and takes the table with the batch in it); on SQLite a takeover
    committed after the read makes the batch's first write fail, and the batch is tried again."""

    def __init__(self, owner: str | None, batch: list[_Pending], tail: list[_Statement]) -> None:
        self.batch = batch
        self.tail = tail
        self.moved: set[int] = set()
        ids = sorted({p.table_id for p in batch})
        self.query: Select[Any] | None = _NOT_OWNED if owner is not None and ids else None
        self.params = {"ids": ids, "owner": owner}

    def exclude(self, moved: Iterable[Any]) -> None:
        self.moved = {int(table_id) for table_id in moved}

    def statements(self) -> list[_Statement]:
        kept = [p for p in self.batch if p.table_id not in self.moved]
        return _statements(kept) + self.tail


def _run_sync(engine: Engine, fence: _Fence) -> None:
    with engine.begin() as conn:
        if fence.query is not None:
            fence.exclude(conn.execute(fence.query, fence.params).scalars().all())
        _execute_all(conn, fence.statements())


def _execute_all(conn: Connection, statements: list[_Statement]) -> None:
    for statement, rows in statements:
        conn.execute(statement, rows)


def _statements(batch: Iterable[_Pending]) -> list[_Statement]:
    """One batch as a handful of ``executemany`` statements, in an order the foreign keys accept."""
    actions: list[dict[str, Any]] = []
    deals: list[dict[str, Any]] = []
    interrupted: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []
    removed: list[dict[str, Any]] = []
    seqs: list[dict[str, Any]] = []
    awards: list[dict[str, Any]] = []
    award_rows: list[dict[str, Any]] = []
    audit_rows: list[dict[str, Any]] = []
    tables: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for pending in batch:
        write, table_id = pending.write, pending.table_id
        actions += write.actions
        deals += write.deals
        interrupted += write.interrupted
        seats += write.seats
        if write.seat_removed is not None:
            removed.append({"t": table_id, "s": write.seat_removed})
        if write.seat_seq is not None:
            seqs.append({"t": table_id, "s": write.seat_seq[0], "q": write.seat_seq[1]})
        awards += [{"i": row_id, "a": award} for row_id, award in write.adjudications.items()]
        award_rows += write.award_rows
        audit_rows += write.audit_rows
        fields = dict(write.table)
        if pending.version is not None:
            fields["version"] = pending.version
        if fields:
            # Rows that set the same columns go in one statement.
            tables[tuple(sorted(fields))].append({"t": table_id, **{f"v_{k}": v for k, v in fields.items()}})
    out: list[_Statement] = []
    out += _inserts(_SEATS, seats)
    if removed:
        seat_row = and_(_SEATS.c.table_id == bindparam("t"), _SEATS.c.seat == bindparam("s"))
        out.append((delete(_SEATS).where(seat_row), removed))
    out += _inserts(_ACTIONS, actions)
    out += _inserts(_DEALS, deals)
    out += _inserts(_INTERRUPTED, interrupted)
    if seqs:
        out.append(
            (
                update(_SEATS)
                .where(and_(_SEATS.c.table_id == bindparam("t"), _SEATS.c.seat == bindparam("s")))
                .values(last_client_seq=bindparam("q")),
                seqs,
            )
        )
    if awards:
        adjudicate = update(_INTERRUPTED).where(_INTERRUPTED.c.id == bindparam("i"))
        out.append((adjudicate.values(adjudication=bindparam("a")), awards))
    out += _inserts(_AWARDS, award_rows)
    out += _inserts(_AUDIT, audit_rows)
    for columns, rows in tables.items():
        out.append(
            (
                update(_TABLES)
                .where(_TABLES.c.id == bindparam("t"))
                .values({column: bindparam(f"v_{column}") for column in columns}),
                rows,
            )
        )
    return out


def _inserts(table: Table, rows: list[dict[str, Any]]) -> list[_Statement]:
    """Inserts of rows, leaving out None values: a JSON column given None would store JSON ``null``, not SQL
    NULL (what the queries for "no sheet", "not adjudicated" look for); rows with the same columns go in
    one ``executemany``."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        present = {k: v for k, v in row.items() if v is not None}
        groups[tuple(present)].append(present)
    return [(insert(table), group) for group in groups.values()]


async def read_heartbeats(engine: AsyncEngine) -> dict[str, int]:
    """Every process's last heartbeat (wall ms) by process id."""
    async with engine.connect() as conn:
        rows = (await conn.execute(select(_STATE.c.key, _STATE.c.value).where(
            _STATE.c.key.startswith(HEARTBEAT_PREFIX)))).all()  # fmt: skip
    beats: dict[str, int] = {}
    for key, value in rows:
        with contextlib.suppress(ValueError):
            beats[key[len(HEARTBEAT_PREFIX) :]] = int(value)
    return beats


async def forget_heartbeats(engine: AsyncEngine, boots: Iterable[str]) -> None:
    """Drop the rows of dead processes once their tables have been recovered."""
    keys = [HEARTBEAT_PREFIX + b for b in boots]
    if keys:
        async with engine.begin() as conn:
            await conn.execute(delete(_STATE).where(_STATE.c.key.in_(keys)))
