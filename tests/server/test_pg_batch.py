"""Issue 24: on PostgreSQL the group writer commits a batch straight on asyncpg (`storage.pg_batch`): what
every move writes in one statement (one round trip), any other batch of kept statements an ``executemany``
each in one transaction. The rows stored are those SQLAlchemy's own execution stores (JSON, a JSON
``null``, floats, a column's default), a refused row is SQLAlchemy's `IntegrityError` and stores nothing
of its batch, and a failed batch leaves the pool without its connection."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import JSON, Text, cast, event, func, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.engine import make_writer_engine
from app.db.migrate import upgrade
from app.server.http.handlers import database_down
from app.server.storage import batch, pg_batch
from app.server.storage.batch import Fence, Pending
from app.server.storage.schema import ACTIONS, DEALS, HOLDERS, SEATS, STATE, TABLES
from app.server.storage.step_write import StepWrite

pytestmark = pytest.mark.postgres

TABLE_COUNT = 6
CLOCK = {
    "seats": [[120000, 600000, False]],
    "running": 1,
    "wall": {"boot": "b", "since_ms": 7},
    "frozen": False,
}


@pytest.fixture
def migrated(pg_database: str) -> str:
    upgrade(pg_database)
    return pg_database


@pytest.fixture
async def engine(migrated: str) -> AsyncIterator[AsyncEngine]:
    engine = make_writer_engine(migrated)
    async with engine.begin() as conn:
        await conn.execute(
            insert(ACTIONS.metadata.tables["users"]),
            [{"id": u, "name": f"u{u}", "name_key": f"u{u}", "password_hash": "-", "role": "player",
              "created_at": 0.0} for u in (1, 2, 3)],
        )  # fmt: skip
        await conn.execute(
            insert(ACTIONS.metadata.tables["rooms"]),
            [{"id": 1, "name": "r", "operator_id": 1, "preset": "p", "overrides": {}, "conventions": {},
              "created_at": 0.0}],
        )  # fmt: skip
        await conn.execute(
            insert(TABLES),
            [{"id": t, "room_id": 1, "seats": 3, "conventions": {}, "status": "playing", "created_at": 0.0}
             for t in range(1, 2 * TABLE_COUNT + 1)],
        )  # fmt: skip
        await conn.execute(
            insert(SEATS),
            [
                {"table_id": t, "seat": s, "user_id": s + 1}
                for t in range(1, 2 * TABLE_COUNT + 1)
                for s in range(3)
            ],
        )
    yield engine
    await engine.dispose()


def _write(table_id: int, *, sheet: bool = False) -> StepWrite:
    """What a move writes: its action row (a second, by the server, at odd tables), the seat's number, the
    table's fields (a JSON ``null`` sheet at odd tables)."""
    write = StepWrite()
    write.actions = [
        {"table_id": table_id, "seq": 1, "action": {"type": "pass", "n": table_id}, "user_id": 1,
         "client_seq": table_id, "at": 1.5 + table_id / 3, "clock": {**CLOCK, "running": table_id % 3}},
    ]  # fmt: skip
    if table_id % 2:
        by_server = {"type": "shuffle"}
        write.actions.append({"table_id": table_id, "seq": 2, "action": by_server, "by_server": True,
                              "at": 0.1, "clock": CLOCK})  # fmt: skip
    write.seat_seq = (table_id % 3, 10 + table_id)
    write.table = {"clock": {**CLOCK, "running": table_id % 3}, "status": "playing"}
    if sheet:
        write.table["sheet"] = None if table_id % 2 else {"pools": [table_id], "ё": "пуля"}
    return write


def _fence(writes: dict[int, StepWrite] | list[tuple[int, StepWrite]]) -> Fence:
    """A batch of the writes (several of one table, if a list has them)."""
    writes = list(writes.items()) if isinstance(writes, dict) else writes
    loop = asyncio.get_running_loop()
    # The version by the table's place in its set: the two sets of `TABLE_COUNT` tables compare.
    return Fence(None, [Pending(t, 100 + t % TABLE_COUNT, w, loop.create_future()) for t, w in writes], [])


async def _rows(engine: AsyncEngine, tables: range) -> dict[str, list[tuple[Any, ...]]]:
    """The stored rows of these tables, their table ids made relative (so two sets of tables compare), JSON
    as its text (a JSON ``null`` is not SQL's NULL)."""
    first = tables.start
    out: dict[str, list[tuple[Any, ...]]] = {}
    async with engine.connect() as conn:
        for table, key in ((TABLES, TABLES.c.id), (SEATS, SEATS.c.table_id), (ACTIONS, ACTIONS.c.table_id)):
            columns = [cast(c, Text) if isinstance(c.type, JSON) else c for c in table.columns]
            query = select(*columns).where(key.in_(list(tables))).order_by(*table.primary_key)
            rows = await conn.execute(query)
            position = list(table.c.keys()).index(key.key)
            out[table.name] = [(*row[:position], row[position] - first, *row[position + 1 :]) for row in rows]
    return out


async def _by_sqlalchemy(engine: AsyncEngine, fence: Fence) -> None:
    async with engine.begin() as conn:
        for statement, rows in fence.statements():
            await conn.execute(statement, rows)


def _pool(engine: AsyncEngine) -> Any:
    return engine.sync_engine.pool


def _statements_logged(engine: AsyncEngine) -> list[str]:
    """Every statement the writer's connections send from now on (asyncpg's query logger)."""
    logged: list[str] = []
    pool = _pool(engine)

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.driver_connection.add_query_logger(lambda record: logged.append(record.query))

    event.listen(pool, "connect", on_connect)
    return logged


@pytest.mark.parametrize("sheet", [False, True])
async def test_moves_are_one_statement_storing_what_sqlalchemy_stores(
    engine: AsyncEngine, sheet: bool
) -> None:
    await engine.dispose()  # the connections made from here on are logged
    logged = _statements_logged(engine)
    ours = range(1, TABLE_COUNT + 1)
    theirs = range(TABLE_COUNT + 1, 2 * TABLE_COUNT + 1)
    assert await pg_batch.run_asyncpg(engine, _fence({t: _write(t, sheet=sheet) for t in ours}))
    # (asyncpg reads the array types' descriptions once a connection: its own queries, not the batch's)
    assert len([q for q in logged if q.startswith("WITH s0 AS (INSERT INTO actions")]) == 1, logged
    assert not [q for q in logged if q.startswith(("INSERT", "UPDATE", "BEGIN", "COMMIT"))], logged
    # The same writes by SQLAlchemy, at the other tables (table ids shifted back).
    shifted = {}
    for t in theirs:
        write = _write(t - TABLE_COUNT, sheet=sheet)
        for row in write.actions:
            row["table_id"] = t
        shifted[t] = write
    await _by_sqlalchemy(engine, _fence(shifted))
    mine, sqlalchemy_s = await _rows(engine, ours), await _rows(engine, theirs)
    assert mine == sqlalchemy_s
    assert len(mine["actions"]) == TABLE_COUNT + (TABLE_COUNT + 1) // 2
    version = [row[list(TABLES.c.keys()).index("version")] for row in mine["game_tables"]]
    assert version == [100 + t % TABLE_COUNT for t in ours]


async def test_the_heartbeat_goes_in_the_moves_one_statement(engine: AsyncEngine) -> None:
    """The writer's heartbeat, kept (`batch.HEARTBEAT`), is a part of the moves' one statement: built with
    its values for each batch, every batch with a beat went through SQLAlchemy's own execution."""
    async with engine.begin() as conn:
        await conn.execute(insert(STATE), [{"key": "heartbeat:x", "value": "1"}])
    await engine.dispose()  # the connections made from here on are logged
    logged = _statements_logged(engine)
    fence = _fence({t: _write(t) for t in range(1, 4)})
    fence.tail.append((batch.HEARTBEAT, [{"k": "heartbeat:x", "v": "2"}]))
    assert await pg_batch.run_asyncpg(engine, fence)
    assert len([q for q in logged if q.startswith("WITH s0 AS (INSERT INTO actions")]) == 1, logged
    assert not [q for q in logged if q.startswith(("INSERT", "UPDATE", "BEGIN", "COMMIT"))], logged
    async with engine.connect() as conn:
        beats = (
            await conn.execute(select(STATE.c.key, STATE.c.value).where(STATE.c.key == "heartbeat:x"))
        ).all()
    assert [tuple(b) for b in beats] == [("heartbeat:x", "2")]
    assert len((await _rows(engine, range(1, 4)))["actions"]) == 5


async def test_a_batch_of_other_statements_is_one_transaction_of_executemany(engine: AsyncEngine) -> None:
    """A holding closed is not unnested: the batch goes statement by statement, its rows as SQLAlchemy's."""
    opened = {2: _write(2)}
    opened[2].holders = ({"table_id": 2, "seat": 0, "user_id": 1, "first_deal": 1},)
    assert await pg_batch.run_asyncpg(engine, _fence(opened))
    await engine.dispose()
    logged = _statements_logged(engine)
    writes = {t: _write(t) for t in range(3, 6)}
    writes[4].holders_closed = ({"table_id": 2, "seat": 0, "last_deal": 7},)
    assert await pg_batch.run_asyncpg(engine, _fence(writes))
    assert not [q for q in logged if q.startswith("WITH s0")], logged
    assert [q for q in logged if q.startswith("UPDATE seat_holders")], logged
    async with engine.connect() as conn:
        holders = (await conn.execute(select(HOLDERS.c.table_id, HOLDERS.c.last_deal))).all()
    assert [tuple(h) for h in holders] == [(2, 7)]
    assert len((await _rows(engine, range(3, 6)))["actions"]) == 5


async def test_a_refused_row_is_sqlalchemys_integrity_error_and_stores_nothing(engine: AsyncEngine) -> None:
    assert await pg_batch.run_asyncpg(engine, _fence({1: _write(1)}))
    again = {2: _write(2), 1: _write(1)}  # table 1's action numbers are taken now
    with pytest.raises(IntegrityError):
        await pg_batch.run_asyncpg(engine, _fence(again))
    assert (await _rows(engine, range(2, 3)))["actions"] == []
    # The connection is fine (a refusal is no outage): the pool keeps it and the next batch stores.
    async with engine.connect() as conn:
        kept = (await conn.get_raw_connection()).driver_connection
    assert await pg_batch.run_asyncpg(engine, _fence({2: _write(2)}))
    async with engine.connect() as conn:
        assert (await conn.get_raw_connection()).driver_connection is kept


async def test_a_failed_batch_drops_its_connection(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        await conn.exec_driver_sql("ALTER TABLE actions RENAME TO actions_away")
        before = (await conn.get_raw_connection()).driver_connection
    with pytest.raises(Exception, match="actions") as failure:
        await pg_batch.run_asyncpg(engine, _fence({1: _write(1)}))
    assert not isinstance(failure.value, IntegrityError)
    async with engine.connect() as conn:  # the pool's one connection is a new one
        assert (await conn.get_raw_connection()).driver_connection is not before
    async with engine.begin() as conn:
        await conn.exec_driver_sql("ALTER TABLE actions_away RENAME TO actions")
    assert await pg_batch.run_asyncpg(engine, _fence({1: _write(1)}))
    assert len((await _rows(engine, range(1, 2)))["actions"]) == 2


async def test_a_fence_or_a_statement_of_sqlalchemys_own_is_left_to_sqlalchemy(engine: AsyncEngine) -> None:
    fence = _fence({1: _write(1)})
    fence.query = batch._NOT_OWNED  # several workers
    assert not await pg_batch.run_asyncpg(engine, fence)
    heartbeat = Fence(None, [], [(update(STATE).values(value="1"), None)])
    assert not await pg_batch.run_asyncpg(engine, heartbeat)
    assert (await _rows(engine, range(1, 2)))["actions"] == []


def _shifted(write_of: Any, tables: range) -> dict[int, StepWrite]:
    """``write_of(t)`` for the tables of the first set, written at the second set's tables."""
    out = {}
    for t in tables:
        write = write_of(t - TABLE_COUNT)
        for row in (*write.actions, *write.deals, *write.holders):
            row["table_id"] = t
        out[t] = write
    return out


async def _inserted(engine: AsyncEngine, table: Any, tables: range) -> list[tuple[Any, ...]]:
    """The rows of ``table`` at these tables without their ids (a serial: the two sets' differ), table ids
    made relative, JSON as its text."""
    columns = [cast(c, Text) if isinstance(c.type, JSON) else c for c in table.columns if c.key != "id"]
    query = select(*columns).where(table.c.table_id.in_(list(tables))).order_by(table.c.table_id)
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    position = [c.key for c in table.columns if c.key != "id"].index("table_id")
    return [(*row[:position], row[position] - tables.start, *row[position + 1 :]) for row in rows]


@pytest.mark.parametrize("kind", ["a deal's end", "a seat's first holder"])
async def test_any_tables_inserted_rows_go_in_the_moves_one_statement(engine: AsyncEngine, kind: str) -> None:
    """Rows inserted into any table are a part of the moves' one statement, stored as SQLAlchemy stores
    them: a batch with a deal's end went statement by statement, a round trip each (issue 24)."""

    def write_of(t: int) -> StepWrite:
        write = _write(t)
        if kind == "a deal's end":
            result = None if t % 2 else {"pools": [t, -t], "ё": "пуля"}
            write.deals = ({"table_id": t, "deal_number": 3, "result": result, "record": {"cards": [t]},
                            "at": 2.5 + t / 7},)  # fmt: skip
        else:
            write.holders = ({"table_id": t, "seat": t % 3, "user_id": 1 + t % 3, "first_deal": t},)
        return write

    await engine.dispose()
    logged = _statements_logged(engine)
    ours = range(1, TABLE_COUNT + 1)
    theirs = range(TABLE_COUNT + 1, 2 * TABLE_COUNT + 1)
    assert await pg_batch.run_asyncpg(engine, _fence({t: write_of(t) for t in ours}))
    table = DEALS if kind == "a deal's end" else HOLDERS
    one = [q for q in logged if q.startswith("WITH s0 AS (INSERT INTO actions")]
    assert len(one) == 1 and f"INSERT INTO {table.name} " in one[0], logged
    assert not [q for q in logged if q.startswith(("INSERT", "UPDATE", "BEGIN", "COMMIT"))], logged
    await _by_sqlalchemy(engine, _fence(_shifted(write_of, theirs)))
    mine = await _inserted(engine, table, ours)
    assert len(mine) == TABLE_COUNT
    assert mine == await _inserted(engine, table, theirs)
    assert await _rows(engine, ours) == await _rows(engine, theirs)


def _fields_only(table_id: int, fields: dict[str, Any]) -> StepWrite:
    write = StepWrite()
    write.table = fields
    return write


@pytest.mark.parametrize("collision", ["a seat's number twice", "a table's fields in two shapes"])
async def test_two_writes_of_one_row_in_a_batch_go_statement_by_statement(
    engine: AsyncEngine, collision: str
) -> None:
    """PostgreSQL applies one of two updates of a row in one statement: such a batch is not combined, and
    the later write wins, as SQLAlchemy's execution stores it (e.g. a table's step and its clock stored at a
    shutdown, in one batch)."""
    await engine.dispose()
    logged = _statements_logged(engine)

    def pairs(t: int) -> list[tuple[int, StepWrite]]:
        first = _write(t, sheet=True)
        if collision == "a seat's number twice":
            second = StepWrite()
            second.seat_seq = (t % 3, 99)
        else:
            second = _fields_only(t, {"clock": {**CLOCK, "running": None}})
        return [(t, first), (t, second)]

    assert await pg_batch.run_asyncpg(engine, _fence(pairs(1)))
    assert not [q for q in logged if q.startswith("WITH s0")], logged
    theirs = pairs(1)
    for _, write in theirs:
        for row in write.actions:
            row["table_id"] = 1 + TABLE_COUNT
    await _by_sqlalchemy(engine, _fence([(1 + TABLE_COUNT, w) for _, w in theirs]))
    mine = await _rows(engine, range(1, 2))
    assert mine == await _rows(engine, range(1 + TABLE_COUNT, 2 + TABLE_COUNT))
    if collision == "a seat's number twice":
        assert [row[3] for row in mine["table_seats"]] == [0, 99, 0]  # table 1's seat 1: the later number
    else:
        assert '"running":null' in mine["game_tables"][0][list(TABLES.c.keys()).index("clock")]


async def test_a_refused_row_among_other_statements_stores_nothing_of_its_batch(engine: AsyncEngine) -> None:
    assert await pg_batch.run_asyncpg(engine, _fence({1: _write(1)}))
    writes = {2: _write(2), 1: _write(1)}  # table 1's action numbers are taken now
    writes[2].holders = ({"table_id": 2, "seat": 0, "user_id": 1, "first_deal": 1},)
    writes[2].holders_closed = ({"table_id": 3, "seat": 0, "last_deal": 1},)  # not combined
    with pytest.raises(IntegrityError):
        await pg_batch.run_asyncpg(engine, _fence(writes))
    assert (await _rows(engine, range(2, 3)))["actions"] == []
    async with engine.connect() as conn:
        assert (await conn.execute(select(HOLDERS.c.table_id))).all() == []


async def test_a_lost_connection_is_sqlalchemys_error_read_as_the_database_down(engine: AsyncEngine) -> None:
    """The server's backend ended under the writer: the error is SQLAlchemy's, marked invalidated (REST and
    the table sockets answer 503 for it), and the next batch stores on a new connection."""
    assert await pg_batch.run_asyncpg(engine, _fence({1: _write(1)}))
    async with engine.connect() as conn:
        driver: Any = (await conn.get_raw_connection()).driver_connection
        pid = driver.get_server_pid()
    killer = make_writer_engine(str(engine.url.render_as_string(hide_password=False)))
    async with killer.connect() as conn:
        await conn.execute(select(func.pg_terminate_backend(pid)))
    await killer.dispose()
    async with asyncio.timeout(30):  # the pooled connection has seen its socket close
        while not driver.is_closed():
            await asyncio.sleep(0.01)
    with pytest.raises(DBAPIError) as failure:
        await pg_batch.run_asyncpg(engine, _fence({2: _write(2)}))
    assert failure.value.connection_invalidated and database_down(failure.value)
    assert await pg_batch.run_asyncpg(engine, _fence({2: _write(2)}))
    assert len((await _rows(engine, range(2, 3)))["actions"]) == 1
