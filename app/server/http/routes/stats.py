"""Statistics over REST (issue 21 §3): a player's (`/api/stats/players/NAME`) and, for a room's operator,
every player's in that room (`/api/stats/rooms/ID`). The counting is `app.stats`'s; this reads the rows.
Only finished games count (a game awaiting an award counts its deals, its index once settled)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fastapi import APIRouter
from sqlalchemy import Select, case, func, select

from app.auth.roles import Role
from app.auth.users import name_key
from app.db.models import ActionRecord, DealAnalysis, DealRecord, GameTable, Room, TableSeat, User
from app.protocol.codes import ErrorCode
from app.server.accounts.privacy import visible_rooms
from app.server.analysis import OVER_BUDGET
from app.server.errors import ApiError
from app.server.http.deps import CurrentUser, Id, SessionDep
from app.server.tables.robot_levels import robot_level
from app.stats import GameFacts, player_stats

router = APIRouter(prefix="/api/stats", tags=["stats"])

FINAL = ("finished", "awaiting_adjudication")
# The newest games one answer reads (a robot account plays thousands): a player's, or a room's in all.
MAX_GAMES = 500


@dataclass(frozen=True, slots=True)
class _Seat:
    table_id: int
    seat: int
    user_id: int
    finished_at: float | None
    settlement: dict[str, Any] | None
    status: str


def _seats_query() -> Select[Any]:
    return select(
        TableSeat.table_id,
        TableSeat.seat,
        TableSeat.user_id,
        GameTable.finished_at,
        GameTable.settlement,
        GameTable.status,
    ).join(GameTable, GameTable.id == TableSeat.table_id)


def _newest(query: Select[Any]) -> Select[Any]:
    return query.where(GameTable.status.in_(FINAL)).order_by(
        GameTable.finished_at.desc(), GameTable.id.desc()
    )


async def _facts(session: SessionDep, seats: Sequence[_Seat]) -> dict[int, list[GameFacts]]:
    """Each player's games among ``seats``, oldest first; a fixed number of queries whatever their count."""
    table_ids = sorted({s.table_id for s in seats})
    deals: dict[int, list[tuple[int, Any]]] = defaultdict(list)
    analyses: dict[int, list[tuple[Any, list[int]]]] = defaultdict(list)
    thinking: dict[tuple[int, int], int] = {}
    if table_ids:
        for table_id, deal_id, result in (
            await session.execute(
                select(DealRecord.table_id, DealRecord.id, DealRecord.result)
                .where(DealRecord.table_id.in_(table_ids))
                .order_by(DealRecord.table_id, DealRecord.deal_number)
            )
        ).all():
            deals[int(table_id)].append((int(deal_id), result))
        for table_id, analysis, solver_seats in (
            await session.execute(
                select(DealRecord.table_id, DealAnalysis.analysis, DealAnalysis.seats)
                .join(DealRecord, DealRecord.id == DealAnalysis.deal_id)
                .where(DealRecord.table_id.in_(table_ids))
            )
        ).all():
            if OVER_BUDGET not in analysis:  # a deal the solver could not analyse has no verdicts
                analyses[int(table_id)].append((analysis, [int(s) for s in solver_seats]))
        thinking = await _thinking_ms(session, table_ids, sorted({s.user_id for s in seats}))
    out: dict[int, list[GameFacts]] = defaultdict(list)
    for s in sorted(seats, key=lambda s: (s.finished_at or 0.0, s.table_id)):
        index = None
        if s.status == "finished" and s.settlement and "exact" in s.settlement:
            index = Fraction(s.settlement["exact"][s.seat])
        out[s.user_id].append(
            GameFacts(
                table_id=s.table_id,
                seat=s.seat,
                finished_at=s.finished_at,
                index=index,
                results=[r for _, r in deals[s.table_id] if r is not None],
                thinking_ms=thinking.get((s.table_id, s.user_id), 0),
                analyses=analyses[s.table_id],
            )
        )
    return out


async def _thinking_ms(
    session: SessionDep, table_ids: Sequence[int], user_ids: Sequence[int]
) -> dict[tuple[int, int], int]:
    """The time from the table's previous action to each of the player's own, summed per table and player,
    in SQL (a window over the table's actions), not by reading every action here."""
    previous = func.lag(ActionRecord.at).over(partition_by=ActionRecord.table_id, order_by=ActionRecord.seq)
    steps = (
        select(
            ActionRecord.table_id.label("table_id"),
            ActionRecord.user_id.label("user_id"),
            ActionRecord.by_server.label("by_server"),
            (ActionRecord.at - previous).label("gap"),
        )
        .where(ActionRecord.table_id.in_(table_ids))
        .subquery()
    )
    gap = case((steps.c.gap > 0, steps.c.gap), else_=0.0)
    rows = await session.execute(
        select(steps.c.table_id, steps.c.user_id, func.sum(gap))
        .where(steps.c.user_id.in_(user_ids), steps.c.by_server.is_(False), steps.c.gap.is_not(None))
        .group_by(steps.c.table_id, steps.c.user_id)
    )
    return {(int(t), int(u)): int(float(total or 0) * 1000) for t, u, total in rows.all()}


def _scope(seats: Sequence[_Seat]) -> dict[str, Any]:
    return {"games_read": len(seats), "max_games": MAX_GAMES, "truncated": len(seats) >= MAX_GAMES}


async def _user(session: SessionDep, name: str) -> User:
    user = (await session.execute(select(User).where(User.name_key == name_key(name)))).scalar_one_or_none()
    if user is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no player {name}")
    return user


@router.get("/players/{name}")
async def player(name: str, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """The player's newest `MAX_GAMES` finished games in rooms the caller may watch (their own games
    always: they sat there); ``games_read`` and ``truncated`` say how many were read."""
    target = await _user(session, name)
    query = _seats_query().where(TableSeat.user_id == target.id)
    if target.id != user.id:
        query = query.join(Room, Room.id == GameTable.room_id).where(visible_rooms(user))
    seats = [_Seat(*row) for row in (await session.execute(_newest(query).limit(MAX_GAMES))).all()]
    stats = player_stats((await _facts(session, seats))[target.id])
    return {"user": target.name, "robot": robot_level(target.name), **_scope(seats), **stats.to_json()}


@router.get("/rooms/{room_id}")
async def room(room_id: Id, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """Every player of the room's newest `MAX_GAMES` finished games, each with their statistics from those
    games: for the room's operator and admins."""
    found = await session.get(Room, room_id)
    if found is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no room {room_id}")
    if found.operator_id != user.id and not Role(user.role).allows(Role.ADMIN):
        raise ApiError(ErrorCode.FORBIDDEN, "a room's statistics are for its operator")
    newest = _newest(select(GameTable.id).where(GameTable.room_id == room_id)).limit(MAX_GAMES)
    tables = [int(t) for t in (await session.scalars(newest)).all()]
    rows = (await session.execute(_seats_query().where(TableSeat.table_id.in_(tables)))).all()
    seats = [_Seat(*row) for row in rows]
    names = dict(
        (
            await session.execute(select(User.id, User.name).where(User.id.in_({s.user_id for s in seats})))
        ).all()
    )
    facts = await _facts(session, seats)
    players: dict[str, Any] = {}
    for user_id, name in sorted(names.items(), key=lambda item: item[1]):
        players[name] = {"robot": robot_level(name), **player_stats(facts[user_id]).to_json()}
    scope = {"games_read": len(tables), "max_games": MAX_GAMES, "truncated": len(tables) >= MAX_GAMES}
    return {"room": room_id, "room_name": found.name, **scope, "players": players}
