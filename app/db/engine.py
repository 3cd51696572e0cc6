"""Engines and session factory for ``DATABASE_URL``; SQLite gets WAL and full fsync for durable commits.

`make_engine` serves the REST requests and recovery; `make_writer_engine` the one group-commit writer of
the tables (`app.server.storage.GroupWriter`): on SQLite its one connection is the only writer of
the game's rows, on PostgreSQL a small pool without a ping before every batch (a batch on a dead
connection fails, and the pool replaces the connection for the next one).
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

import orjson
from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from app.db.sqlite_async import one_hop_dbapi


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def _json(value: Any) -> str:
    # orjson: a twentieth of the stdlib encoder's time for the clock and action columns every step writes
    # (issue 24). It writes standard JSON only (NaN and Infinity become null, never a token that chokes a
    # reader); none reaches it, as every float the server takes in is validated finite
    # (`app.engine.conventions`).
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def make_engine(
    url: str,
    pool_size: int = 16,
    max_overflow: int = 16,
    *,
    writer: bool = False,
    one_hop: bool = True,
    autocommit: bool = False,
) -> AsyncEngine:
    """``one_hop`` False: SQLAlchemy's own aiosqlite adapter, everything else alike (the tests and the
    bench that compare the two). ``autocommit``: every statement committed as it runs, set once per
    connection (not at each check-out, as an engine's ``execution_options`` would)."""
    isolation = {"isolation_level": "AUTOCOMMIT"} if autocommit else {}
    if is_sqlite(url):
        # One hand-over to the connection's thread per statement, not four (`app.db.sqlite_async`).
        aiosqlite = make_url(url).get_driver_name() == "aiosqlite"
        module = {"module": one_hop_dbapi()} if one_hop and aiosqlite else {}
        if writer:
            pool = {"pool_size": 1, "max_overflow": 0}
        else:
            pool = {"pool_size": pool_size, "max_overflow": max_overflow}
        engine = create_async_engine(
            url, connect_args={"timeout": 30}, json_serializer=_json, **pool, **module, **isolation
        )

        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    if writer:
        return create_async_engine(url, pool_size=2, max_overflow=0, json_serializer=_json, **isolation)
    return create_async_engine(
        url, pool_size=pool_size, max_overflow=max_overflow, pool_pre_ping=True, json_serializer=_json,
        **isolation,
    )  # fmt: skip


def writing(
    engine: AsyncEngine, autocommit: AsyncEngine | None
) -> AbstractAsyncContextManager[AsyncConnection]:
    """A connection for writes that need no transaction together: on ``autocommit`` (made with
    ``autocommit=True``; `ServerContext.autocommit`, SQLite with several workers) each statement is
    committed as it runs, on the connection's thread, so none holds SQLite's one write lock across the
    loop's turns, where every worker's commits wait for it; without one, a transaction on ``engine``."""
    return engine.begin() if autocommit is None else autocommit.connect()


def make_thread_engine(url: str) -> AsyncEngine:
    """PostgreSQL for a background thread's own event loop: one connection, every query bounded (30 s,
    as SQLite's busy timeout): a hung database must not hold the thread, and the process's exit waits
    for it."""
    return create_async_engine(
        url,
        pool_size=1,
        max_overflow=0,
        pool_pre_ping=True,
        json_serializer=_json,
        connect_args={"timeout": 10, "command_timeout": 30},
    )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    # FULL: a commit is on disk before the server acknowledges the action.
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def make_sqlite_batch_engine(engine: AsyncEngine) -> Engine | None:
    """For a SQLite writer: a synchronous engine on the same file, used from one thread, so a whole batch
    is one hand-over to that thread instead of one per statement (None for other databases)."""
    if engine.dialect.name != "sqlite":
        return None
    url = engine.url.set(drivername="sqlite")
    batch = create_engine(
        url,
        connect_args={"timeout": 30, "check_same_thread": False},
        json_serializer=_json,
        pool_size=1,
        max_overflow=0,
    )
    event.listen(batch, "connect", _sqlite_pragmas)
    return batch


def make_writer_engine(url: str) -> AsyncEngine:
    return make_engine(url, writer=True)


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)
