"""Issue 24: the REST engine on SQLite runs a statement in one call on aiosqlite's thread
(`app.db.sqlite_async`). What a caller gets back — rows, column names, row counts, generated keys, the
driver's errors, what a rollback undoes and a commit keeps — is what the stock aiosqlite adapter gives for
the same statements; only the number of hand-overs to the thread differs, and that is counted here."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util.concurrency import greenlet_spawn

from app.db import sqlite_async
from app.db.engine import make_engine, make_sessionmaker
from app.db.models import User
from app.db.sqlite_async import OneHopConnection

META = MetaData()
ITEMS = Table(
    "items",
    META,
    Column("id", Integer, primary_key=True),
    Column("name", String(20), unique=True, nullable=False),
    Column("n", Integer),
)


@pytest.fixture
def hops(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call handed to an aiosqlite connection's thread, by the name of the function it runs."""
    seen: list[str] = []
    original = aiosqlite.Connection._execute

    async def counted(self: aiosqlite.Connection, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        seen.append(getattr(fn, "__name__", repr(fn)))
        return await original(self, fn, *args, **kwargs)  # type: ignore[no-untyped-call]

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    return seen


def _user(name: str) -> User:
    return User(name=name, name_key=name, password_hash="x", role="player", created_at=1.0)


async def _engines(tmp_path: Path) -> AsyncIterator[tuple[str, AsyncEngine]]:
    for name, engine in (
        ("stock", make_engine(f"sqlite+aiosqlite:///{tmp_path / 'stock.db'}", one_hop=False)),
        ("one hop", make_engine(f"sqlite+aiosqlite:///{tmp_path / 'one.db'}")),
    ):
        try:
            yield name, engine
        finally:
            await engine.dispose()


async def _exercise(engine: AsyncEngine) -> dict[str, Any]:
    """The same statements on either engine; what each gave back."""
    out: dict[str, Any] = {}
    async with engine.begin() as conn:
        await conn.run_sync(META.create_all)
    async with engine.connect() as conn:
        first = await conn.execute(insert(ITEMS).values(name="a", n=1))
        out["inserted_key"] = first.inserted_primary_key
        many = await conn.execute(insert(ITEMS), [{"name": "b", "n": 2}, {"name": "c", "n": 3}])
        out["many_rowcount"] = many.rowcount
        changed = await conn.execute(update(ITEMS).where(ITEMS.c.n >= 2).values(n=ITEMS.c.n * 10))
        out["update_rowcount"] = changed.rowcount
        await conn.commit()
        with pytest.raises(IntegrityError) as refused:
            await conn.execute(insert(ITEMS).values(name="a", n=9))
        out["error"] = type(refused.value.orig).__name__
        await conn.rollback()
        await conn.execute(insert(ITEMS).values(name="gone", n=0))
        await conn.rollback()  # undoes the row above
        result = await conn.execute(select(ITEMS.c.name, ITEMS.c.n).order_by(ITEMS.c.id))
        out["columns"] = list(result.keys())
        out["rows"] = [tuple(row) for row in result]
        out["scalar"] = await conn.scalar(text("SELECT count(*) FROM items WHERE n > :n"), {"n": 5})
        out["none"] = (await conn.execute(select(ITEMS).where(ITEMS.c.id == 99))).first()
        streamed = await conn.stream(select(ITEMS.c.name).order_by(ITEMS.c.name.desc()))
        out["streamed"] = [row[0] async for row in streamed]
    return out


async def test_same_answers_as_the_stock_adapter(tmp_path: Path) -> None:
    answers = {name: await _exercise(engine) async for name, engine in _engines(tmp_path)}
    assert answers["one hop"] == answers["stock"]
    assert answers["stock"]["rows"] == [("a", 1), ("b", 20), ("c", 30)]
    assert answers["stock"]["error"] == "IntegrityError"


async def test_server_engine_uses_it(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    try:
        async with engine.connect() as conn:
            raw = await conn.get_raw_connection()
            assert isinstance(raw.dbapi_connection, OneHopConnection)
            # The pragmas of `app.db.engine` ran through it: the durable journal a commit relies on.
            assert (await conn.scalar(text("PRAGMA journal_mode"))) == "wal"
            assert (await conn.scalar(text("PRAGMA synchronous"))) == 2  # FULL
    finally:
        await engine.dispose()


async def test_a_read_is_one_hand_over(tmp_path: Path, hops: list[str]) -> None:
    """A session that reads a user by key and closes: one call on the thread (the stock adapter: a cursor,
    the statement, its rows, the cursor's close and the rollback, five)."""
    counts = {}
    async for name, engine in _engines(tmp_path):
        async with engine.begin() as conn:
            await conn.run_sync(User.metadata.create_all)
        sessions = make_sessionmaker(engine)
        async with sessions() as session, session.begin():
            session.add(_user("ann"))
        hops.clear()
        async with sessions() as session:
            user = await session.get(User, 1)
            assert user is not None and user.name == "ann"
        counts[name] = len(hops)
    assert counts["stock"] >= 4
    assert counts["one hop"] == 1


async def test_a_write_is_still_committed_and_rolled_back(tmp_path: Path, hops: list[str]) -> None:
    """A rollback or commit goes to the thread exactly when a transaction is open: a session that wrote
    commits (and the row is there for another connection), one that wrote and failed rolls back."""
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'w.db'}")
    try:
        async with engine.begin() as conn:
            await conn.run_sync(User.metadata.create_all)
        sessions = make_sessionmaker(engine)
        hops.clear()
        async with sessions() as session, session.begin():
            session.add(_user("bob"))
        assert "commit" in hops
        hops.clear()
        with pytest.raises(RuntimeError):
            async with sessions() as session, session.begin():
                session.add(_user("carl"))
                await session.flush()
                raise RuntimeError("the request failed after its write")
        assert "rollback" in hops
        async with engine.connect() as conn:
            names = (await conn.execute(select(User.name).order_by(User.name))).scalars().all()
        assert names == ["bob"]
    finally:
        await engine.dispose()


async def test_a_cancelled_statement_is_rolled_back_after_it_ends(
    tmp_path: Path, hops: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request that goes away while its write runs on the thread: the write runs on, so the rollback
    that follows must go to the thread behind it (judged by the connection's open transaction before the
    write had begun, it would be skipped, and the connection would go back to the pool mid-transaction)."""
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}")
    try:
        async with engine.begin() as conn:
            await conn.run_sync(META.create_all)
        started, release = threading.Event(), threading.Event()
        original = sqlite_async._run

        def held(*args: Any) -> Any:
            started.set()
            release.wait(10)
            return original(*args)

        monkeypatch.setattr(sqlite_async, "_run", held)
        async with engine.connect() as conn:
            raw = (await conn.get_raw_connection()).dbapi_connection
            assert isinstance(raw, OneHopConnection)
            cursor = raw.cursor()
            late = "INSERT INTO items (name, n) VALUES ('late', 1)"
            write = asyncio.create_task(cursor._ran(late, None, False))
            await asyncio.to_thread(started.wait, 10)
            write.cancel()
            with pytest.raises(asyncio.CancelledError):
                await write
            # The write has not begun (the thread holds it): no transaction is open yet, and still the
            # connection is not idle, since the write will open one.
            assert not raw._connection._conn.in_transaction
            assert not raw._idle()
            hops.clear()
            rolled_back = asyncio.create_task(greenlet_spawn(raw.rollback))
            release.set()
            await rolled_back
            assert hops == ["rollback"]
            assert not raw._connection._conn.in_transaction
            monkeypatch.setattr(sqlite_async, "_run", original)
            assert await conn.scalar(select(func.count()).select_from(ITEMS)) == 0
    finally:
        await engine.dispose()
