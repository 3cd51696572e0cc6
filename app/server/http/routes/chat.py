"""Table chat over REST (issue 22 §4; docs/protocol.md "Table chat"). A new message reaches the table's
sockets as a ``chat`` frame; the routes that name the table in their path are served by the worker that
runs it (`app.server.http.forward`), so its sockets get the frame.

Players: read and write (`GET`/`POST /api/tables/ID/chat`), mute another for themselves, report a message
with its context. The room's operator and administrators: the reports, remove a message, mute a user in
the room (administrators also site-wide) for a time, lift a mute; every moderation step is audited.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from app.auth.roles import Role
from app.auth.users import name_key
from app.db.models import ChatIgnore, ChatMessage, ChatMute, ChatReport, GameTable, Room, User
from app.protocol.codes import ErrorCode
from app.server.accounts import chat
from app.server.accounts.audit import audit
from app.server.accounts.privacy import is_staff
from app.server.cluster.peers import tell_others
from app.server.errors import ApiError
from app.server.http.deps import ContextDep, CurrentUser, Id, OperatorUser, SessionDep
from app.server.http.routes.operator import own_room
from app.table.chat import Channel, may_read

router = APIRouter(prefix="/api", tags=["chat"])

CONTEXT_AROUND = 5  # messages kept before and after a reported one
MAX_MUTE_MINUTES = 60 * 24 * 365


class ChatIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(None, max_length=4000)
    preset: str | None = Field(None, max_length=32)


class ReportIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str = Field("", max_length=500)


class RemoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str = Field(min_length=1, max_length=500)


class MuteIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: str = Field(min_length=1, max_length=64)
    room: int | None = Field(None, ge=1)  # None: site-wide (administrators only)
    minutes: int = Field(ge=1, le=MAX_MUTE_MINUTES)
    reason: str = Field(min_length=1, max_length=500)


class RoomChatIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    closed_in_deals: bool
    retention_days: int = Field(ge=1, le=3650)


@router.get("/tables/{table_id}/chat")
async def read_chat(table_id: Id, user: CurrentUser, session: SessionDep, ctx: ContextDep) -> dict[str, Any]:
    """The messages the caller may read, where he writes and whether he may now (see `accounts.chat`)."""
    return await chat.history(ctx, session, table_id, user)


@router.post("/tables/{table_id}/chat", status_code=201)
async def write_chat(
    table_id: Id, body: ChatIn, user: CurrentUser, session: SessionDep, ctx: ContextDep
) -> dict[str, Any]:
    """A message (text, or a preset's key) to the caller's channel; stored before it is sent."""
    message = await chat.post(ctx, session, table_id, user, text=body.text, preset=body.preset)
    await session.commit()

    await chat.publish(ctx, session, table_id, message, user.id)
    return message.model_dump()


async def _message(session: SessionDep, message_id: int) -> tuple[ChatMessage, Room]:
    row = await session.get(ChatMessage, message_id)
    room = None if row is None else await session.get(Room, row.room_id)
    if row is None or room is None:
        raise ApiError(ErrorCode.UNKNOWN_MESSAGE, f"no chat message {message_id}")
    return row, room


@router.post("/chat/messages/{message_id}/report", status_code=201)
async def report_message(
    message_id: Id, body: ReportIn, user: CurrentUser, session: SessionDep
) -> dict[str, Any]:
    """Report a message the caller can read; the messages around it are kept with the report as they stand
    (a later removal or the room's retention does not lose them)."""
    row, room = await _message(session, message_id)
    seated = await chat.seated_users(session, row.table_id)
    await chat.table_and_room(session, row.table_id, user)
    if row.deleted_at is not None or not may_read(Channel(row.channel), user.id in seated):
        raise ApiError(ErrorCode.UNKNOWN_MESSAGE, f"no chat message {message_id}")
    near = select(ChatMessage).where(ChatMessage.table_id == row.table_id, ChatMessage.channel == row.channel)
    before = (
        await session.execute(
            near.where(ChatMessage.id <= row.id).order_by(ChatMessage.id.desc()).limit(CONTEXT_AROUND + 1)
        )
    ).scalars()
    after = (
        await session.execute(
            near.where(ChatMessage.id > row.id).order_by(ChatMessage.id).limit(CONTEXT_AROUND)
        )
    ).scalars()
    context = [
        {**chat.entry(m).model_dump(), "reported": m.id == row.id} for m in [*reversed(list(before)), *after]
    ]
    report = ChatReport(
        message_id=row.id,
        room_id=room.id,
        reporter_id=user.id,
        reporter_name=user.name,
        reason=body.reason,
        context=context,
        at=time.time(),
    )
    session.add(report)
    await session.flush()
    await session.commit()
    return {"id": report.id, "message": row.id}


@router.put("/chat/ignores/{name}", status_code=204)
async def ignore_user(name: str, user: CurrentUser, session: SessionDep) -> Response:
    """Mute a user for oneself: his messages no longer reach the caller (on any table)."""
    other = await session.scalar(select(User).where(User.name_key == name_key(name)))
    if other is None or other.id == user.id:
        raise ApiError(ErrorCode.UNKNOWN_USER, f"no other user named {name!r}", field="user")
    if await session.get(ChatIgnore, (user.id, other.id)) is None:
        session.add(ChatIgnore(user_id=user.id, ignored_id=other.id, at=time.time()))
    await session.commit()

    return Response(status_code=204)


@router.delete("/chat/ignores/{name}", status_code=204)
async def unignore_user(name: str, user: CurrentUser, session: SessionDep) -> Response:
    other = await session.scalar(select(User).where(User.name_key == name_key(name)))
    found = None if other is None else await session.get(ChatIgnore, (user.id, other.id))
    if found is not None:
        await session.delete(found)
    await session.commit()

    return Response(status_code=204)


async def _staff_rooms(session: SessionDep, user: User) -> list[int] | None:
    """The rooms whose chat the caller moderates: None for an administrator (all)."""
    if Role(user.role).allows(Role.ADMIN):
        return None
    return list((await session.execute(select(Room.id).where(Room.operator_id == user.id))).scalars())


@router.get("/chat/reports")
async def list_reports(user: OperatorUser, session: SessionDep, resolved: bool = False) -> dict[str, Any]:
    """The reports of the caller's rooms (every room for an administrator), open ones unless asked."""
    rooms = await _staff_rooms(session, user)
    query = (
        select(ChatReport, ChatMessage, GameTable.room_id)
        .join(ChatMessage, ChatMessage.id == ChatReport.message_id)
        .join(GameTable, GameTable.id == ChatMessage.table_id)
    )
    if rooms is not None:
        query = query.where(ChatReport.room_id.in_(rooms))
    query = query.where(ChatReport.resolved_at.is_not(None) if resolved else ChatReport.resolved_at.is_(None))
    rows = (await session.execute(query.order_by(ChatReport.id.desc()).limit(500))).all()
    return {
        "reports": [
            {
                "id": report.id,
                "room": room_id,
                "table": message.table_id,
                "message": {**chat.entry(message).model_dump(), "deleted": message.deleted_at is not None},
                "user_id": message.user_id,
                "reporter": report.reporter_name,
                "reason": report.reason,
                "context": report.context,
                "at": report.at,
                "resolved_by": report.resolved_by,
            }
            for report, message, room_id in rows
        ]
    }


@router.post("/chat/reports/{report_id}/resolve", status_code=204)
async def resolve_report(report_id: Id, user: OperatorUser, session: SessionDep) -> Response:
    """Close a report without removing its message (audited)."""
    report = await session.get(ChatReport, report_id)
    room = None if report is None else await session.get(Room, report.room_id)
    if report is None or room is None or not is_staff(room, user):
        raise ApiError(ErrorCode.NOT_FOUND, f"no report {report_id} in your rooms")
    report.resolved_at, report.resolved_by = time.time(), user.name
    audit(session, user, "chat_resolve_report", f"chat report {report_id}", message=report.message_id)
    await session.commit()

    return Response(status_code=204)


@router.delete("/tables/{table_id}/chat/{message_id}", status_code=204)
async def remove_message(  # noqa: PLR0917 - FastAPI passes the path, the body and the dependencies
    table_id: Id,
    message_id: Id,
    body: RemoveIn,
    user: OperatorUser,
    session: SessionDep,
    ctx: ContextDep,
) -> Response:
    """The room's operator or an administrator removes a message: gone from every page at once (the
    table's sockets are told), kept for the reports and the audit; its reports are resolved."""
    row, room = await _message(session, message_id)
    if row.table_id != table_id:
        raise ApiError(ErrorCode.UNKNOWN_MESSAGE, f"no chat message {message_id} at table {table_id}")
    if not is_staff(room, user):
        raise ApiError(ErrorCode.FORBIDDEN, "only the room's operator or an administrator removes messages")
    now = time.time()
    if row.deleted_at is None:
        row.deleted_at, row.deleted_by = now, user.name
    for report in (
        await session.execute(select(ChatReport).where(ChatReport.message_id == row.id))
    ).scalars():
        if report.resolved_at is None:
            report.resolved_at, report.resolved_by = now, user.name
    audit(
        session,
        user,
        "chat_remove",
        f"chat message {message_id}",
        table=table_id,
        writer=row.user_name,
        text=row.text,
        reason=body.reason,
    )
    await session.commit()

    chat.publish_removed(ctx, table_id, message_id)
    return Response(status_code=204)


@router.post("/chat/mutes", status_code=201)
async def mute_user(body: MuteIn, user: OperatorUser, session: SessionDep, ctx: ContextDep) -> dict[str, Any]:
    """Mute a user for ``minutes``: in a room (its operator or an administrator) or site-wide
    (administrators only). Audited; the muted user's open tables are told at once."""
    target = await session.scalar(select(User).where(User.name_key == name_key(body.user)))
    if target is None:
        raise ApiError(ErrorCode.UNKNOWN_USER, f"no user named {body.user!r}", field="user")
    if body.room is None:
        if not Role(user.role).allows(Role.ADMIN):
            raise ApiError(ErrorCode.FORBIDDEN, "only an administrator mutes site-wide")
        tables: set[int] | None = None
    else:
        await own_room(session, user, body.room)
        tables = set(
            (await session.execute(select(GameTable.id).where(GameTable.room_id == body.room))).scalars()
        )
    now = time.time()
    mute = ChatMute(
        user_id=target.id,
        room_id=body.room,
        until=now + body.minutes * 60,
        by_name=user.name,
        reason=body.reason,
        at=now,
    )
    session.add(mute)
    await session.flush()
    audit(
        session,
        user,
        "chat_mute",
        f"user {target.name}",
        room=body.room,
        minutes=body.minutes,
        until=mute.until,
        reason=body.reason,
    )
    out = {
        "id": mute.id,
        "user": target.name,
        "room": body.room,
        "until": mute.until,
        "reason": body.reason,
    }
    await session.commit()

    chat.tell_muted(ctx, mute, tables)
    # Several workers: the user's sockets at the others' tables are told by their own workers.
    await tell_others(ctx, "/internal/muted", {"mute": str(out["id"])})
    return out


@router.get("/chat/mutes")
async def list_mutes(user: OperatorUser, session: SessionDep) -> dict[str, Any]:
    """Mutes in force in the caller's rooms (all, site-wide ones included, for an administrator)."""
    rooms = await _staff_rooms(session, user)
    query = (
        select(ChatMute, User.name)
        .join(User, User.id == ChatMute.user_id)
        .where(ChatMute.until > time.time())
    )
    if rooms is not None:
        query = query.where(ChatMute.room_id.in_(rooms))
    rows = (await session.execute(query.order_by(ChatMute.until))).all()
    return {
        "mutes": [
            {
                "id": m.id,
                "user": name,
                "room": m.room_id,
                "until": m.until,
                "by": m.by_name,
                "reason": m.reason,
            }
            for m, name in rows
        ]
    }


@router.delete("/chat/mutes/{mute_id}", status_code=204)
async def lift_mute(mute_id: Id, user: OperatorUser, session: SessionDep) -> Response:
    """End a mute now (audited): a room's by its operator or an administrator, a site-wide one by an
    administrator."""
    mute = await session.get(ChatMute, mute_id)
    if mute is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no mute {mute_id}")
    if mute.room_id is None:
        if not Role(user.role).allows(Role.ADMIN):
            raise ApiError(ErrorCode.FORBIDDEN, "only an administrator lifts a site-wide mute")
    else:
        await own_room(session, user, mute.room_id)
    mute.until = min(mute.until, time.time())
    audit(session, user, "chat_unmute", f"mute {mute_id}", user_id=mute.user_id, room=mute.room_id)
    await session.commit()

    return Response(status_code=204)


def _room_chat_out(room: Room) -> dict[str, Any]:
    return {
        "room": room.id,
        "closed_in_deals": room.chat_closed_in_deals,
        "retention_days": room.chat_retention_days,
    }


@router.get("/operator/rooms/{room_id}/chat")
async def read_room_chat(room_id: Id, user: OperatorUser, session: SessionDep) -> dict[str, Any]:
    return _room_chat_out(await own_room(session, user, room_id))


@router.put("/operator/rooms/{room_id}/chat")
async def room_chat(room_id: Id, body: RoomChatIn, user: OperatorUser, session: SessionDep) -> dict[str, Any]:
    """The room's chat settings: the players' chat closed during deals, and the days messages are kept."""
    room = await own_room(session, user, room_id)
    room.chat_closed_in_deals = body.closed_in_deals
    room.chat_retention_days = body.retention_days
    audit(
        session,
        user,
        "room_chat",
        f"room {room_id}",
        closed_in_deals=body.closed_in_deals,
        retention_days=body.retention_days,
    )
    await session.commit()
    return _room_chat_out(room)
