"""The ratings pass finds the games it has not taken in through their partial index, not by reading every
game ever finished (`GameTable.in_ratings`, `ladder._pending`), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import exists, insert, not_, select, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from sqlalchemy.orm import Session

from app.db.engine import make_engine
from app.db.migrate import upgrade
from app.db.models import UNRATED, GameTable, RatedGame, Room, TableSeat, User
from app.server.ratings import ladder
from app.table import Termination
from tests.conftest import database_for

SETTLED = {"exact": ["1", "-1", "0"], "result": ["1", "-1", "0"]}
# id: (status, finish_reason, finished_at, settlement, taken in already)
GAMES: dict[int, tuple[str, str | None, float | None, dict[str, Any] | None, bool]] = {
    1: ("finished", "pool", 10.0, SETTLED, True),  # taken in before
    2: ("finished", "pool", 30.0, SETTLED, False),  # waits
    3: ("finished", Termination.FAULT.value, 20.0, SETTLED, False),  # a server fault: never counts
    4: ("finished", "pool", 25.0, None, False),  # no settlement
    5: ("awaiting_adjudication", "interrupted", 15.0, None, False),  # waits for its award
    6: ("playing", None, None, None, False),
    7: ("finished", "timeout", 12.0, SETTLED, False),  # waits, and comes first: finished earlier than 2
}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return database_for(request, tmp_path)


@pytest.fixture
async def engine(url: str) -> AsyncIterator[AsyncEngine]:
    await asyncio.to_thread(upgrade, url)
    engine = make_engine(url)
    async with engine.begin() as conn:
        await conn.execute(insert(User.__table__), [  # type: ignore[arg-type]
            {"id": u, "name": f"p{u}", "name_key": f"p{u}", "password_hash": "-", "role": "player",
             "created_at": 0.0} for u in (1, 2, 3)
        ])  # fmt: skip
        await conn.execute(insert(Room.__table__), [  # type: ignore[arg-type]
            {"id": 1, "name": "r", "operator_id": 1, "preset": "p", "overrides": {}, "conventions": {},
             "created_at": 0.0}
        ])  # fmt: skip
        for table_id, (status, reason, finished_at, settlement, taken) in GAMES.items():
            row = {"id": table_id, "room_id": 1, "seats": 3, "conventions": {}, "status": status,
                   "created_at": 0.0, "finished_at": finished_at, "finish_reason": reason,
                   "in_ratings": True if taken else None}  # fmt: skip
            if settlement is not None:
                row["settlement"] = settlement
            await conn.execute(insert(GameTable.__table__), [row])  # type: ignore[arg-type]
            await conn.execute(insert(TableSeat.__table__), [  # type: ignore[arg-type]
                {"table_id": table_id, "seat": s, "user_id": s + 1} for s in range(3)
            ])  # fmt: skip
            if taken:
                await conn.execute(insert(RatedGame.__table__), [  # type: ignore[arg-type]
                    {"table_id": table_id, "finished_at": finished_at, "counted": False, "rated_at": 0.0}
                ])  # fmt: skip
    try:
        yield engine
    finally:
        await engine.dispose()


def _pending_ids(session: Session) -> list[int]:
    return [p.table_id for p in ladder._pending(session)]


def _pending_by_reading_every_game(session: Session) -> list[int]:
    """What the pass looked for before the index: every settled game without its `RatedGame` row."""
    query = (
        ladder._settled_query()
        .where(not_(exists().where(RatedGame.table_id == GameTable.id)))
        .order_by(GameTable.finished_at, GameTable.id)
    )
    return [int(r[0]) for r in session.execute(query).all()]


def _flags(session: Session) -> dict[int, bool | None]:
    return {int(i): f for i, f in session.execute(select(GameTable.id, GameTable.in_ratings)).all()}


def _rated(session: Session) -> set[int]:
    return {int(i) for i in session.execute(select(RatedGame.table_id)).scalars()}


async def test_a_pass_finds_the_games_not_taken_in_and_marks_them(engine: AsyncEngine) -> None:
    async with AsyncSession(engine) as session:
        assert await session.run_sync(_pending_ids) == [7, 2]
        assert await session.run_sync(_pending_by_reading_every_game) == [7, 2]
        assert await session.run_sync(ladder._pending, 1) == [ladder._Settled(7, 1, 12.0)]

        assert await ladder.rate_settled(session) == 2
        await session.commit()
        flags = await session.run_sync(_flags)
        assert {t for t, f in flags.items() if f} == {1, 2, 7} == await session.run_sync(_rated)
        assert await session.run_sync(_pending_ids) == []
        assert await session.run_sync(_pending_by_reading_every_game) == []


async def test_a_game_with_its_row_but_no_flag_is_not_taken_in_twice(engine: AsyncEngine) -> None:
    async with AsyncSession(engine) as session:
        await session.execute(
            insert(RatedGame), [{"table_id": 2, "finished_at": 30.0, "counted": False, "rated_at": 0.0}]
        )
        await session.commit()
        assert await session.run_sync(_pending_ids) == [7]


async def test_rebuild_and_a_late_game_keep_the_flags_with_the_rows(engine: AsyncEngine) -> None:
    async with AsyncSession(engine) as session:
        await ladder.rate_settled(session)
        await session.commit()
        await ladder.rebuild(session)
        await session.commit()
        flags = await session.run_sync(_flags)
        assert {t for t, f in flags.items() if f} == {1, 2, 7} == await session.run_sync(_rated)

        # Game 4 is settled now, earlier than game 2 (taken in): the ladders replay from it.
        await session.execute(
            text("UPDATE game_tables SET settlement = :s WHERE id = 4"), {"s": '{"exact": ["0", "0", "0"]}'}
        )
        await session.commit()
        assert await session.run_sync(_pending_ids) == [4]
        assert await ladder.rate_settled(session) == 1
        await session.commit()
        flags = await session.run_sync(_flags)
        assert {t for t, f in flags.items() if f} == {1, 2, 4, 7} == await session.run_sync(_rated)
        assert await session.run_sync(_pending_ids) == []


async def test_sqlite_reads_the_pending_games_through_their_index(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'plan.db'}"
    await asyncio.to_thread(upgrade, url)
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            sql = "EXPLAIN QUERY PLAN " + ladder.pending_sql("sqlite")
            plan = (await conn.execute(text(sql))).all()
    finally:
        await engine.dispose()
    steps = " / ".join(str(row[-1]) for row in plan)
    assert "ix_game_tables_unrated" in steps
    assert "ix_game_tables_status" not in steps and "TEMP B-TREE" not in steps  # no scan, no sort


async def test_the_index_holds_only_the_games_a_pass_would_take_in(engine: AsyncEngine, url: str) -> None:
    """A server fault's game and one without a settlement are finished but never taken in: not in the
    index, so a pass does not read them again every second (SQLite reads the index itself here)."""
    assert f"finish_reason != '{Termination.FAULT.value}'" in UNRATED
    if not url.startswith("sqlite"):
        return
    async with engine.connect() as conn:
        indexed = "SELECT id FROM game_tables INDEXED BY ix_game_tables_unrated WHERE " + UNRATED
        assert sorted((await conn.execute(text(indexed))).scalars().all()) == [2, 7]


async def test_the_migration_flags_the_games_already_taken_in(url: str) -> None:
    """Migration 0016 marks the games that have their `RatedGame` row, and only those."""
    await asyncio.to_thread(upgrade, url, "0015_caps_shared_counts")
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text(
                "INSERT INTO users (id, name, name_key, password_hash, role, created_at)"
                " VALUES (1, 'p', 'p', '-', 'player', 0)"
            ))  # fmt: skip
            await conn.execute(text(
                "INSERT INTO rooms (id, name, operator_id, preset, overrides, conventions, created_at)"
                " VALUES (1, 'r', 1, 'p', '{}', '{}', 0)"
            ))  # fmt: skip
            for table_id in (1, 2):
                await conn.execute(
                    text(
                        "INSERT INTO game_tables (id, room_id, seats, conventions, first_dealer, status,"
                        " version, created_at, finished_at, finish_reason, settlement)"
                        " VALUES (:id, 1, 3, '{}', 0, 'finished', 1, 0, :at, 'timeout', :s)"
                    ),
                    {"id": table_id, "at": float(table_id), "s": '{"exact": ["0", "0", "0"]}'},
                )
            await conn.execute(text(
                "INSERT INTO rated_games (table_id, finished_at, counted, rated_at) VALUES (1, 1, false, 0)"
            ))  # fmt: skip
        await asyncio.to_thread(upgrade, url)
        async with AsyncSession(engine) as session:
            assert await session.run_sync(_flags) == {1: True, 2: None}
            assert await session.run_sync(_pending_ids) == [2]
    finally:
        await engine.dispose()
