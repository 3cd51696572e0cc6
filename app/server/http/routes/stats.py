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
from sqlalchemy import Select, case, func, select, union

from app.auth.roles import Role
from app.auth.users import name_key
from app.db.models import (
    ActionRecord,
    DealAnalysis,
    DealRecord,
    GameTable,
    Room,
    SeatHolder,
    TableSeat,
    TournamentTable,
    User,
)
from app.protocol.codes import ErrorCode
from app.server.accounts.privacy import visible_rooms
from app.server.analysis import OVER_BUDGET
from app.server.errors import ApiError
from app.server.http.deps import CurrentUser, Id, SessionDep
from app.server.http.holdings import holdings
from app.server.tables.robot_levels import robot_level
from app.stats import GameFacts, player_stats

router = APIRouter(prefix="/api/stats", tags=["stats"])

FINAL = ("finished", "awaiting_adjudication")
# The newest games one answer reads (a robot account plays thousands): a player's, or a room's in all.
MAX_GAMES = 500


@dataclass(frozen=True, slots=True)
class _Game:
    table_id: int
    finished_at: float | None
    settlement: dict[str, Any] | None
    status: str


def _games_query() -> Select[Any]:
    return select(GameTable.id, GameTable.finished_at, GameTable.settlement, GameTable.status)


def _newest(query: Select[Any]) -> Select[Any]:
    return query.where(GameTable.status.in_(FINAL)).order_by(
        GameTable.finished_at.desc(), GameTable.id.desc()
    )


async def _facts(
    session: SessionDep, games: Sequence[_Game], user_id: int | None = None
) -> dict[int, list[GameFacts]]:
    """Each player's holdings at ``games`` (RULES §7.7: a seat may change hands, and a fourth joining
    renumbers the seats), oldest first, each with only the deals its holder played; ``user_id``: that
    player's alone. A fixed number of queries whatever their count."""
    table_ids = sorted({g.table_id for g in games})
    deals: dict[int, list[tuple[int, Any]]] = defaultdict(list)
    analyses: dict[int, list[tuple[int, Any, list[int]]]] = defaultdict(list)
    thinking: dict[tuple[int, int], int] = {}
    drawn: set[int] = set()  # tournament tables: RULES §9.7, the seat's result counts for the player drawn
    held = [h for h in await holdings(session, table_ids) if user_id is None or h.user_id == user_id]
    if table_ids:
        for table_id, number, result in (
            await session.execute(
                select(DealRecord.table_id, DealRecord.deal_number, DealRecord.result)
                .where(DealRecord.table_id.in_(table_ids))
                .order_by(DealRecord.table_id, DealRecord.deal_number)
            )
        ).all():
            deals[int(table_id)].append((int(number), result))
        for table_id, number, analysis, solver_seats in (
            await session.execute(
                select(DealRecord.table_id, DealRecord.deal_number, DealAnalysis.analysis, DealAnalysis.seats)
                .join(DealRecord, DealRecord.id == DealAnalysis.deal_id)
                .where(DealRecord.table_id.in_(table_ids))
            )
        ).all():
            if OVER_BUDGET not in analysis:  # a deal the solver could not analyse has no verdicts
                analyses[int(table_id)].append((int(number), analysis, [int(s) for s in solver_seats]))
        thinking = await _thinking_ms(session, table_ids, sorted({h.user_id for h in held}))
        tournament = select(TournamentTable.table_id).where(TournamentTable.table_id.in_(table_ids))
        drawn = set(await session.scalars(tournament))
    game_of = {g.table_id: g for g in games}
    out: dict[int, list[GameFacts]] = defaultdict(list)
    timed: set[tuple[int, int]] = set()  # a player's thinking at a table counts once, whatever his holdings
    for h in sorted(held, key=lambda h: (game_of[h.table_id].finished_at or 0.0, h.table_id, h.first_deal)):
        game = game_of[h.table_id]
        index = None
        # The settlement is the seat's: it goes to whoever holds it at the end (RULES §7.7), at a tournament's
        # table to the player drawn there, its first holder (§9.7; nobody joins a tournament table).
        owner = h.first_deal == 1 if h.table_id in drawn else h.last_deal is None
        if owner and game.status == "finished" and game.settlement and "exact" in game.settlement:
            index = Fraction(game.settlement["exact"][h.seat])
        key = (h.table_id, h.user_id)
        out[h.user_id].append(
            GameFacts(
                table_id=h.table_id,
                seat=h.seat,
                finished_at=game.finished_at,
                index=index,
                results=[r for n, r in deals[h.table_id] if r is not None and h.holds(n)],
                thinking_ms=0 if key in timed else thinking.get(key, 0),
                analyses=[(a, seats) for n, a, seats in analyses[h.table_id] if h.holds(n)],
            )
        )
        timed.add(key)
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


def _scope(games: Sequence[_Game]) -> dict[str, Any]:
    return {"games_read": len(games), "max_games": MAX_GAMES, "truncated": len(games) >= MAX_GAMES}


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
    # Every game he held a seat in: to the end, or for some deals before a substitute (RULES §7.7).
    held = select(SeatHolder.table_id).where(SeatHolder.user_id == target.id)
    seated = select(TableSeat.table_id).where(TableSeat.user_id == target.id)
    query = _games_query().where(GameTable.id.in_(union(held, seated)))
    if target.id != user.id:
        query = query.join(Room, Room.id == GameTable.room_id).where(visible_rooms(user))
    games = [_Game(*row) for row in (await session.execute(_newest(query).limit(MAX_GAMES))).all()]
    stats = player_stats((await _facts(session, games, target.id))[target.id])
    return {"user": target.name, "robot": robot_level(target.name), **_scope(games), **stats.to_json()}


@router.get("/rooms/{room_id}")
async def room(room_id: Id, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """Every player of the room's newest `MAX_GAMES` finished games, each with their statistics from those
    games: for the room's operator and admins."""
    found = await session.get(Room, room_id)
    if found is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no room {room_id}")
    if found.operator_id != user.id and not Role(user.role).allows(Role.ADMIN):
        raise ApiError(ErrorCode.FORBIDDEN, "a room's statistics are for its operator")
    newest = _newest(_games_query().where(GameTable.room_id == room_id)).limit(MAX_GAMES)
    games = [_Game(*row) for row in (await session.execute(newest)).all()]
    facts = await _facts(session, games)
    names = dict((await session.execute(select(User.id, User.name).where(User.id.in_(set(facts))))).all())
    players: dict[str, Any] = {}
    for user_id, name in sorted(names.items(), key=lambda item: item[1]):
        players[name] = {"robot": robot_level(name), **player_stats(facts[user_id]).to_json()}
    scope = _scope(games)
    return {"room": room_id, "room_name": found.name, **scope, "players": players}
