"""Invites to private rooms (issue 11 §1): the room's operator invites players by name and creates or revokes
invite links; a logged-in player who opens a link is invited (recorded) and taken to the room.

Who may sit and watch follows from these rows (`app.server.accounts.privacy`). Every change is audited.
"""

from __future__ import annotations

import secrets
import time
from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.auth.users import name_key
from app.db.models import GameTable, Room, RoomInvite, RoomLink, TableSeat, User
from app.protocol.codes import ErrorCode
from app.server.accounts.audit import audit
from app.server.accounts.privacy import close_unwelcome_watchers, is_invited, is_staff
from app.server.errors import ApiError
from app.server.http.deps import ContextDep, CurrentUser, Id, OperatorUser, SessionDep
from app.server.http.routes.operator import own_room

router = APIRouter(prefix="/api", tags=["invites"])

# 32 random bytes, URL-safe base64 (43 characters): unguessable, and short enough for a chat message.
TOKEN_BYTES = 32
Token = Annotated[str, Path(min_length=16, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


class InviteIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: str = Field(min_length=1, max_length=64)


def link_path(token: str) -> str:
    """The site's page that redeems the link (docs/web.md); the page puts its own origin in front."""
    return f"/#/invite/{token}"


def _link_out(link: RoomLink) -> dict[str, Any]:
    return {
        "id": link.id,
        "token": link.token,
        "path": link_path(link.token),
        "created_at": link.created_at,
        "revoked_at": link.revoked_at,
        "uses": link.uses,
    }


@router.get("/operator/rooms/{room_id}/invites")
async def list_invites(room_id: Id, user: OperatorUser, session: SessionDep) -> dict[str, Any]:
    """The room's privacy settings, its invited players and its invite links (revoked ones included)."""
    room = await own_room(session, user, room_id)
    invited = (
        await session.execute(
            select(RoomInvite, User.name)
            .join(User, User.id == RoomInvite.user_id)
            .where(RoomInvite.room_id == room_id)
            .order_by(RoomInvite.id)
        )
    ).all()
    links = (
        await session.scalars(select(RoomLink).where(RoomLink.room_id == room_id).order_by(RoomLink.id))
    ).all()
    return {
        "room_id": room.id,
        "private": room.private,
        "spectators": room.spectators,
        "users": [
            {"user": name, "user_id": invite.user_id, "at": invite.at, "link_id": invite.link_id}
            for invite, name in invited
        ],
        "links": [_link_out(link) for link in links],
    }


@router.post("/operator/rooms/{room_id}/invites", status_code=201)
async def invite(room_id: Id, body: InviteIn, user: OperatorUser, session: SessionDep) -> dict[str, Any]:
    """Invite a player by name; inviting one already invited changes nothing (the same row is answered)."""
    room = await own_room(session, user, room_id)
    guest = await session.scalar(select(User).where(User.name_key == name_key(body.user)))
    if guest is None:
        raise ApiError(ErrorCode.UNKNOWN_USER, f"user: no user named {body.user!r}", "user")
    guest_id, guest_name = guest.id, guest.name
    existing = await session.scalar(
        select(RoomInvite).where(RoomInvite.room_id == room_id, RoomInvite.user_id == guest_id)
    )
    if existing is not None:
        return {"user": guest_name, "user_id": guest_id, "at": existing.at, "link_id": existing.link_id}
    at = time.time()
    session.add(RoomInvite(room_id=room.id, user_id=guest_id, invited_by=user.id, at=at))
    audit(session, user, "invite", f"room {room_id}", user=guest_name)
    try:
        await session.commit()
    except IntegrityError:  # invited by a concurrent request meanwhile: the same outcome
        await session.rollback()
    return {"user": guest_name, "user_id": guest_id, "at": at, "link_id": None}


@router.delete("/operator/rooms/{room_id}/invites/{user_id}")
async def uninvite(
    room_id: Id, user_id: Id, user: OperatorUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """Withdraw an invite: the player may no longer sit (a seat already taken stays theirs) nor, if the room
    is closed to spectators, watch (their spectator sockets close)."""
    room = await own_room(session, user, room_id)
    existing = await session.scalar(
        select(RoomInvite).where(RoomInvite.room_id == room_id, RoomInvite.user_id == user_id)
    )
    if existing is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"user {user_id} is not invited to room {room_id}")
    guest = await session.get(User, user_id)
    await session.delete(existing)
    audit(session, user, "uninvite", f"room {room_id}", user=guest.name if guest else user_id)
    await session.commit()
    await close_unwelcome_watchers(ctx, session, room)
    return {"user_id": user_id, "invited": False}


@router.post("/operator/rooms/{room_id}/links", status_code=201)
async def create_link(room_id: Id, user: OperatorUser, session: SessionDep) -> dict[str, Any]:
    room = await own_room(session, user, room_id)
    link = RoomLink(
        room_id=room.id,
        token=secrets.token_urlsafe(TOKEN_BYTES),
        created_by=user.id,
        created_at=time.time(),
        uses=0,
    )
    session.add(link)
    await session.flush()
    audit(session, user, "create_invite_link", f"room {room_id}", link=link.id)
    await session.commit()
    return _link_out(link)


@router.post("/operator/rooms/{room_id}/links/{link_id}/revoke")
async def revoke_link(room_id: Id, link_id: Id, user: OperatorUser, session: SessionDep) -> dict[str, Any]:
    """The link grants no more invites; those it granted stay (withdraw them one by one)."""
    await own_room(session, user, room_id)
    link = await session.get(RoomLink, link_id)
    if link is None or link.room_id != room_id:
        raise ApiError(ErrorCode.NOT_FOUND, f"no invite link {link_id} in room {room_id}")
    if link.revoked_at is None:
        link.revoked_at = time.time()
        audit(session, user, "revoke_invite_link", f"room {room_id}", link=link.id)
        await session.commit()
    return _link_out(link)


@router.post("/invites/{token}")
async def redeem(token: Token, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """A logged-in player opened an invite link: they are invited to its room (recorded, with the link)
    and told where to go: the room's first waiting table with a free seat, if any."""
    link = await session.scalar(select(RoomLink).where(RoomLink.token == token))
    if link is None:
        raise ApiError(ErrorCode.NOT_FOUND, "no such invite link")
    if link.revoked_at is not None:
        raise ApiError(ErrorCode.INVITE_REVOKED, "this invite link was revoked by the room's operator")
    room = await session.get(Room, link.room_id)
    if room is None or room.closed:
        raise ApiError(ErrorCode.ROOM_CLOSED, "the room is closed")
    out = {"room_id": room.id, "room": room.name, "table_id": await _free_table(session, room.id)}
    if not is_staff(room, user) and not await is_invited(session, room.id, user.id):
        session.add(
            RoomInvite(
                room_id=room.id, user_id=user.id, invited_by=link.created_by, link_id=link.id, at=time.time()
            )
        )
        link.uses += 1
        try:
            await session.commit()
        except IntegrityError:  # the same player's concurrent request invited them meanwhile
            await session.rollback()
    return out


async def _free_table(session: SessionDep, room_id: int) -> int | None:
    tables = (
        await session.execute(
            select(GameTable.id, GameTable.seats)
            .where(GameTable.room_id == room_id, GameTable.status == "waiting")
            .order_by(GameTable.id)
        )
    ).all()
    for table_id, seats in tables:
        taken = (await session.scalars(select(TableSeat.seat).where(TableSeat.table_id == table_id))).all()
        if len(taken) < seats:
            return int(table_id)
    return None
