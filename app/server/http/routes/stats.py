"""Statistics over REST (issue 21 §3): a player's (`/api/stats/players/NAME`) and, for a room's operator,
every player's in that room (`/api/stats/rooms/ID`). The counting is `app.stats`'s; this reads the rows.
Only finished games count (a game awaiting an award counts its deals, its index once settled)."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from typing import Any

from fastapi import APIRouter
from sqlalchemy import select

from app.auth.roles import Role
from app.auth.users import name_key
from app.db.models import ActionRecord, DealAnalysis, DealRecord, GameTable, Room, TableSeat, User
from app.protocol.codes import ErrorCode
from app.server.errors import ApiError
from app.server.http.deps import CurrentUser, Id, SessionDep
from app.server.tables.robot_levels import robot_level
from app.stats import GameFacts, player_stats

router = APIRouter(prefix="/api/stats", tags=["stats"])

FINAL = ("finished", "awaiting_adjudication")


async def _facts(session: SessionDep, user_id: int, room_id: int | None = None) -> list[GameFacts]:
    query = (
        select(
            TableSeat.table_id, TableSeat.seat, GameTable.finished_at, GameTable.settlement, GameTable.status
        )
        .join(GameTable, GameTable.id == TableSeat.table_id)
        .where(TableSeat.user_id == user_id, GameTable.status.in_(FINAL))
    )
    if room_id is not None:
        query = query.where(GameTable.room_id == room_id)
    games = (await session.execute(query.order_by(GameTable.finished_at, GameTable.id))).all()
    out = []
    for table_id, seat, finished_at, settlement, status in games:
        deals = (
            await session.execute(
                select(DealRecord.id, DealRecord.result)
                .where(DealRecord.table_id == table_id)
                .order_by(DealRecord.deal_number)
            )
        ).all()
        analyses = (
            await session.execute(
                select(DealAnalysis.analysis, DealAnalysis.seats).where(
                    DealAnalysis.deal_id.in_([d for d, _ in deals])
                )
            )
        ).all()
        index = None
        if status == "finished" and settlement and "exact" in settlement:
            index = Fraction(settlement["exact"][seat])
        out.append(
            GameFacts(
                table_id=int(table_id),
                seat=int(seat),
                finished_at=finished_at,
                index=index,
                results=[r for _, r in deals if r is not None],
                thinking_ms=await _thinking_ms(session, int(table_id), user_id),
                analyses=[(a, [int(s) for s in seats]) for a, seats in analyses],
            )
        )
    return out


async def _thinking_ms(session: SessionDep, table_id: int, user_id: int) -> int:
    """The time from the table's previous action to each of the player's own, summed."""
    rows = (
        await session.execute(
            select(ActionRecord.at, ActionRecord.user_id, ActionRecord.by_server)
            .where(ActionRecord.table_id == table_id)
            .order_by(ActionRecord.seq)
        )
    ).all()
    total = 0.0
    previous: float | None = None
    for at, actor, by_server in rows:
        if previous is not None and actor == user_id and not by_server:
            total += max(0.0, at - previous)
        previous = at
    return int(total * 1000)


async def _user(session: SessionDep, name: str) -> User:
    user = (await session.execute(select(User).where(User.name_key == name_key(name)))).scalar_one_or_none()
    if user is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no player {name}")
    return user


@router.get("/players/{name}")
async def player(name: str, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    target = await _user(session, name)
    stats = player_stats(await _facts(session, target.id))
    return {"user": target.name, "robot": robot_level(target.name), **stats.to_json()}


@router.get("/rooms/{room_id}")
async def room(room_id: Id, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """Every player of the room's finished games, each with their statistics in this room: for the room's
    operator and admins."""
    found = await session.get(Room, room_id)
    if found is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no room {room_id}")
    if found.operator_id != user.id and not Role(user.role).allows(Role.ADMIN):
        raise ApiError(ErrorCode.FORBIDDEN, "a room's statistics are for its operator")
    seated = (
        await session.execute(
            select(TableSeat.user_id, User.name)
            .join(GameTable, GameTable.id == TableSeat.table_id)
            .join(User, User.id == TableSeat.user_id)
            .where(GameTable.room_id == room_id, GameTable.status.in_(FINAL))
            .distinct()
        )
    ).all()
    players: dict[str, Any] = defaultdict(dict)
    for user_id, name in sorted(seated, key=lambda r: r[1]):
        stats = player_stats(await _facts(session, int(user_id), room_id))
        players[name] = {"robot": robot_level(name), **stats.to_json()}
    return {"room": room_id, "room_name": found.name, "players": players}
