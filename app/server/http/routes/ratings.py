"""Ratings over REST (issue 21 §1): leaderboards (site and room), a player's ratings and history, the
ratings of a table's players (shown at the table and in the lobby), a room's rating settings."""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, model_validator
from sqlalchemy import select

from app.auth.roles import Role
from app.auth.users import name_key
from app.db.models import GameTable, PlayerRating, Room, RoomSettings, TableSeat, User
from app.protocol.codes import ErrorCode
from app.server.accounts.audit import audit
from app.server.accounts.privacy import require_watch
from app.server.context import ServerContext
from app.server.errors import ApiError
from app.server.http.admission import step_aside
from app.server.http.deps import (
    MAX_ID,
    ContextDep,
    CurrentClaims,
    CurrentUser,
    Id,
    OperatorUser,
    SessionDep,
    watches_room,
)
from app.server.ratings import SITE, ratings_of, room_settings
from app.server.ratings.reading import history, leaderboard, shown
from app.server.tables.robot_levels import robot_level
from app.table import LIVE

router = APIRouter(prefix="/api/ratings", tags=["ratings"])

MAX_PAGE = 100
RATING_BOUND = 10_000


async def _visible_room(session: SessionDep, room_id: int, user: User) -> Room:
    room = await session.get(Room, room_id)
    if room is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no room {room_id}")
    await require_watch(session, room, user)
    return room


@router.get("/leaderboard")
async def get_leaderboard(
    user: CurrentUser,
    session: SessionDep,
    room: Annotated[int, Query(ge=0, le=MAX_ID)] = SITE,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
) -> dict[str, Any]:
    """The site's ladder (``room`` 0) or a room's: people only, best first by μ − 3σ (`app.ratings`)."""
    name = None
    if room != SITE:
        name = (await _visible_room(session, room, user)).name
    rows = await leaderboard(session, room, limit, offset)
    return {"room": room, "room_name": name, "offset": offset, "players": rows}


@router.get("/players/{name}")
async def player(name: str, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """A player's page: the site rating and history, and each room ladder they are on (history included)."""
    target = (await session.execute(select(User).where(User.name_key == name_key(name)))).scalar_one_or_none()
    if target is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no player {name}")
    rows = (
        await session.execute(
            select(PlayerRating, Room.name)
            .outerjoin(Room, Room.id == PlayerRating.ladder)
            .where(PlayerRating.user_id == target.id)
            .order_by(PlayerRating.ladder)
        )
    ).all()
    site = (await ratings_of(session, SITE, [target.id]))[target.id]
    rooms = []
    for row, room_name in rows:
        if row.ladder == SITE:
            continue
        room = await session.get(Room, row.ladder)
        if room is None or not await _may_see(session, room, user):
            continue
        rooms.append({"room": row.ladder, "room_name": room_name, **shown(row.mu, row.sigma, row.games),
                      "history": await history(session, row.ladder, target.id)})  # fmt: skip
    return {
        "user": target.name,
        "robot": robot_level(target.name),
        "site": site,
        "history": await history(session, SITE, target.id),
        "rooms": rooms,
    }


async def _may_see(session: SessionDep, room: Room, user: User) -> bool:
    try:
        await require_watch(session, room, user)
    except ApiError:
        return False
    return True


@router.get("/tables/{table_id}")
async def table_ratings(table_id: Id, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """The seated players' ratings (the room's ladder and the site's), for the table page and the lobby."""
    table = await session.get(GameTable, table_id)
    if table is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id}")
    await _visible_room(session, table.room_id, user)
    seats = (
        await session.execute(
            select(TableSeat.seat, TableSeat.user_id, User.name)
            .join(User, User.id == TableSeat.user_id)
            .where(TableSeat.table_id == table_id)
            .order_by(TableSeat.seat)
        )
    ).all()
    ids = [int(u) for _, u, _ in seats]
    room = await ratings_of(session, table.room_id, ids)
    site = await ratings_of(session, SITE, ids)
    return {
        "table": table_id,
        "room": table.room_id,
        # A practice room's table: its players may ask for the solver's hint (routes.practice).
        "practice": not (await room_settings(session, table.room_id)).rated,
        "seats": [
            {
                "seat": s,
                "user": n,
                "robot": robot_level(n),
                "room_rating": room[int(u)],
                "site_rating": site[int(u)],
            }
            for s, u, n in seats
        ],
    }


@router.get("/rooms/{room_id}/seated", response_model=dict[str, Any])
async def room_seated(room_id: Id, claims: CurrentClaims, ctx: ContextDep) -> Response:
    """The lobby's view: for each table of the room still in play, each seated player's rating on the
    room's ladder (``tables: {table: {seat: rating}}``), and whether the room broadcasts its tables. The
    same for every viewer who may see the room: built once and shared for `Settings.lobby_answer_ms`
    (`http.shared_answers`; the lobby asks it for every viewer every 3 s)."""
    if not await watches_room(ctx, claims, room_id):
        raise ApiError(ErrorCode.NOT_FOUND, f"no room {room_id}")
    step_aside()
    return Response(await shared_seated(ctx, room_id), media_type="application/json")


async def shared_seated(ctx: ServerContext, room_id: int) -> bytes:
    """`room_seated`'s answer, encoded, as shared by the room's viewers (their access checked before)."""
    return await ctx.answers.get(("seated", room_id), "room_seated", lambda: _room_seated(ctx, room_id))


async def _room_seated(ctx: ServerContext, room_id: int) -> bytes:
    async with ctx.sessions() as session:
        rows = (
            await session.execute(
                select(TableSeat.table_id, TableSeat.seat, TableSeat.user_id)
                .join(GameTable, GameTable.id == TableSeat.table_id)
                .where(GameTable.room_id == room_id, GameTable.status.in_(LIVE))
            )
        ).all()
        ratings = await ratings_of(session, room_id, {int(u) for _, _, u in rows})
        out: dict[str, dict[str, Any]] = {}
        for table_id, seat, user_id in rows:
            out.setdefault(str(table_id), {})[str(seat)] = ratings[int(user_id)]
        broadcast = bool((await room_settings(session, room_id)).broadcast)
    return orjson.dumps({"broadcast": broadcast, "tables": out})


class RoomRatingsIn(BaseModel):
    """A room's settings of issue 21: ``rated`` false makes a practice room (its games never rated); the
    limits are on the room ladder's shown rating (null: none); ``broadcast`` shows spectators every hand
    one deal behind."""

    model_config = ConfigDict(extra="forbid")

    rated: StrictBool = True
    min_rating: int | None = Field(None, ge=0, le=RATING_BOUND)
    max_rating: int | None = Field(None, ge=0, le=RATING_BOUND)
    broadcast: StrictBool = False  # spectators see every hand one deal behind (routes.broadcast)

    @model_validator(mode="after")
    def _ordered(self) -> RoomRatingsIn:
        if self.min_rating is not None and self.max_rating is not None and self.min_rating > self.max_rating:
            raise ValueError("min_rating must not exceed max_rating")
        return self


def _settings_out(row: RoomSettings) -> dict[str, Any]:
    return {"room": row.room_id, "rated": row.rated is not False, "min_rating": row.min_rating,
            "max_rating": row.max_rating, "broadcast": bool(row.broadcast)}  # fmt: skip


@router.get("/rooms/{room_id}/settings")
async def get_room_settings(room_id: Id, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    await _visible_room(session, room_id, user)
    return _settings_out(await room_settings(session, room_id))


@router.put("/rooms/{room_id}/settings")
async def put_room_settings(
    room_id: Id, body: RoomRatingsIn, user: OperatorUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """The room's operator (or an admin) sets them; games already rated keep their ratings."""
    room = await session.get(Room, room_id)
    if room is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no room {room_id}")
    if room.operator_id != user.id and not Role(user.role).allows(Role.ADMIN):
        raise ApiError(ErrorCode.FORBIDDEN, "an operator acts only on their own rooms")
    row = await session.get(RoomSettings, room_id)
    if row is None:
        row = RoomSettings(room_id=room_id)
        session.add(row)
    row.rated, row.min_rating, row.max_rating = body.rated, body.min_rating, body.max_rating
    row.broadcast = body.broadcast
    audit(session, user, "room_ratings", f"room {room_id}", **body.model_dump())
    await session.commit()
    ctx.answers.forget(("seated", room_id))  # its `broadcast`
    return _settings_out(row)
