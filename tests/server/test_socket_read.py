"""Issue 24: a table socket reads what it is decided on — the user's account and whether he may watch the
table — in one statement on a plain connection (`privacy.socket_caller`), and decides as the separate reads
through the ORM do (`room_access`, `is_seated`). The refusals themselves are checked end to end over
websockets (test_private_rooms, test_database_down, test_sessions)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.engine import make_engine, make_sessionmaker
from app.db.models import Base, GameTable, Room, RoomInvite, TableSeat, User
from app.server.accounts.privacy import is_seated, room_access, socket_caller
from tests.conftest import database_for


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


def _user(name: str, role: str = "player", *, disabled: bool = False, generation: int = 0) -> User:
    return User(name=name, name_key=name, password_hash="x", role=role, created_at=0.0, disabled=disabled,
                token_generation=generation)  # fmt: skip


def _room(operator: User, *, private: bool, spectators: bool) -> Room:
    return Room(name="club", operator_id=operator.id, preset="x", overrides={}, conventions={},
                created_at=0.0, private=private, spectators=spectators)  # fmt: skip


async def test_one_statement_decides_as_the_separate_reads(engine: AsyncEngine) -> None:
    sessions = make_sessionmaker(engine)
    async with sessions() as session:
        operator, admin = _user("op", "operator"), _user("admin", "admin")
        guest, stranger = _user("guest", generation=3), _user("stranger")
        seated, gone = _user("seated"), _user("gone", disabled=True)
        users = [operator, admin, guest, stranger, seated, gone]
        session.add_all(users)
        await session.flush()
        rooms = [
            _room(operator, private=False, spectators=False),  # public: everyone watches
            _room(operator, private=True, spectators=True),  # private, open to spectators
            _room(operator, private=True, spectators=False),  # closed: invited, staff and seated only
        ]
        session.add_all(rooms)
        await session.flush()
        session.add_all(
            [RoomInvite(room_id=r.id, user_id=guest.id, invited_by=operator.id, at=0.0) for r in rooms]
        )
        tables = [
            GameTable(room_id=r.id, seats=3, conventions={}, status="playing", created_at=0.0) for r in rooms
        ]
        session.add_all(tables)
        await session.flush()
        # Seated at the closed room's table before it turned private: he keeps the view.
        session.add(TableSeat(table_id=tables[2].id, seat=0, user_id=seated.id))
        await session.commit()
        ids = [(u.id, u.name, u.token_generation, u.disabled) for u in users]
        places = [(t.id, t.room_id) for t in tables]
    statements: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    watchers: dict[tuple[str, int], bool] = {}
    for user_id, name, generation, disabled in ids:
        for table_id, room_id in places:
            statements.clear()
            async with engine.connect() as db:
                read = await socket_caller(db, user_id, table_id)
            assert len(statements) == 1, statements
            assert read is not None
            assert (read.id, read.name, read.token_generation, read.disabled) == (
                user_id,
                name,
                generation,
                disabled,
            )
            async with sessions() as other:  # what the separate reads decide
                user, room = await other.get(User, user_id), await other.get(Room, room_id)
                assert user is not None and room is not None
                expected = (await room_access(other, room, user)).may_watch or await is_seated(
                    other, table_id, user_id
                )
            assert read.may_watch is expected
            watchers[(name, places.index((table_id, room_id)))] = read.may_watch
    # The decisions themselves: the closed room's table is watched by its staff, the invited and the seated.
    assert [name for (name, table), may in watchers.items() if table == 2 and may] == [
        "op", "admin", "guest", "seated"
    ]  # fmt: skip
    assert all(may for (_, table), may in watchers.items() if table < 2)
    async with engine.connect() as db:
        unknown_table = await socket_caller(db, ids[3][0], 0)
        assert unknown_table is not None and unknown_table.may_watch  # refused later, as not found
        assert await socket_caller(db, 999_999, places[0][0]) is None
