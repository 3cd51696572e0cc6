"""Table chat (issue 22 §4): messages stored with the table, limits, mutes and reports, and the frames
that carry a new message to the connections that may read it.

The rules of who writes where and when the players' channel is closed are `app.table.chat`'s; this
module applies them to the stored rows and the live connections of this process.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import ChatIgnore, ChatMessage, ChatMute, ChatReport, GameTable, Room, TableSeat, User
from app.engine.conventions import Conventions
from app.protocol.codes import ErrorCode
from app.protocol.messages import ChatEntry, ChatFrame, ChatMutedFrame, ChatRemovedFrame
from app.server.accounts.privacy import require_watch
from app.server.accounts.ratelimit import KeyedLimiter, Limiter, SharedLimiter, retry_after
from app.server.context import ServerContext
from app.server.errors import ApiError
from app.table.chat import PRESETS, Channel, ChatTextError, channel_for, clean_text, may_read
from app.table.chat import players_chat_open as open_by_rule
from app.tournament import is_tournament_table

DAY_S = 86_400.0
HISTORY_LIMIT = 200  # messages a page loads with the table (the newest)


def tournament_table(table: GameTable) -> bool:
    """Whether a tournament seated the table (RULES §9): its stored conventions carry the mark."""
    return is_tournament_table(Conventions.model_validate(table.conventions))


def chat_closed_in_deals(room: Room, table: GameTable) -> bool:
    """Seed 002: at a tournament's table, and in a room that chose it, the players' chat is closed during
    deals."""
    return bool(room.chat_closed_in_deals) or tournament_table(table)


@dataclass(slots=True)
class ChatLimits:
    """Messages per user (across tables) and per table (across users)."""

    by_user: Limiter
    by_table: Limiter


def _limits(ctx: ServerContext) -> ChatLimits:
    if ctx.chat_limits is None:
        s = ctx.settings
        by_user: Limiter = KeyedLimiter(s.chat_user_per_minute / 60, s.chat_user_burst)
        if ctx.cluster is not None:
            # Several workers: a user writes at tables of every worker (each table's chat is its owner's),
            # so his bucket is shared in the database (`ratelimit.SharedLimiter`); a table's stays in
            # its owner's memory, where all of its messages are posted.
            by_user = SharedLimiter(ctx.engine, "chat-user", s.chat_user_per_minute / 60, s.chat_user_burst)
        ctx.chat_limits = ChatLimits(by_user, KeyedLimiter(s.chat_table_per_minute / 60, s.chat_table_burst))
    return ctx.chat_limits


def entry(row: ChatMessage) -> ChatEntry:
    return ChatEntry(
        id=row.id,
        channel=row.channel,
        user=row.user_name,
        seat=row.seat,
        text=row.text,
        preset=row.preset,
        at=row.at,
    )


async def seated_users(session: AsyncSession, table_id: int) -> dict[int, int]:
    """user id -> seat of the table's players."""
    rows = await session.execute(
        select(TableSeat.user_id, TableSeat.seat).where(TableSeat.table_id == table_id)
    )
    return {int(user_id): int(seat) for user_id, seat in rows}


async def table_and_room(session: AsyncSession, table_id: int, user: User) -> tuple[GameTable, Room]:
    """The table and its room, 404 if none, 403 when the user may not watch it (a private room)."""
    table = await session.get(GameTable, table_id)
    room = None if table is None else await session.get(Room, table.room_id)
    if table is None or room is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id}")
    await require_watch(session, room, user, table_id)
    return table, room


async def active_mute(session: AsyncSession, user_id: int, room_id: int, now: float) -> ChatMute | None:
    """The mute in force on the user here (this room's or a site-wide one) ending last."""
    return await session.scalar(
        select(ChatMute)
        .where(ChatMute.user_id == user_id, ChatMute.until > now)
        .where(or_(ChatMute.room_id.is_(None), ChatMute.room_id == room_id))
        .order_by(ChatMute.until.desc())
        .limit(1)
    )


def players_chat_open(ctx: ServerContext, table: GameTable, room: Room) -> bool:
    """The rule (`app.table.chat.players_chat_open`) on the table as it stands: its live actor's phase,
    or, for a table not in memory, its stored status."""
    actor = ctx.tables.get(table.id)
    game = None if actor is None else actor.game
    status = table.status if game is None else game.status.value
    phase = None if game is None else game.state.phase.value
    if game is None and status == "playing":
        phase = "play"  # not loaded: count the deal as under way (the strict reading)
    return open_by_rule(status, phase, chat_closed_in_deals(room, table))


async def history(ctx: ServerContext, session: AsyncSession, table_id: int, user: User) -> dict[str, Any]:
    """What the page shows on load: the messages the user may read (within the room's retention, minus
    removed ones and those of users he muted), where he writes, whether he may, and his mutes."""
    table, room = await table_and_room(session, table_id, user)
    now = time.time()
    seated = await seated_users(session, table_id)
    mine = seated.get(user.id)
    channels = [c.value for c in Channel if may_read(c, mine is not None)]
    ignored = select(ChatIgnore.ignored_id).where(ChatIgnore.user_id == user.id)
    rows = (
        await session.execute(
            select(ChatMessage)
            .where(ChatMessage.table_id == table_id, ChatMessage.channel.in_(channels))
            .where(ChatMessage.deleted_at.is_(None), ChatMessage.at >= now - room.chat_retention_days * DAY_S)
            .where(ChatMessage.user_id.not_in(ignored))
            .order_by(ChatMessage.id.desc())
            .limit(HISTORY_LIMIT)
        )
    ).scalars()
    mute = await active_mute(session, user.id, room.id, now)
    names = (
        await session.execute(
            select(User.name)
            .join(ChatIgnore, ChatIgnore.ignored_id == User.id)
            .where(ChatIgnore.user_id == user.id)
        )
    ).scalars()
    channel = channel_for(mine is not None)
    return {
        "table": table_id,
        "channel": channel.value,
        "open": channel is Channel.SPECTATORS or players_chat_open(ctx, table, room),
        "closed_in_deals": chat_closed_in_deals(room, table),
        "muted": None if mute is None else _mute_out(mute),
        "ignored": sorted(names),
        "presets": list(PRESETS),
        "max_length": ctx.settings.chat_max_length,
        "retention_days": room.chat_retention_days,
        "messages": [entry(r).model_dump() for r in reversed(list(rows))],
    }


def _mute_out(mute: ChatMute) -> dict[str, Any]:
    return {"id": mute.id, "until": mute.until, "site_wide": mute.room_id is None, "reason": mute.reason}


async def post(
    ctx: ServerContext,
    session: AsyncSession,
    table_id: int,
    user: User,
    *,
    text: str | None,
    preset: str | None,
) -> ChatEntry:
    """Store a message (then send it: `publish`). Refusals: muted, the players' chat closed during a
    deal, an empty / too long text or an unknown preset, too many messages (per user, per table)."""
    table, room = await table_and_room(session, table_id, user)
    now = time.time()
    seated = await seated_users(session, table_id)
    seat = seated.get(user.id)
    channel = channel_for(seat is not None)
    mute = await active_mute(session, user.id, room.id, now)
    if mute is not None:
        raise ApiError(ErrorCode.CHAT_MUTED, f"muted until {mute.until:.0f}: {mute.reason}")
    if channel is Channel.PLAYERS and not players_chat_open(ctx, table, room):
        raise ApiError(ErrorCode.CHAT_CLOSED, "the players' chat is closed until the deal ends")
    if preset is not None:
        if preset not in PRESETS or text:
            raise ApiError(
                ErrorCode.INVALID_CHAT, "an unknown preset (or a preset with text)", field="preset"
            )
        body = preset
    else:
        try:
            body = clean_text(text or "", ctx.settings.chat_max_length)
        except ChatTextError as exc:
            raise ApiError(ErrorCode.INVALID_CHAT, str(exc), field="text") from None
    limits = _limits(ctx)
    for limiter, key in ((limits.by_user, str(user.id)), (limits.by_table, str(table_id))):
        wait = await limiter.take(key)
        if wait:
            raise ApiError(
                ErrorCode.RATE_LIMITED,
                "too many chat messages; wait a moment",
                headers={"Retry-After": retry_after(wait)},
            )
    row = ChatMessage(
        table_id=table_id,
        room_id=room.id,
        user_id=user.id,
        user_name=user.name,
        seat=seat,
        channel=channel.value,
        text=body,
        preset=preset,
        at=now,
    )
    session.add(row)
    # The room's retention: older messages of this table go (reports keep their own copy of the context).
    await session.execute(
        delete(ChatMessage).where(
            ChatMessage.table_id == table_id,
            ChatMessage.at < now - room.chat_retention_days * DAY_S,
            ChatMessage.id.not_in(select(ChatReport.message_id)),
        )
    )
    await session.flush()
    return entry(row)


async def publish(
    ctx: ServerContext, session: AsyncSession, table_id: int, message: ChatEntry, writer_id: int
) -> int:
    """Send a stored message to this process's connections of the table that may read it; returns how
    many got it. The spectators' channel never reaches a seated player's socket."""
    seated = set(await seated_users(session, table_id))
    muting = set(
        (
            await session.execute(select(ChatIgnore.user_id).where(ChatIgnore.ignored_id == writer_id))
        ).scalars()
    )
    frame = ChatFrame(table=table_id, message=message).model_dump_json()
    sent = 0
    for conn in list(ctx.table_connections.get(table_id, ())):
        if conn.user_id in muting or not may_read(Channel(message.channel), conn.user_id in seated):
            continue
        conn.send(frame)
        sent += 1
    return sent


def publish_removed(ctx: ServerContext, table_id: int, message_id: int) -> None:
    frame = ChatRemovedFrame(table=table_id, id=message_id).model_dump_json()
    for conn in list(ctx.table_connections.get(table_id, ())):
        conn.send(frame)


def tell_muted(ctx: ServerContext, mute: ChatMute, tables: set[int] | None) -> None:
    """The muted user's open tables (``tables``: the room's; None: every one, a site-wide mute) say so
    at once."""
    frames: dict[int, str] = {}
    for table_id, conns in list(ctx.table_connections.items()):
        if tables is not None and table_id not in tables:
            continue
        for conn in list(conns):
            if conn.user_id != mute.user_id:
                continue
            if table_id not in frames:
                frames[table_id] = ChatMutedFrame(
                    table=table_id, until=mute.until, site_wide=mute.room_id is None, reason=mute.reason
                ).model_dump_json()
            conn.send(frames[table_id])


async def tell_stored_mute(ctx: ServerContext, mute_id: int) -> None:
    """Another worker stored mute ``mute_id`` (several workers): this one's sockets of the muted user are
    told, read from the stored row (the notice names only the row, so it carries nothing to trust)."""
    async with ctx.sessions() as session:
        mute = await session.get(ChatMute, mute_id)
        if mute is None:
            return
        tables: set[int] | None = None
        if mute.room_id is not None:
            mine = ctx.user_connections.get(mute.user_id, set())
            here = [t for t, conns in ctx.table_connections.items() if not mine.isdisjoint(conns)]
            tables = set(
                (
                    await session.execute(
                        select(GameTable.id).where(GameTable.room_id == mute.room_id, GameTable.id.in_(here))
                    )
                ).scalars()
            )
    tell_muted(ctx, mute, tables)
