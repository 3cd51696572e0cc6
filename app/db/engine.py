"""Engine and session factory for ``DATABASE_URL``; SQLite gets WAL and full fsync for durable commits."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def _json(value: Any) -> str:
    # Standard JSON only: NaN and Infinity are refused (a bug upstream), never stored to choke a reader.
    return json.dumps(value, allow_nan=False)


def make_engine(url: str, pool_size: int = 16, max_overflow: int = 16) -> AsyncEngine:
    if is_sqlite(url):
        engine = create_async_engine(url, connect_args={"timeout": 30}, json_serializer=_json)

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            # FULL: a commit is on disk before the server acknowledges the action.
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        return engine
    # A pool: tables commit concurrently instead of queueing behind one connection.
    return create_async_engine(
        url, pool_size=pool_size, max_overflow=max_overflow, pool_pre_ping=True, json_serializer=_json
    )


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)
