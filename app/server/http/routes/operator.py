"""Club operators (issue 11 §1): edit and close their rooms, watch every live table of a room, read its
finished games. An operator acts only on their own rooms (an admin on any)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from sqlalchemy import select

from app.auth.roles import Role
from app.db.models import GameTable, Room, User
from app.protocol.codes import ErrorCode
from app.server.accounts.audit import audit
from app.server.accounts.privacy import close_unwelcome_watchers
from app.server.cluster.peers import live_details
from app.server.errors import ApiError
from app.server.http.admission import step_aside
from app.server.http.deps import ContextDep, Id, OperatorUser, SessionDep
from app.server.http.routes.lobby import RoomOut, _room_out, _table_out, _validate_conventions
from app.table import LIVE

router = APIRouter(prefix="/api/operator", tags=["operator"])


class RoomEdit(BaseModel):
    """Fields to change; conventions apply to tables opened afterwards (a running pulya keeps its own)."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, min_length=1, max_length=128)
    preset: str | None = Field(None, max_length=64)
    overrides: dict[str, Any] | None = None
    private: StrictBool | None = None  # only invited players may sit (app.server.accounts.privacy)
    spectators: StrictBool | None = None  # anyone may watch a private room's tables


async def own_room(session: SessionDep, user: User, room_id: int) -> Room:
    room = await session.get(Room, room_id)
    if room is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no room {room_id}")
    if room.operator_id != user.id and not Role(user.role).allows(Role.ADMIN):
        raise ApiError(ErrorCode.FORBIDDEN, "an operator acts only on their own rooms")
    return room


@router.get("/rooms")
async def my_rooms(user: OperatorUser, session: SessionDep) -> list[dict[str, Any]]:
    """The caller's rooms, closed ones included."""
    rooms = (
        await session.execute(select(Room).where(Room.operator_id == user.id).order_by(Room.id))
    ).scalars()
    return [{**(await _room_out(session, r, user)).model_dump(), "closed": r.closed} for r in rooms]


@router.patch("/rooms/{room_id}")
async def edit_room(
    room_id: Id, body: RoomEdit, user: OperatorUser, ctx: ContextDep, session: SessionDep
) -> RoomOut:
    """Turning a room private or closing it to spectators closes the sockets of the spectators who may no
    longer watch; seated players keep their seats."""
    room = await own_room(session, user, room_id)
    preset = body.preset if body.preset is not None else room.preset
    overrides = body.overrides if body.overrides is not None else room.overrides
    conventions = _validate_conventions(preset, overrides).model_dump(mode="json")
    if body.name is not None:
        room.name = body.name
    room.preset = preset
    room.overrides = {key: conventions[key] for key in overrides}
    room.conventions = conventions
    if body.private is not None:
        room.private = body.private
    if body.spectators is not None:
        room.spectators = body.spectators
    audit(session, user, "edit_room", f"room {room_id}", **body.model_dump(exclude_none=True))
    await session.commit()
    await close_unwelcome_watchers(ctx, session, room)
    return await _room_out(session, room, user)


@router.post("/rooms/{room_id}/close")
async def close_room(room_id: Id, user: OperatorUser, session: SessionDep) -> dict[str, Any]:
    """A closed room leaves the lobby's list and opens no more tables; its running games play on."""
    room = await own_room(session, user, room_id)
    room.closed = True
    audit(session, user, "close_room", f"room {room_id}")
    await session.commit()
    return {"id": room.id, "closed": True}


@router.get("/rooms/{room_id}/live")
async def live_tables(
    room_id: Id, user: OperatorUser, ctx: ContextDep, session: SessionDep
) -> list[dict[str, Any]]:
    """Every unfinished table of the room: seats, players, connection status, deal number, the clocks and
    the pool's progress (the sum of the pools against n·S)."""
    await own_room(session, user, room_id)
    tables = (
        (
            await session.execute(
                select(GameTable)
                .where(GameTable.room_id == room_id, GameTable.status.in_(LIVE))
                .order_by(GameTable.id)
            )
        )
        .scalars()
        .all()
    )
    # Several workers: every table's details from the worker that runs it (those of a worker that does
    # not answer: what the database holds, without deal and clocks).
    await session.commit()  # holding no database connection while the workers answer
    step_aside()
    details = await live_details(ctx, [t.id for t in tables])
    out = []
    for table in tables:
        live = details.get(table.id)
        row = (await _table_out(ctx, session, table, live)).model_dump()
        if live is not None and live.deal is not None:
            row.update(deal=live.deal, clock=live.clock, pools=live.pools)
        out.append(row)
    return out


@router.get("/rooms/{room_id}/games")
async def finished_games(
    room_id: Id, user: OperatorUser, ctx: ContextDep, session: SessionDep
) -> list[dict[str, Any]]:
    """The room's games that ended (or await an award), with their settlements."""
    await own_room(session, user, room_id)
    tables = (
        await session.execute(
            select(GameTable)
            .where(GameTable.room_id == room_id, GameTable.status.not_in(LIVE))
            .order_by(GameTable.id.desc())
            .limit(200)
        )
    ).scalars()
    return [
        {**(await _table_out(ctx, session, t)).model_dump(), "finished_at": t.finished_at} for t in tables
    ]
