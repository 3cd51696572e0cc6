"""Group commit (issue 14 §1), in process: several tables' actions commit in one batch; a batch that fails
acknowledges none of them, tells each sender with a typed error and leaves every table as it was.

The database "goes away" for the actions table only (renamed, then renamed back): every write of the
batch fails, deterministically, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest
from sqlalchemy import event, func, select, text
from sqlalchemy.exc import IntegrityError

from app.auth.roles import Role
from app.auth.users import create_user
from app.db.engine import make_engine, make_sessionmaker, make_writer_engine
from app.db.migrate import upgrade
from app.db.models import ActionRecord, GameTable, Room
from app.engine.conventions import conventions_from
from app.server.connections.connection import Connection
from app.server.context import ServerContext
from app.server.http.shared_answers import SharedAnswers
from app.server.settings import Settings
from app.server.storage import GroupWriter, charge_after_crash, clock_record
from app.server.storage.step_write import StepWrite
from app.server.tables.commands import Act, Connect, Sit
from app.server.tables.registry import get_actor, shutdown_all
from app.server.timebase import MonoMs, WallMs, wall_ms
from tests.server.helpers import until

TABLES = 3


@dataclass(eq=False)  # hashable by identity, as the actor keeps connections in a set
class FakeConnection:
    """What the actor needs of a connection: who it is, its seat, and where its frames go."""

    user_id: int
    seat: int | None = None
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    frames: list[dict[str, Any]] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    resync_pending: bool = False

    def send(self, message: Any) -> None:
        if isinstance(message, str):
            data = json.loads(message)
        elif isinstance(message, dict):
            data = message
        else:
            data = message.model_dump(mode="json")
        self.frames.append(data)
        self.arrived.set()

    def hold(self) -> None:  # the frames are recorded as sent: there is no socket to write them to
        pass

    def release(self) -> None:
        pass

    def close(self) -> None:
        self.closed.set()

    async def next(self, kind: str, timeout: float = 30.0) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                for i, frame in enumerate(self.frames):
                    if frame["type"] == kind:
                        return self.frames.pop(i)
                self.arrived.clear()
                await self.arrived.wait()


def as_connection(fake: FakeConnection) -> Connection:
    """The actor's commands name a `Connection`; the fake has all of one the actor uses."""
    return cast(Connection, fake)


@pytest.fixture
def database_url(migrated_database: str) -> str:
    return migrated_database


@pytest.fixture
async def ctx(database_url: str) -> AsyncIterator[ServerContext]:
    engine = make_engine(database_url)
    # A wide window: the test's actions, sent together, land in one batch.
    writer = GroupWriter(make_writer_engine(database_url), window_ms=200.0)
    context = ServerContext(
        settings=Settings(database_url=database_url),
        engine=engine,
        sessions=make_sessionmaker(engine),
        token_secret="test-secret",
        solver_executor=ThreadPoolExecutor(max_workers=1),
        passwords=cast(Any, None),
        auth_by_address=cast(Any, None),
        auth_by_name=cast(Any, None),
        tickets=cast(Any, None),
        writer=writer,
        answers=SharedAnswers(0),
    )
    await writer.start()
    try:
        yield context
    finally:
        await shutdown_all(context)
        await writer.close()
        await writer.engine.dispose()
        await engine.dispose()


async def _started_tables(ctx: ServerContext) -> list[tuple[int, list[FakeConnection]]]:
    """TABLES started tables with a connection per seat (each holding its snapshot)."""
    async with ctx.sessions() as session, session.begin():
        users = [await create_user(session, f"gc{i}", "player-password", Role.PLAYER) for i in range(3)]
        operator = await create_user(session, "gcop", "player-password", Role.OPERATOR)
        await session.flush()
        conventions = conventions_from("fspr-leningrad", {"deal_time": 600})
        room = Room(name="gc", operator_id=operator.id, preset="fspr-leningrad", overrides={},
                    conventions=conventions.model_dump(mode="json"), created_at=time.time())  # fmt: skip
        session.add(room)
        await session.flush()
        rows = [
            GameTable(
                room_id=room.id,
                seats=3,
                conventions=room.conventions,
                first_dealer=0,
                status="waiting",
                version=0,
                created_at=time.time(),
            )
            for _ in range(TABLES)
        ]
        session.add_all(rows)
        await session.flush()
        ids = [row.id for row in rows]
        user_ids = [(u.id, u.name) for u in users]
    tables = []
    loop = asyncio.get_running_loop()
    for table_id in ids:
        actor = await get_actor(ctx, table_id)
        assert actor is not None
        conns = [FakeConnection(user_id) for user_id, _ in user_ids]
        for seat, (user_id, name) in enumerate(user_ids):
            reply: asyncio.Future[int] = loop.create_future()
            actor.submit(Sit(user_id, name, seat, reply))
            assert await reply == seat
        for conn in conns:
            actor.submit(Connect(as_connection(conn)))
        tables.append((table_id, conns))
    return tables


async def _count_actions(ctx: ServerContext) -> int:
    async with ctx.sessions() as session:
        return int((await session.execute(select(func.count()).select_from(ActionRecord))).scalar_one())


async def test_a_failed_batch_acknowledges_nothing_and_changes_no_table(ctx: ServerContext) -> None:
    tables = await _started_tables(ctx)
    moves = []
    for table_id, conns in tables:
        snapshots = [await conn.next("snapshot") for conn in conns]
        (seat,) = [s for s, snap in enumerate(snapshots) if snap["legal"]]
        actor = ctx.tables[table_id]
        moves.append((actor, conns[seat], snapshots[seat]["legal"][0], actor.version, actor.game))
    stored = await _count_actions(ctx)

    async with ctx.engine.begin() as db:
        await db.execute(text("ALTER TABLE actions RENAME TO actions_away"))
    batches = ctx.writer.batches
    for actor, conn, action, _, _ in moves:
        actor.submit(Act(as_connection(conn), 1, action))
    errors = [await conn.next("error") for _, conn, _, _, _ in moves]
    assert [(e["code"], e["seq"]) for e in errors] == [("server_error", 1)] * TABLES
    for actor, conn, _, version, game in moves:
        assert not [f for f in conn.frames if f["type"] in ("ack", "update")]
        assert actor.version == version and actor.seating.last_seq == (0, 0, 0)
        # The game is as before; its clocks are frozen while the table cannot store.
        assert actor.game is not None and game is not None
        assert actor.game.state is game.state and actor.game.sheet is game.sheet
        assert actor.game.clock.frozen and not game.clock.frozen
    assert ctx.writer.batches == batches  # nothing committed meanwhile

    async with ctx.engine.begin() as db:
        await db.execute(text("ALTER TABLE actions_away RENAME TO actions"))
    assert await _count_actions(ctx) == stored
    # The same commands sent again are applied now, once, all in one batch; the clocks run again.
    for actor, conn, action, _, _ in moves:
        actor.submit(Act(as_connection(conn), 1, action))
    acks = [await conn.next("ack") for _, conn, _, _, _ in moves]
    assert [(a["seq"], a["duplicate"]) for a in acks] == [(1, False)] * TABLES
    for (actor, _, _, version, _), ack in zip(moves, acks, strict=True):
        assert ack["v"] == version + 1 == actor.version
        assert actor.game is not None
        assert not actor.game.clock.frozen and actor.game.clock.running is not None
    assert await _count_actions(ctx) == stored + TABLES


async def test_a_table_that_could_not_store_retries_and_thaws_on_its_own(ctx: ServerContext) -> None:
    """After a failed commit the table retries on a timer, without any player acting: once the database
    is back its clocks run again and are stored."""
    tables = await _started_tables(ctx)
    table_id, conns = tables[0]
    snapshots = [await conn.next("snapshot") for conn in conns]
    (seat,) = [s for s, snap in enumerate(snapshots) if snap["legal"]]
    actor = ctx.tables[table_id]
    async with ctx.engine.begin() as db:
        await db.execute(text("ALTER TABLE actions RENAME TO actions_away"))
    actor.submit(Act(as_connection(conns[seat]), 1, snapshots[seat]["legal"][0]))
    assert (await conns[seat].next("error"))["code"] == "server_error"
    assert actor.game is not None and actor.game.clock.frozen and actor._retry is not None
    async with ctx.engine.begin() as db:
        await db.execute(text("ALTER TABLE actions_away RENAME TO actions"))
    async with asyncio.timeout(30):
        while actor._failures:
            await asyncio.sleep(0.05)
    assert not actor.game.clock.frozen and actor.game.clock.running == seat
    async with ctx.engine.connect() as conn:
        query = select(GameTable.clock).where(GameTable.id == table_id)
        stored = (await conn.execute(query)).scalar_one()
    assert not stored["frozen"] and stored["running"] == seat and stored["wall"]["boot"] == ctx.writer.boot.id


async def test_the_heartbeat_bounds_what_a_crash_charges(ctx: ServerContext) -> None:
    tables = await _started_tables(ctx)
    actor = ctx.tables[tables[0][0]]
    assert actor.game is not None and actor.game.clock.running is not None
    record = clock_record(actor.game.clock, ctx.writer.boot, MonoMs(actor.game.clock.since or 0), wall_ms())
    since = record["wall"]["since_ms"]
    assert abs(since - wall_ms()) < 60_000
    assert charge_after_crash(record, {ctx.writer.boot.id: WallMs(since + 1234)}) == 1234
    assert charge_after_crash(record, {ctx.writer.boot.id: WallMs(since - 10)}) == 0  # beat before the turn
    assert charge_after_crash(record, {}) == 0  # the process never beat
    async with ctx.engine.connect() as conn:
        stored = (
            await conn.execute(select(GameTable.clock).where(GameTable.id == actor.table_id))
        ).scalar_one()
    assert stored["wall"]["boot"] == ctx.writer.boot.id


async def test_a_seq_reused_for_another_action_is_refused(ctx: ServerContext) -> None:
    """Two sockets of one seat sending the same seq with different actions: the second is refused
    (``seq_reused``), also after the table is reloaded from the log; the same action is a duplicate."""
    tables = await _started_tables(ctx)
    table_id, conns = tables[0]
    snapshots = [await conn.next("snapshot") for conn in conns]
    (seat,) = [s for s, snap in enumerate(snapshots) if snap["legal"]]
    legal = snapshots[seat]["legal"]
    assert len(legal) >= 2
    actor = ctx.tables[table_id]
    actor.submit(Act(as_connection(conns[seat]), 1, legal[0]))
    assert (await conns[seat].next("ack"))["duplicate"] is False
    version = actor.version

    for reloaded in (False, True):
        if reloaded:
            del ctx.tables[table_id]
            await actor.stop()
            loaded = await get_actor(ctx, table_id)
            assert loaded is not None and loaded is not actor
            actor = loaded
        twin = FakeConnection(conns[seat].user_id)
        actor.submit(Connect(as_connection(twin)))
        await twin.next("snapshot")
        actor.submit(Act(as_connection(twin), 1, legal[1]))
        refused = await twin.next("error")
        assert (refused["code"], refused["seq"]) == ("seq_reused", 1)
        actor.submit(Act(as_connection(twin), 1, {k: v for k, v in legal[0].items() if k != "seat"}))
        again = await twin.next("ack")
        assert again["duplicate"] is True and again["v"] == version == actor.version


async def test_a_refused_row_fails_its_own_write_and_no_other_in_its_batch(ctx: ServerContext) -> None:
    """A write whose row the database refuses (an action's number taken) fails alone, with the database's
    IntegrityError: the writer commits the batch's writes one by one; the other's rows are stored, every
    column as written (the JSON ones read back equal, a column left out holds its default), and nothing
    counts as an outage."""
    tables = await _started_tables(ctx)
    (good, _), (bad, _) = tables[0], tables[1]
    checkouts: list[object] = []
    if ctx.writer._batch_engine is not None:  # SQLite: its writer's thread holds its connection
        event.listen(ctx.writer._batch_engine, "checkout", lambda dbapi, *_: checkouts.append(dbapi))
    async with ctx.sessions() as session:
        taken = int(
            (
                await session.execute(select(func.max(ActionRecord.seq)).where(ActionRecord.table_id == bad))
            ).scalar_one()
        )
        free = 1 + int(
            (
                await session.execute(select(func.max(ActionRecord.seq)).where(ActionRecord.table_id == good))
            ).scalar_one()
        )
    clock = {"seats": [[1, 2, False]], "wall": {"boot": "b", "since_ms": 3}, "running": None}
    good_write, bad_write = StepWrite(), StepWrite()
    good_write.actions.append(
        {"table_id": good, "seq": free, "action": {"type": "pass"}, "at": 1.5, "clock": clock}
    )
    bad_write.actions.append({"table_id": bad, "seq": taken, "action": {"type": "pass"}, "at": 1.5})
    results = await asyncio.gather(
        ctx.writer.commit(good, None, good_write),
        ctx.writer.commit(bad, None, bad_write),
        return_exceptions=True,
    )
    assert results[0] is None and isinstance(results[1], IntegrityError), results
    assert ctx.writer.failing_since is None
    assert checkouts == []  # a refused row is no failure of the connection: the writer kept it
    async with ctx.sessions() as session:
        row = (
            await session.execute(
                select(ActionRecord).where(ActionRecord.table_id == good, ActionRecord.seq == free)
            )
        ).scalar_one()
        assert (row.action, row.clock, row.at, row.by_server, row.sheet) == (
            {"type": "pass"},
            clock,
            1.5,
            False,
            None,
        )


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path / 'held.db'}"
    upgrade(url)
    return url


async def test_the_sqlite_writer_holds_its_connection_from_batch_to_batch(sqlite_url: str) -> None:
    """Its thread keeps one connection checked out for every batch (a check-out, reset and check-in per
    batch were half its CPU beside the commit), and discards it when a batch fails: the next batch takes
    a new one from the pool, and once the database is back it commits and is held again."""
    writer = GroupWriter(make_writer_engine(sqlite_url), window_ms=0.0, heartbeat_s=0.005)  # a batch a beat
    assert writer._batch_engine is not None
    checkouts: list[object] = []
    event.listen(writer._batch_engine, "checkout", lambda dbapi, *_: checkouts.append(dbapi))
    other = make_engine(sqlite_url)
    await writer.start()
    try:
        await until(lambda: writer.batches >= 5, "five batches", timeout=60)
        assert len(checkouts) == 1
        async with other.begin() as conn:  # the heartbeats' table goes away: every batch fails
            await conn.execute(text("ALTER TABLE server_state RENAME TO server_state_away"))
        await until(lambda: len(checkouts) >= 2, "a connection taken after a failed batch", timeout=60)
        assert checkouts[1] is not checkouts[0]  # a new one: the failed batch's was discarded
        async with other.begin() as conn:
            await conn.execute(text("ALTER TABLE server_state_away RENAME TO server_state"))
        await until(lambda: writer.failing_since is None, "a batch stored again", timeout=60)
        stored, taken = writer.batches, len(checkouts)
        await until(lambda: writer.batches >= stored + 3, "three more batches", timeout=60)
        assert len(checkouts) == taken  # held again since
    finally:
        await writer.close()
        await writer.engine.dispose()
        await other.dispose()
