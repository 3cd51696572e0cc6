"""Private rooms (issue 11 §1): who may sit at a room's tables and who may watch them.

A public room is open to every logged-in user. A private room seats only the players its operator invited
(by name, or through an invite link they opened), its operator and administrators. Its tables may be
watched by everyone if the operator leaves spectating open; if not, only by those who may sit there and by
the table's seated players (a player seated before the room turned private keeps the seat and the view).

The lobby follows what the caller may do: a room the caller may not even watch is not listed (a stranger
learns nothing of a closed club), and a private room open to spectators is listed marked ``private`` with
``may_sit`` false. Robots are seated by the room's operator or an admin (`POST /api/tables/{id}/robots`),
who may sit there, so they pass. The check is made when the request arrives: a seat taken just before an
invite is withdrawn stays taken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import BindParameter, ColumnElement, Select, bindparam, exists, or_, outerjoin, select, true
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.auth.roles import Role
from app.db.models import GameTable, Room, RoomInvite, TableSeat, User
from app.protocol.codes import CloseCode, ErrorCode
from app.protocol.messages import ErrorMessage
from app.server.errors import ApiError
from app.table import LIVE

if TYPE_CHECKING:
    from app.server.connections.connection import Connection
    from app.server.context import ServerContext


def is_staff(room: Room, user: User) -> bool:
    """The room's operator or an administrator: they act on the room and may sit and watch there."""
    return staff_of(room.operator_id, user.id, user.role)


def staff_of(operator_id: int, user_id: int, role: str) -> bool:
    """`is_staff` of values read without the ORM."""
    return operator_id == user_id or Role(role).allows(Role.ADMIN)


async def is_invited(session: AsyncSession, room_id: int, user_id: int) -> bool:
    found = await session.scalar(
        select(RoomInvite.id).where(RoomInvite.room_id == room_id, RoomInvite.user_id == user_id)
    )
    return found is not None


@dataclass(frozen=True, slots=True)
class Access:
    may_sit: bool
    may_watch: bool


def access_of(room: Room, user: User, invited: bool) -> Access:
    """What ``user`` may do in ``room``, given whether he is on its list of invited players."""
    return access(room.private, room.spectators, is_staff(room, user), invited)


def access(private: bool, spectators: bool, staff: bool, invited: bool) -> Access:
    """`access_of` of values read without the ORM."""
    if not private or staff:
        return Access(may_sit=True, may_watch=True)
    return Access(may_sit=invited, may_watch=invited or spectators)


def invited_here() -> ColumnElement[bool]:
    """The SQL condition that the enclosing query's user is invited to its room (a read that decides a
    sit in one statement)."""
    return exists().where(RoomInvite.room_id == Room.id, RoomInvite.user_id == User.id)


async def room_access(session: AsyncSession, room: Room, user: User) -> Access:
    # The list of invited players is read only where it decides something.
    invited = room.private and not is_staff(room, user) and await is_invited(session, room.id, user.id)
    return access_of(room, user, invited)


def visible_rooms(user: User) -> ColumnElement[bool]:
    """The SQL condition for the rooms ``user`` may watch (the lobby lists only those)."""
    return rooms_visible_to(user.id, admin=Role(user.role).allows(Role.ADMIN))


def rooms_visible_to(viewer: int | BindParameter[int], *, admin: bool) -> ColumnElement[bool]:
    """`visible_rooms` of a viewer's id, or of a bound parameter for a statement built once."""
    if admin:
        return true()
    return or_(
        Room.private.is_(False), Room.spectators.is_(True), Room.operator_id == viewer, invited_to(viewer)
    )


def invited_to(viewer: int | BindParameter[int]) -> ColumnElement[bool]:
    """The SQL condition that ``viewer`` (an id, or a bound parameter) is invited to the query's room."""
    return exists().where(RoomInvite.room_id == Room.id, RoomInvite.user_id == viewer)


async def require_sit(session: AsyncSession, room: Room, user: User) -> None:
    require_access_to_sit(await room_access(session, room, user))


def require_access_to_sit(access: Access) -> None:
    if not access.may_sit:
        raise ApiError(ErrorCode.NOT_INVITED, "this room is private: only invited players may sit here")


PRIVATE_ROOM = "this room is private and closed to spectators"


async def require_watch(session: AsyncSession, room: Room, user: User, table_id: int | None = None) -> None:
    """403 ``private_room`` unless ``user`` may watch the room (or sits at ``table_id``)."""
    if (await room_access(session, room, user)).may_watch:
        return
    if table_id is not None and await is_seated(session, table_id, user.id):
        return
    raise ApiError(ErrorCode.PRIVATE_ROOM, PRIVATE_ROOM)


async def watched_table(session: AsyncSession, table_id: int, user: User) -> GameTable:
    """The table ``user`` asks to see: 404 ``not_found`` for an unknown one, 403 ``private_room`` unless he
    may watch its room or sits at it (the one check behind every page that shows a table's records)."""
    table = await session.get(GameTable, table_id)
    if table is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id}")
    room = await session.get(Room, table.room_id)
    if room is not None:
        await require_watch(session, room, user, table_id)
    return table


async def is_seated(session: AsyncSession, table_id: int, user_id: int) -> bool:
    found = await session.scalar(
        select(TableSeat.seat).where(TableSeat.table_id == table_id, TableSeat.user_id == user_id)
    )
    return found is not None


async def table_room(session: AsyncSession, table_id: int) -> Room | None:
    return await session.scalar(
        select(Room).join(GameTable, GameTable.room_id == Room.id).where(GameTable.id == table_id)
    )


@dataclass(frozen=True, slots=True)
class SocketCaller:
    """What a table's socket is decided on, read in one statement (`socket_caller`): the user's account
    and whether he may watch the table (an unknown table passes: it is refused as not found)."""

    id: int
    name: str
    token_generation: int
    disabled: bool
    may_watch: bool


def _socket_read() -> Select[*tuple[Any, ...]]:
    """The user and the table's room with whether he is invited there and seated at the table (bound:
    ``user``, ``table``), built once (a statement built per socket costs the loop more than its read)."""
    seated = exists().where(TableSeat.table_id == bindparam("table"), TableSeat.user_id == User.id)
    joined = outerjoin(User, GameTable, GameTable.id == bindparam("table")).outerjoin(
        Room, Room.id == GameTable.room_id
    )
    columns = (User.id, User.name, User.role, User.token_generation, User.disabled)
    room = (Room.id, Room.private, Room.spectators, Room.operator_id)
    read = select(*columns, *room, invited_here(), seated).select_from(joined)
    return read.where(User.id == bindparam("user"))


_SOCKET_READ = _socket_read()


async def socket_caller(db: AsyncConnection, user_id: int, table_id: int) -> SocketCaller | None:
    """The user opening ``table_id``'s socket and whether he may watch it (None: no such user), in one
    statement on a plain connection: a socket opened cost two reads through an ORM session, and a restart's
    thousands of sockets coming back at once waited for them (issue 24)."""
    row = (await db.execute(_SOCKET_READ, {"user": user_id, "table": table_id})).first()
    if row is None:
        return None
    uid, name, role, generation, disabled, room_id, private, spectators, operator_id, invited, seated = row
    may_watch = (
        room_id is None
        or access(private, spectators, staff_of(operator_id, uid, role), bool(invited)).may_watch
        or bool(seated)  # seated before the room turned private: he keeps the view (require_watch)
    )
    return SocketCaller(uid, name, generation, bool(disabled), may_watch)


@dataclass(frozen=True, slots=True)
class RoomViewer:
    """A user asking about a room, read in one statement (`room_viewer`): his account and whether the room
    exists and he may watch it; ``staff``: its operator or an administrator (a tournament's judges, §9.1)."""

    name: str
    token_generation: int
    disabled: bool
    room_found: bool
    may_watch: bool
    staff: bool


# The user and the room with whether he is invited there (bound: ``user``, ``room``; no room: its columns
# None), built once.
_ROOM_VIEWER_READ = (
    select(User.id, User.name, User.role, User.token_generation, User.disabled)
    .add_columns(Room.id, Room.private, Room.spectators, Room.operator_id, invited_here())
    .select_from(outerjoin(User, Room, Room.id == bindparam("room")))
    .where(User.id == bindparam("user"))
)


async def room_viewer(db: AsyncConnection, user_id: int, room_id: int) -> RoomViewer | None:
    """`require_watch`'s decision on a room by id, with the user's account (None: no such user), in one
    statement on a plain connection: the lobby asks it for every room for every viewer every 3 s."""
    row = (await db.execute(_ROOM_VIEWER_READ, {"user": user_id, "room": room_id})).first()
    if row is None:
        return None
    uid, name, role, generation, disabled, found, private, spectators, operator_id, invited = row
    staff = staff_of(operator_id, uid, role)  # (no room: an administrator only)
    may_watch = found is not None and access(private, spectators, staff, bool(invited)).may_watch
    return RoomViewer(name, generation, bool(disabled), found is not None, may_watch, staff)


async def close_unwelcome_watchers(ctx: ServerContext, session: AsyncSession, room: Room) -> int:
    """Close the sockets of spectators who may no longer watch the room's live tables (it turned private,
    closed to spectators, or an invite was withdrawn); seated players keep theirs. Returns how many."""
    table_ids = (
        await session.scalars(
            select(GameTable.id).where(GameTable.room_id == room.id, GameTable.status.in_(LIVE))
        )
    ).all()
    watchers: list[Connection] = []
    for table_id in table_ids:
        actor = ctx.tables.get(table_id)
        if actor is not None:
            watchers += [c for c in actor.connections if c.seat is None and not c.closed.is_set()]
    if not watchers:
        return 0
    users = {
        u.id: u
        for u in (await session.scalars(select(User).where(User.id.in_({c.user_id for c in watchers})))).all()
    }
    closed = 0
    for conn in watchers:
        user = users.get(conn.user_id)
        if user is None or not (await room_access(session, room, user)).may_watch:
            conn.send(ErrorMessage(code=ErrorCode.PRIVATE_ROOM, message=PRIVATE_ROOM))
            conn.close(CloseCode.FORBIDDEN)
            closed += 1
    return closed


async def refuse_own_game(session: AsyncSession, table_id: int, judge: User) -> None:
    """A judge never judges his own game: an administrator seated at the table neither sanctions its
    players nor awards its deals (issue 25). RULES §9.5 has appeals heard by administrators other than the
    judge who decided; the same impartiality for the decision itself is [ours]."""
    seated = await session.scalar(
        select(TableSeat.seat).where(TableSeat.table_id == table_id, TableSeat.user_id == judge.id)
    )
    if seated is not None:
        raise ApiError(ErrorCode.FORBIDDEN, "a judge does not judge a game he plays in")
