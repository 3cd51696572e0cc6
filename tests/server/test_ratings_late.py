"""A game settled late (an award given after later games were rated) is taken in by replaying the ladders
from it only, restoring the ratings before it from the rating history; the result equals a full rebuild
(issue 21 §1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade
from app.db.models import DealRecord, GameTable, PlayerRating, RatedGame, RatingChange, Room, TableSeat, User
from app.server.ratings import rate_settled, rebuild

# Each game's indices by seat (the players sit in turn, so the winners vary).
RESULTS = [["30", "-10", "-20"], ["-5", "25", "-20"], ["12", "0", "-12"], ["-40", "20", "20"]]


@pytest.fixture
def url(tmp_path: Path) -> str:
    """A migrated SQLite database (the migrations run their own event loop: not inside the test's)."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}"
    upgrade(database)
    return database


async def _game(session: AsyncSession, room_id: int, users: list[int], finished_at: float, i: int) -> int:
    table = GameTable(room_id=room_id, seats=3, conventions={"pool_size": 10}, status="finished",
                      created_at=0.0, finished_at=finished_at, finish_reason="pool",
                      settlement={"exact": RESULTS[i % len(RESULTS)]})  # fmt: skip
    session.add(table)
    await session.flush()
    turn = i % 3
    for seat in range(3):
        session.add(TableSeat(table_id=table.id, seat=seat, user_id=users[(seat + turn) % 3]))
    session.add(DealRecord(table_id=table.id, deal_number=1, result={}, record={}, at=finished_at))
    await session.flush()
    return table.id


async def _state(sessions: async_sessionmaker[AsyncSession]) -> tuple[Any, Any, Any]:
    async with sessions() as session:
        ratings = sorted(
            (r.ladder, r.user_id, r.mu, r.sigma, r.games, r.updated_at)
            for r in (await session.scalars(select(PlayerRating))).all()
        )
        history = sorted(
            (c.ladder, c.user_id, c.table_id, c.mu, c.sigma, c.games, c.at)
            for c in (await session.scalars(select(RatingChange))).all()
        )
        taken = {
            g.table_id: (g.counted, g.rated_at) for g in (await session.scalars(select(RatedGame))).all()
        }
    return ratings, history, taken


async def test_a_late_game_replays_from_itself_and_equals_a_rebuild(url: str) -> None:
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    try:
        async with sessions() as session, session.begin():
            users = []
            for n in range(4):
                user = User(name=f"u{n}", name_key=f"u{n}", password_hash="x", role="player", created_at=0.0)
                session.add(user)
                await session.flush()
                users.append(user.id)
            room = Room(name="r", operator_id=users[0], preset="sochi", overrides={}, conventions={},
                        created_at=0.0)  # fmt: skip
            session.add(room)
            await session.flush()
            early = [await _game(session, room.id, users[:3], 100.0 + i, i) for i in range(2)]
            later = [await _game(session, room.id, users[1:], 200.0 + i, i + 2) for i in range(2)]
        async with sessions() as session, session.begin():
            assert await rate_settled(session) == 4
        before = await _state(sessions)

        # A game that finished between the early and the later ones settles only now.
        async with sessions() as session, session.begin():
            late = await _game(session, room.id, users[:3], 150.0, 1)
        async with sessions() as session, session.begin():
            assert await rate_settled(session) == 1
        live = await _state(sessions)
        # The games before the late one were not taken in again; those after it were.
        for table_id in early:
            assert live[2][table_id] == before[2][table_id]
        for table_id in later:
            assert live[2][table_id][1] > before[2][table_id][1]
        assert late in live[2] and live[1] != before[1]

        async with sessions() as session, session.begin():
            await rebuild(session)
        rebuilt = await _state(sessions)
        assert rebuilt[0] == live[0] and rebuilt[1] == live[1]
        assert {t: c for t, (c, _) in rebuilt[2].items()} == {t: c for t, (c, _) in live[2].items()}
    finally:
        await engine.dispose()
