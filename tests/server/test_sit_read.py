"""Issue 24: a sit reads what it is decided on — the user, the table's room, its rating limits, whether the
user is invited there, his seats at waiting tables — in one statement (`lobby._sitter`), and what it reads is
what the separate reads give (`live_user`'s row, `room_access`, the room's settings, the count of waiting
seats). So does a table socket, on a plain connection (`privacy.socket_caller`: the user's account and
whether he may watch the table, decided as `room_access` and `is_seated` decide), and a websocket ticket's
request (`deps.live_account`, decided as `live_user`). The refusals themselves
are checked end to end over REST and websockets (test_private_rooms, test_ratings, test_smaller_hardening,
test_database_down)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.db.engine import make_engine, make_sessionmaker
from app.db.models import Base, GameTable, Room, RoomInvite, RoomSettings, TableSeat, User
from app.server.accounts.privacy import access_of, is_seated, room_access, socket_caller
from app.server.errors import ApiError
from app.server.http.deps import live_account, live_user
from app.server.http.routes.lobby import _sitter
from tests.conftest import database_for


def _user(name: str, role: str = "player", *, disabled: bool = False, generation: int = 0) -> User:
    return User(name=name, name_key=name, password_hash="x", role=role, created_at=0.0, disabled=disabled,
                token_generation=generation)  # fmt: skip


def _room(operator: User, *, private: bool, spectators: bool = True) -> Room:
    return Room(name="club", operator_id=operator.id, preset="x", overrides={}, conventions={},
                created_at=0.0, private=private, spectators=spectators)  # fmt: skip


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


async def test_a_sockets_one_statement_decides_as_the_separate_reads(engine: AsyncEngine) -> None:
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
            _room(operator, private=True, spectators=False),  # closed, and the guest is not invited there
        ]
        session.add_all(rooms)
        await session.flush()
        session.add_all(
            [RoomInvite(room_id=r.id, user_id=guest.id, invited_by=operator.id, at=0.0) for r in rooms[:3]]
        )
        # A table in each room, and a second one in the first closed room.
        tables = [
            GameTable(room_id=r.id, seats=3, conventions={}, status="playing", created_at=0.0)
            for r in [*rooms, rooms[2]]
        ]
        session.add_all(tables)
        await session.flush()
        # Seated at the closed room's first table before it turned private: he keeps the view of that one.
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

    # The decisions themselves: a closed room's table is watched by its staff, the invited and its seated.
    def watching(table: int) -> list[str]:
        return [name for (name, at), may in watchers.items() if at == table and may]

    assert watching(2) == ["op", "admin", "guest", "seated"]
    assert watching(3) == ["op", "admin"]  # the guest is invited elsewhere, the seated sits elsewhere
    assert watching(4) == ["op", "admin", "guest"]  # the same closed room, a table he does not sit at
    assert all(may for (_, table), may in watchers.items() if table < 2)
    async with engine.connect() as db:
        unknown_table = await socket_caller(db, ids[3][0], 0)
        assert unknown_table is not None and unknown_table.may_watch  # refused later, as not found
        assert await socket_caller(db, 999_999, places[0][0]) is None


async def test_a_tickets_one_statement_decides_as_live_user(engine: AsyncEngine) -> None:
    """`POST /api/auth/ws-ticket` reads the account in one statement (`deps.live_account`), and refuses
    what `live_user` refuses: no such user, a disabled account, a revoked generation."""
    sessions = make_sessionmaker(engine)
    async with sessions() as session:
        users = [_user("live", generation=2), _user("gone", disabled=True), _user("old", generation=1)]
        session.add_all(users)
        await session.commit()
        ids = [u.id for u in users]
    statements: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    cases = [(ids[0], 2), (ids[0], 1), (ids[1], 0), (ids[2], 0), (ids[2], 1), (999_999, 0)]
    decisions = []
    for user_id, generation in cases:
        statements.clear()
        try:
            account = await live_account(engine, user_id, generation)
            mine: str | None = None
            assert (account.id, account.token_generation) == (user_id, generation)
        except ApiError as exc:
            mine = exc.message
        assert len(statements) == 1, statements
        async with sessions() as other:
            try:
                await live_user(other, user_id, generation)
                theirs: str | None = None
            except ApiError as exc:
                theirs = exc.message
        assert mine == theirs
        decisions.append(mine)
    assert decisions == [
        None,
        "the token was revoked",
        "the account is disabled",
        "the token was revoked",
        None,
        "the token's user no longer exists",
    ]
