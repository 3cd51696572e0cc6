"""Rooms and tables: the lobby (list, create, sit, leave) and game history."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Depends, Path, Query, Request, Response
from pydantic import BaseModel, Field, StrictBool, TypeAdapter
from sqlalchemy import BindParameter, Integer, Select, bindparam, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased, outerjoin

from app.auth.roles import Role
from app.auth.tokens import TokenClaims
from app.db.models import GameTable, Room, RoomSettings, SeatHolder, TableSeat, User
from app.engine.conventions import ConventionError, Conventions, conventions_from
from app.protocol.codes import ErrorCode
from app.server.accounts.audit import audit
from app.server.accounts.privacy import (
    access,
    access_of,
    invited_here,
    invited_to,
    require_access_to_sit,
    require_watch,
    room_access,
    rooms_visible_to,
    staff_of,
    watched_table,
)
from app.server.accounts.shared_caps import sit_lease
from app.server.cluster.peers import live_details
from app.server.context import ServerContext
from app.server.errors import ApiError
from app.server.http.admission import step_aside, waiting_off_the_pool
from app.server.http.deps import (
    MAX_ID,
    ContextDep,
    CurrentClaims,
    CurrentUser,
    Id,
    OperatorUser,
    SessionDep,
    bearer_token,
    live_account_on,
    require_live,
    user_from_token,
    watches_room,
)
from app.server.http.handlers import refusal
from app.server.http.routes.ratings import shared_seated
from app.server.ratings import require_rating_within
from app.server.tables.actor import TableActor
from app.server.tables.commands import Leave, SeatError, Sit, Stop, Unseat
from app.server.tables.live import TableLive, live_of
from app.server.tables.registry import get_actor, place_table
from app.server.tables.robot_levels import robot_level
from app.server.tables.robot_seats import attach_robots, robot_user
from app.table import LIVE

router = APIRouter(prefix="/api", tags=["lobby"])
log = logging.getLogger(__name__)

MAX_PAGE = 100


class RoomIn(BaseModel):
    name: str = Field(min_length=1, max_length=128)
    preset: str = Field("fspr-leningrad", max_length=64)
    overrides: dict[str, Any] = Field(default_factory=dict)
    private: StrictBool = False  # strict: "yes" or 1 is a 422, not a guess
    spectators: StrictBool = True


class RoomOut(BaseModel):
    id: int
    name: str
    operator: str
    preset: str
    overrides: dict[str, Any]
    conventions: dict[str, Any]
    private: bool = False
    spectators: bool = True  # whether anyone may watch a private room's tables
    may_sit: bool = True  # for the caller: a private room seats only invited players


class TableIn(BaseModel):
    seats: int = Field(3)
    overrides: dict[str, Any] = Field(default_factory=dict)


class SeatOut(BaseModel):
    seat: int
    user: str | None
    connected: bool
    robot: str | None = None  # a robot seat's level


class TableOut(BaseModel):
    id: int
    room_id: int
    seats: int
    status: str
    players: list[SeatOut]
    conventions: dict[str, Any]
    finish_reason: str | None = None
    settlement: dict[str, Any] | None = None


class SitIn(BaseModel):
    seat: int | None = Field(None, ge=0, le=3)


class RobotIn(BaseModel):
    seat: int | None = Field(None, ge=0, le=3)
    level: Literal["easy", "normal", "strong", "random"] = "strong"


class StopIn(BaseModel):
    reason: str = Field(min_length=1, max_length=200)


def _validate_conventions(preset: str, overrides: dict[str, Any]) -> Conventions:
    try:
        return conventions_from(preset, overrides)
    except ConventionError as exc:
        field = str(exc).split(":", 1)[0]
        raise ApiError(ErrorCode.INVALID_CONVENTION, str(exc), field) from None


async def _room_out(session: SessionDep, room: Room, viewer: User) -> RoomOut:
    operator = await session.get(User, room.operator_id)
    may_sit = (await room_access(session, room, viewer)).may_sit
    return _room_model(room, None if operator is None else operator.name, may_sit)


def _room_model(room: Any, operator: str | None, may_sit: bool) -> RoomOut:
    """A room (an ORM row, or a statement's row with the same columns) as the caller sees it."""
    return RoomOut(
        id=room.id,
        name=room.name,
        operator=operator or "?",
        preset=room.preset,
        overrides=room.overrides,
        conventions=room.conventions,
        private=room.private,
        spectators=room.spectators,
        may_sit=may_sit,
    )


async def _table_out(
    ctx: ContextDep, session: SessionDep, table: GameTable, live: TableLive | None = None
) -> TableOut:
    """The table as its owner sees it now (``live``, this worker's own when not given), else as stored."""
    if live is None and (actor := ctx.tables.get(table.id)) is not None:
        live = live_of(actor)
    if live is not None:
        players = [SeatOut(**info.model_dump()) for info in live.players]
        status = live.status
    else:
        rows = (
            await session.execute(
                select(TableSeat.seat, User.name)
                .join(User, User.id == TableSeat.user_id)
                .where(TableSeat.table_id == table.id)
            )
        ).all()
        names = dict(rows)
        players = [
            SeatOut(seat=s, user=names.get(s), connected=False, robot=robot_level(names.get(s)))
            for s in range(table.seats)
        ]
        status = table.status
    return TableOut(
        id=table.id,
        room_id=table.room_id,
        seats=table.seats,
        status=status,
        players=players,
        conventions=table.conventions,
        finish_reason=table.finish_reason,
        settlement=table.settlement,
    )


@router.get("/rooms")
async def list_rooms(
    claims: CurrentClaims,
    ctx: ContextDep,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = MAX_PAGE,
    after: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
) -> list[RoomOut]:
    """Open rooms by id, a page at a time: ``after`` is the last id of the previous page. A private room
    closed to spectators is listed only to those who may sit there (`app.server.accounts.privacy`)."""
    return await _visible_rooms(ctx, claims, limit, after)


class LobbyRoomOut(BaseModel):
    """One room of the lobby's page: the room as `GET /api/rooms` lists it, its tables as `GET
    /api/rooms/{id}/tables` and its seated players' ratings as `GET /api/ratings/rooms/{id}/seated`."""

    room: RoomOut
    tables: list[TableOut]
    seated: dict[str, Any] | None  # None: they could not be read just now (the tables are shown all the same)


@router.get("/lobby", response_model=list[LobbyRoomOut])
async def lobby(
    claims: CurrentClaims,
    ctx: ContextDep,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = MAX_PAGE,
    after: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
) -> Response:
    """What the lobby's page shows, in one request (it asks every 3 s): the rooms the caller may watch, a
    page at a time as `GET /api/rooms`, each with its tables and its seated players' ratings. Those two are
    the same for every viewer of a room: built once and shared (`http.shared_answers`), embedded as they
    were encoded. Asked room by room, a lobby of N rooms cost each viewer 2N + 1 requests."""
    rooms = await _visible_rooms(ctx, claims, limit, after)
    step_aside()
    out = []
    for room in rooms:
        tables = orjson.Fragment(await _shared_tables(ctx, room.id))
        try:
            seated: orjson.Fragment | None = orjson.Fragment(await shared_seated(ctx, room.id))
        except Exception:  # the ratings are the page's extra: the room's tables are shown without them
            log.exception("lobby: the seated players' ratings of room %s could not be read", room.id)
            seated = None
        out.append({"room": room.model_dump(), "tables": tables, "seated": seated})
    # (One room after the other: the builds that are due take a pooled connection each, outside the
    # request's own admission.)
    return Response(orjson.dumps(out), media_type="application/json")


async def _visible_rooms(ctx: ServerContext, claims: TokenClaims, limit: int, after: int) -> list[RoomOut]:
    """The caller's account, then the rooms he may watch with each one's operator and whether he is invited
    there, read in two statements on one connection without an ORM session: every viewer of the lobby asks
    it every 3 s, and a room's operator and invitation read apart cost two statements a room (issue 24)."""
    async with ctx.engine.connect() as db:
        viewer = await live_account_on(db, claims.user_id, claims.generation)
        admin = Role(viewer.role).allows(Role.ADMIN)
        rows = await db.execute(_ROOMS[admin], {"viewer": viewer.id, "after": after, "limit": limit})

    def may_sit(row: Any) -> bool:
        staff = staff_of(row.operator_id, viewer.id, viewer.role)
        return access(row.private, row.spectators, staff, bool(row.invited)).may_sit

    return [_room_model(row, row.operator, may_sit(row)) for row in rows]


def _rooms_read(admin: bool) -> Select[Any]:
    """The lobby's rooms for a viewer (bound: ``viewer``, ``after``, ``limit``), built once for each kind of
    viewer: those `visible_rooms` lets him watch, with what each one's `RoomOut` needs."""
    viewer: BindParameter[int] = bindparam("viewer")
    return (
        select(
            Room.id,
            Room.name,
            User.name.label("operator"),
            Room.operator_id,
            Room.preset,
            Room.overrides,
            Room.conventions,
            Room.private,
            Room.spectators,
            invited_to(viewer).label("invited"),
        )
        .outerjoin(User, User.id == Room.operator_id)
        .where(Room.closed.is_(False), Room.id > bindparam("after"), rooms_visible_to(viewer, admin=admin))
        .order_by(Room.id)
        .limit(bindparam("limit", type_=Integer))
    )


_ROOMS = {admin: _rooms_read(admin) for admin in (False, True)}


@router.post("/rooms", status_code=201)
async def create_room(body: RoomIn, user: OperatorUser, session: SessionDep) -> RoomOut:
    conventions = _validate_conventions(body.preset, body.overrides)
    validated = conventions.model_dump(mode="json")
    room = Room(
        name=body.name,
        operator_id=user.id,
        preset=body.preset,
        # The validated values, not the request's: `1e999` was a float infinity there.
        overrides={key: validated[key] for key in body.overrides},
        conventions=validated,
        created_at=time.time(),
        private=body.private,
        spectators=body.spectators,
    )
    session.add(room)
    await session.commit()
    return await _room_out(session, room, user)


@router.get("/rooms/{room_id}")
async def get_room(room_id: Id, user: CurrentUser, session: SessionDep) -> RoomOut:
    room = await session.get(Room, room_id)
    if room is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no room {room_id}")
    await require_watch(session, room, user)
    return await _room_out(session, room, user)


@router.get("/rooms/{room_id}/tables", response_model=list[TableOut])
async def list_tables(room_id: Id, claims: CurrentClaims, ctx: ContextDep) -> Response:
    """The room's tables, the same for every viewer who may watch the room: built once and shared for
    `Settings.lobby_answer_ms` (`http.shared_answers`; the lobby asks it for every viewer every 3 s)."""
    if not await watches_room(ctx, claims, room_id):
        return Response(b"[]", media_type="application/json")  # (kept by no one: ids are the caller's)
    step_aside()
    return Response(await _shared_tables(ctx, room_id), media_type="application/json")


async def _shared_tables(ctx: ServerContext, room_id: int) -> bytes:
    return await ctx.answers.get(("tables", room_id), "room_tables", lambda: _room_tables(ctx, room_id))


_TABLES_OUT = TypeAdapter(list[TableOut])


async def _room_tables(ctx: ServerContext, room_id: int) -> bytes:
    async with ctx.sessions() as session:
        in_room = select(GameTable).where(GameTable.room_id == room_id).order_by(GameTable.id)
        tables = (await session.execute(in_room)).scalars().all()
        # Several workers: each live table's connections and status from the worker that runs it.
        await session.commit()  # holding no database connection while the workers answer
        live = await live_details(ctx, [t.id for t in tables if t.status in LIVE])
        return _TABLES_OUT.dump_json([await _table_out(ctx, session, t, live.get(t.id)) for t in tables])


@router.post("/rooms/{room_id}/tables", status_code=201)
async def open_table(
    room_id: Id, body: TableIn, user: OperatorUser, ctx: ContextDep, session: SessionDep
) -> TableOut:
    room = await session.get(Room, room_id)
    if room is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no room {room_id}")
    if room.operator_id != user.id and not Role(user.role).allows(Role.ADMIN):
        raise ApiError(ErrorCode.FORBIDDEN, "only the room's operator opens tables in it")
    if room.closed:  # admin: a closed room opens no more tables
        raise ApiError(ErrorCode.ROOM_CLOSED, "the room is closed")
    if body.seats not in (3, 4):
        raise ApiError(ErrorCode.INVALID_REQUEST, "seats: a table has 3 or 4 seats", "seats")
    conventions = _validate_conventions(room.preset, {**room.overrides, **body.overrides})
    live = await session.scalar(
        select(func.count())
        .select_from(GameTable)
        .join(Room, Room.id == GameTable.room_id)
        .where(Room.operator_id == room.operator_id, GameTable.status.in_(LIVE))
    )
    cap = ctx.settings.max_live_tables_per_operator
    if (live or 0) >= cap:
        raise ApiError(ErrorCode.TOO_MANY_TABLES, f"an operator has at most {cap} unfinished tables")
    table = GameTable(
        room_id=room.id,
        seats=body.seats,
        conventions=conventions.model_dump(mode="json"),
        first_dealer=secrets.randbelow(body.seats),  # the first deal goes by lot
        status="waiting",
        version=0,
        created_at=time.time(),
    )
    session.add(table)
    await session.commit()
    await place_table(ctx, table.id)
    ctx.answers.forget(("tables", room.id))
    return await _table_out(ctx, session, table)


@router.get("/tables/{table_id}")
async def get_table(table_id: Id, user: CurrentUser, ctx: ContextDep, session: SessionDep) -> TableOut:
    table = await watched_table(session, table_id, user)
    return await _table_out(ctx, session, table)


async def caller(request: Request, ctx: ContextDep) -> User:
    """The caller, read in a session closed at once: the handlers below wait for a table actor, whose
    commit needs a database connection, and must not hold one meanwhile (else a burst of them starves
    the pool the tables commit through)."""
    async with ctx.sessions() as session:
        return await user_from_token(ctx, session, bearer_token(request))


# A user loaded outside the request's session (the handlers that wait for a table).
Caller = Annotated[User, Depends(caller)]


async def _ask(future: asyncio.Future[Any], *, pool_done: bool = False) -> Any:
    """The actor's answer; the request's turn to run goes to the next while it waits (a table's queue may be
    long: a robot's search, an outage). ``pool_done``: the handler reads and writes nothing more itself, so
    its admission place goes too (`admission.waiting_off_the_pool`)."""
    step_aside()
    if pool_done:
        waiting_off_the_pool()
    try:
        return await asyncio.wait_for(future, timeout=30)
    except SeatError as exc:
        raise refusal(exc) from None


def _seats_changed(ctx: ServerContext) -> None:
    """A seat freed or a table stopped through this process: the lobby's shared answers (the rooms'
    tables, their seated players' ratings) are built anew at the next request (the table's room is not at
    hand in these handlers, and they are rare beside the lobby's polls). A player who leaves a table and
    goes back to the lobby sees the seat free; what a table changes itself (a substitute, a fourth's join,
    a seat freed for its player's absence) it tells the registry (`TableActor.on_listing`); another
    worker's changes show within `lobby_answer_ms`."""
    ctx.answers.forget()


def _require_operator(user: User) -> None:
    if not Role(user.role).allows(Role.OPERATOR):
        raise ApiError(ErrorCode.FORBIDDEN, f"this needs the {Role.OPERATOR.value} role")


async def _live_actor(ctx: ContextDep, table_id: int) -> TableActor:
    """The table's actor, if its game is not over: a finished table is not loaded into memory for a
    seat change (it would stay there), it is refused from its row."""
    actor = ctx.tables.get(table_id)
    if actor is None:
        async with ctx.sessions() as session:
            status = await session.scalar(select(GameTable.status).where(GameTable.id == table_id))
        if status is None:
            raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id}")
        if status not in LIVE:
            raise ApiError(ErrorCode.GAME_OVER, "the table's game is over")
        actor = await get_actor(ctx, table_id)
    if actor is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id}")
    return actor


@router.post("/tables/{table_id}/sit")
async def sit(table_id: Id, body: SitIn, claims: CurrentClaims, ctx: ContextDep) -> dict[str, int]:
    """A private room's table seats only its invited players (403 ``not_invited``, nothing stored); a room
    with rating limits only players rated within them (403 ``rating_out_of_range``, `app.server.ratings`).

    The user, the room's checks and the count of his waiting seats are read in one statement (`_sitter`;
    the token names the user for his sit lock); the player's rating is read only in a room with limits:
    under load every statement costs the loop its work and a round trip to the database, and a burst of
    sits at a busy server held the tables' acks back (issue 24)."""
    async with _one_sit_at_a_time(ctx, claims.user_id):
        async with ctx.sessions() as session:
            sitter = await _sitter(session, claims.user_id, table_id)
            user = require_live(sitter.user, claims.generation)
            room = sitter.room
            if room is not None:
                require_access_to_sit(access_of(room, user, sitter.invited))
                await require_rating_within(session, room, user, sitter.min_rating, sitter.max_rating)
        actor = await _live_actor(ctx, table_id)
        _limit_waiting_seats(ctx, user, actor, sitter.held)
        reply: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        actor.submit(Sit(user.id, user.name, body.seat, reply))
        # With several workers the sit lease is given back through the pool after the answer.
        seat = await _ask(reply, pool_done=ctx.cluster is None)
        if room is not None:
            ctx.answers.forget(("tables", room.id), ("seated", room.id))
        return {"seat": seat}


@dataclass(frozen=True, slots=True)
class _Sitter:
    """What a sit is decided on: the user (None: no such user), the table's room (None: no such table) with
    its rating limits and whether he is invited there, and his seats at waiting tables."""

    user: User | None
    room: Room | None
    min_rating: int | None
    max_rating: int | None
    invited: bool
    held: int


def _sit_read() -> Select[Any]:
    """Everything a sit checks, in one statement (bound: ``user``, ``table``), built once: made anew for
    every sit, its aliases' column proxies alone cost the loop more than the reads it replaced."""
    seats, tables = aliased(TableSeat), aliased(GameTable)
    held = (
        select(func.count())
        .select_from(seats)
        .join(tables, tables.id == seats.table_id)
        .where(seats.user_id == User.id, tables.status == "waiting")
        .correlate(User)
        .scalar_subquery()
    )
    joined = (
        outerjoin(User, GameTable, GameTable.id == bindparam("table"))
        .outerjoin(Room, Room.id == GameTable.room_id)
        .outerjoin(RoomSettings, RoomSettings.room_id == Room.id)
    )
    return (
        select(User, Room, RoomSettings.min_rating, RoomSettings.max_rating, invited_here(), held)
        .select_from(joined)
        .where(User.id == bindparam("user"))
    )


_SIT_READ = _sit_read()


async def _sitter(session: AsyncSession, user_id: int, table_id: int) -> _Sitter:
    """What a sit checks, read in one statement: each statement costs the event loop about 0.3 ms of the
    driver's and SQLAlchemy's work whatever it reads, and the sit read four (issue 24: a burst of sits
    beside busy tables)."""
    row = (await session.execute(_SIT_READ, {"user": user_id, "table": table_id})).first()
    if row is None:
        return _Sitter(None, None, None, None, False, 0)
    user, room, min_rating, max_rating, invited, count = row
    return _Sitter(user, room, min_rating, max_rating, bool(invited), count or 0)


# A user's sits one at a time in this process, and with several workers at all of them (the database's
# sit lease, `accounts.shared_caps`), so that two at once cannot both pass the seat limit.
_sitting: dict[int, asyncio.Lock] = {}


@contextlib.asynccontextmanager
async def _one_sit_at_a_time(ctx: ContextDep, user_id: int) -> AsyncIterator[None]:
    lock = _sitting.setdefault(user_id, asyncio.Lock())
    try:
        async with lock:
            if ctx.cluster is None:
                yield
            else:
                async with sit_lease(ctx.engine, user_id, autocommit=ctx.autocommit):
                    yield
    finally:
        if not lock.locked() and _sitting.get(user_id) is lock:
            del _sitting[user_id]


def _limit_waiting_seats(ctx: ContextDep, user: User, actor: TableActor, held: int) -> None:
    """Issue 25: one account took every waiting seat of the site. A user holds at most
    `max_waiting_seats_per_user` seats at tables that have not started (a started game's seat is not
    counted: its table is playing; robots are seated by operators, not through here). ``held``: his
    seats at waiting tables now (read under his sit lock)."""
    if actor.game is not None or user.id in actor.seating.users:
        return  # the table refuses it itself (game_started, already_seated)
    cap = ctx.settings.max_waiting_seats_per_user
    if held >= cap:
        raise ApiError(ErrorCode.TOO_MANY_SEATS, f"a player holds at most {cap} seats at waiting tables")


async def _check_room_operator(ctx: ContextDep, table_id: int, user: User, what: str) -> None:
    """404 for an unknown table, 403 unless ``user`` is the table's room operator or an admin."""
    async with ctx.sessions() as session:
        table = await session.get(GameTable, table_id)
        if table is None:
            raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id}")
        room = await session.get(Room, table.room_id)
        if room is not None and room.operator_id != user.id and not Role(user.role).allows(Role.ADMIN):
            raise ApiError(ErrorCode.FORBIDDEN, f"only the room's operator or an admin {what}")


@router.post("/tables/{table_id}/robots")
async def seat_robot(table_id: Id, body: RobotIn, user: Caller, ctx: ContextDep) -> dict[str, int | str]:
    """Issue 12: the room's operator (or an admin) seats a robot in an empty seat before the game starts."""
    _require_operator(user)
    await _check_room_operator(ctx, table_id, user, "seats robots")
    actor = await _live_actor(ctx, table_id)
    free = [s for s, u in enumerate(actor.seating.users) if u is None]
    seat = body.seat if body.seat is not None else (free[0] if free else None)
    if seat is None:
        raise ApiError(ErrorCode.TABLE_FULL, "no free seat")
    async with ctx.sessions() as session, session.begin():
        robot = await robot_user(session, body.level, seat)
        robot_id, name = robot.id, robot.name
    reply: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    actor.submit(Sit(robot_id, name, seat, reply))
    seated = await _ask(reply, pool_done=True)
    _seats_changed(ctx)
    attach_robots(ctx, actor)
    return {"seat": seated, "robot": name}


@router.post("/tables/{table_id}/leave")
async def leave(table_id: Id, user: Caller, ctx: ContextDep) -> dict[str, bool]:
    actor = await _live_actor(ctx, table_id)
    reply: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    actor.submit(Leave(user.id, reply))
    await _ask(reply, pool_done=True)
    _seats_changed(ctx)
    return {"left": True}


@router.post("/tables/{table_id}/seats/{seat}/remove")
async def remove_player(
    table_id: Id, seat: Annotated[int, Path(ge=0, le=3)], user: Caller, ctx: ContextDep
) -> dict[str, bool]:
    """Issue 25: the room's operator (or an admin) frees a seat of a table that has not started (a started
    game's seats are fixed, RULES §7.7: 409 ``game_started``); written to the audit log."""
    _require_operator(user)
    await _check_room_operator(ctx, table_id, user, "removes players")
    actor = await _live_actor(ctx, table_id)
    removed = actor.seating.names[seat] if seat < actor.seats else None
    reply: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    actor.submit(Unseat(seat, None, reply))
    await _ask(reply)
    _seats_changed(ctx)
    async with ctx.sessions() as session, session.begin():
        audit(session, user, "remove_player", f"table {table_id}", seat=seat, player=removed)
    return {"removed": True}


@router.post("/tables/{table_id}/stop")
async def stop_table(table_id: Id, body: StopIn, user: Caller, ctx: ContextDep) -> dict[str, bool]:
    """RULES §7.7: the room's operator (or an admin) ends a pulya early, with a recorded reason; the stop
    is written to the audit log once the table has stored it.

    No database connection is held while the table's actor works on the stop (it needs one to commit).
    """
    _require_operator(user)
    await _check_room_operator(ctx, table_id, user, "stops a table")
    actor = await _live_actor(ctx, table_id)
    reply: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    actor.submit(Stop(f"{user.name}: {body.reason}", reply))
    await _ask(reply)
    _seats_changed(ctx)
    async with ctx.sessions() as session, session.begin():
        audit(session, user, "stop_table", f"table {table_id}", reason=body.reason)
    return {"stopped": True}


@router.get("/history")
async def my_history(user: CurrentUser, ctx: ContextDep, session: SessionDep) -> list[TableOut]:
    """The games the caller played that are over or adjourned (RULES §7.7: an adjourned game is listed with
    its way back in), whether he holds his seat to the end or held it before a substitute."""
    held = select(SeatHolder.table_id).where(SeatHolder.user_id == user.id)
    seated = select(TableSeat.table_id).where(TableSeat.user_id == user.id)
    tables = (
        await session.execute(
            select(GameTable)
            .where(
                or_(GameTable.id.in_(seated), GameTable.id.in_(held)),
                GameTable.status.in_(("finished", "awaiting_adjudication", "adjourned")),
            )
            .order_by(GameTable.id)
        )
    ).scalars()
    return [await _table_out(ctx, session, t) for t in tables]
