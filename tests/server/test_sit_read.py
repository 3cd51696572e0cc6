"""Issue 24: a sit reads what it is decided on — the user, the table's room, its rating limits, whether the
user is invited there, his seats at waiting tables — in one statement (`lobby._sitter`), and what it reads is
what the separate reads give (`live_user`'s row, `room_access`, the room's settings, the count of waiting
seats). The refusals themselves are checked end to end over REST (test_private_rooms, test_ratings,
test_smaller_hardening)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.db.engine import make_engine, make_sessionmaker
from app.db.models import Base, GameTable, Room, RoomInvite, RoomSettings, TableSeat, User
from app.server.accounts.privacy import access_of, room_access
from app.server.http.routes.lobby import _sitter
from tests.conftest import database_for


def _user(name: str, role: str = "player") -> User:
    return User(name=name, name_key=name, password_hash="x", role=role, created_at=0.0)


def _room(operator: User, *, private: bool) -> Room:
    return Room(
        name="club", operator_id=operator.id, preset="x", overrides={}, conventions={}, created_at=0.0,
        private=private,
    )  # fmt: skip


def _table(room: Room, status: str) -> GameTable:
    return GameTable(room_id=room.id, seats=3, conventions={}, status=status, created_at=0.0)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return database_for(request, tmp_path)


@pytest.fixture
async def engine(url: str) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(url)
    async with engine.begin() as conn:
        await conn.run_sync(Base.metadata.create_all)
    yield engine
    await engine.dispose()


async def _world(session: AsyncSession) -> dict[str, Any]:
    """An operator, a guest invited to one of his two private rooms, a stranger; a public room with rating
    limits; the guest seated at two waiting tables and one playing."""
    operator, guest, stranger = _user("op", "operator"), _user("guest"), _user("stranger")
    session.add_all([operator, guest, stranger])
    await session.flush()
    private, public = _room(operator, private=True), _room(operator, private=False)
    closed = _room(operator, private=True)  # private too, and the guest is not invited there
    session.add_all([private, public, closed])
    await session.flush()
    session.add(RoomSettings(room_id=public.id, rated=True, min_rating=1400, max_rating=None))
    session.add(RoomInvite(room_id=private.id, user_id=guest.id, invited_by=operator.id, at=0.0))
    tables = [_table(private, "waiting"), _table(public, "waiting"), _table(public, "waiting"),
              _table(public, "playing"), _table(closed, "waiting")]  # fmt: skip
    session.add_all(tables)
    await session.flush()
    for table in tables[1:4]:
        session.add(TableSeat(table_id=table.id, seat=0, user_id=guest.id))
    await session.commit()
    return {"users": (operator, guest, stranger), "rooms": (private, public, closed), "tables": tables}


async def test_one_statement_with_what_the_separate_reads_give(engine: AsyncEngine) -> None:
    sessions = make_sessionmaker(engine)
    async with sessions() as session:
        world = await _world(session)
    operator, guest, stranger = world["users"]
    private = world["rooms"][0]
    rooms = {room.id: room for room in world["rooms"]}
    tables = world["tables"]
    statements: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    cases = [(user, table) for user in (operator, guest, stranger) for table in tables]
    for user, table in cases:
        async with sessions() as session:
            statements.clear()
            read = await _sitter(session, user.id, table.id)
            assert len(statements) == 1, statements
            room = rooms[table.room_id]
            assert read.user is not None and read.user.id == user.id
            assert read.room is not None and read.room.id == room.id
            # What the separate reads decide, in their own session.
            async with sessions() as other:
                fresh_user = await other.get(User, user.id)
                fresh_room = await other.get(Room, room.id)
                assert fresh_user is not None and fresh_room is not None
                expected = await room_access(other, fresh_room, fresh_user)
                limits = await other.get(RoomSettings, room.id)
            assert read.invited is (user is guest and room is private)
            assert access_of(read.room, read.user, read.invited) == expected
            assert (read.min_rating, read.max_rating) == (
                (None, None) if limits is None else (limits.min_rating, limits.max_rating)
            )
            assert read.held == (2 if user is guest else 0)  # the playing table's seat is not counted
    assert not (await _sitter_access(sessions, guest, tables[4])).may_sit  # the room he is not invited to
    assert (await _sitter_access(sessions, guest, tables[0])).may_sit
    async with sessions() as session:
        read = await _sitter(session, guest.id, 999)
        assert read.user is not None and read.room is None and read.held == 2
        read = await _sitter(session, 999, tables[0].id)
        assert read.user is None


async def _sitter_access(sessions: Any, user: User, table: GameTable) -> Any:
    async with sessions() as session:
        read = await _sitter(session, user.id, table.id)
        assert read.user is not None and read.room is not None
        return access_of(read.room, read.user, read.invited)
