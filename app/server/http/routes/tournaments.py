"""Tournaments over REST (RULES.md §9; docs/tournaments.md): organise, register, teams, draw and seat a
round, standings from the stored settlements, judges' adjustments and appeals. Every change is audited.

The rules are `app.tournament`'s (the draw, indices, standings, judging); this module reads and stores.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import orjson
from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.roles import Role
from app.auth.tokens import TokenClaims
from app.db.models import (
    GameTable,
    Room,
    Tournament,
    TournamentAdjustment,
    TournamentAppeal,
    TournamentPlayer,
    TournamentRound,
    TournamentTable,
    User,
)
from app.engine.conventions import Conventions
from app.protocol.codes import ErrorCode
from app.robots import LEVELS
from app.server.accounts.audit import audit
from app.server.accounts.privacy import PRIVATE_ROOM, require_sit, require_watch, room_viewer, visible_rooms
from app.server.context import ServerContext
from app.server.errors import ApiError
from app.server.http.admission import step_aside
from app.server.http.deps import (
    AdminUser,
    ContextDep,
    CurrentClaims,
    CurrentUser,
    Id,
    OperatorUser,
    SessionDep,
    require_live,
)
from app.server.http.routes.lobby import _ask, _validate_conventions
from app.server.ratings import require_rating_to_sit
from app.server.tables.commands import SeatError, Sit, Stop
from app.server.tables.registry import get_actor, place_table
from app.server.tables.robot_seats import attach_robots, robot_user
from app.server.tournaments.answers import adjustments_key, forget_tournament, standings_key, tournament_key
from app.table import LIVE, TableStatus
from app.tournament import (
    Adjustment,
    Appeal,
    DrawError,
    JudgingError,
    RoundDraw,
    TableScore,
    Verdict,
    ZeroSumError,
    adjust,
    draw_round,
    file_appeal,
    hear_appeal,
    net_adjustments,
    standings,
    team_standings,
    tournament_conventions,
)
from app.tournament.roundend import RoundClock

log = logging.getLogger(__name__)

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"])

# A tournament's stages: players register, rounds are played (paused between rounds), it is finished.
REGISTRATION, RUNNING, PAUSED, FINISHED = "registration", "running", "paused", "finished"


class TournamentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    room_id: int = Field(ge=1)
    name: str = Field(min_length=1, max_length=128)
    rounds: int = Field(ge=1, le=50)
    round_minutes: float = Field(gt=0, le=24 * 60)
    overrides: dict[str, Any] = Field(default_factory=dict)  # on top of the room's (e.g. round_end_warning)
    teams: StrictBool = False
    robots: StrictBool = False  # robots may fill a seat when the numbers do not work (§9.2)
    robot_level: Literal["random", "easy", "normal", "strong"] = "normal"


class PlayerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player: str | None = Field(None, min_length=1, max_length=64)  # another player: the operator only


class TeamIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player: str = Field(min_length=1, max_length=64)
    team: str | None = Field(None, min_length=1, max_length=64)
    role: Literal["captain", "deputy"] | None = None


class AdjustmentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player: str = Field(min_length=1, max_length=64)
    points: int
    reason: str = Field(min_length=1, max_length=2000)
    round: int | None = Field(None, ge=1)


class AppealIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str = Field(min_length=1, max_length=2000)


class HearingIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: Verdict
    points: int | None = None
    note: str = Field(min_length=1, max_length=2000)


# ---------------------------------------------------------------------------------------------- reading


async def _tournament(session: AsyncSession, tournament_id: int, user: User) -> Tournament:
    """The tournament, for a ``user`` who may watch its room (a private room's tournament is its own)."""
    row = await session.get(Tournament, tournament_id)
    if row is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no tournament {tournament_id}")
    room = await session.get(Room, row.room_id)
    if room is not None:
        await require_watch(session, room, user)
    return row


async def _is_judge(session: AsyncSession, tournament: Tournament, user: User) -> bool:
    """§9.1: the judges are the room's operator and the administrators."""
    if Role(user.role).allows(Role.ADMIN):
        return True
    room = await session.get(Room, tournament.room_id)
    return room is not None and room.operator_id == user.id


async def _judge(session: AsyncSession, tournament: Tournament, user: User) -> None:
    if not await _is_judge(session, tournament, user):
        raise ApiError(ErrorCode.FORBIDDEN, "only the room's operator or an administrator runs a tournament")


async def _players(session: AsyncSession, tournament_id: int) -> list[TournamentPlayer]:
    rows = await session.execute(
        select(TournamentPlayer)
        .where(TournamentPlayer.tournament_id == tournament_id)
        .order_by(TournamentPlayer.id)
    )
    return list(rows.scalars())


async def _rounds(session: AsyncSession, tournament_id: int) -> list[TournamentRound]:
    rows = await session.execute(
        select(TournamentRound)
        .where(TournamentRound.tournament_id == tournament_id)
        .order_by(TournamentRound.number)
    )
    return list(rows.scalars())


async def _round_tables(session: AsyncSession, round_id: int) -> list[tuple[TournamentTable, GameTable]]:
    rows = await session.execute(
        select(TournamentTable, GameTable)
        .join(GameTable, GameTable.id == TournamentTable.table_id)
        .where(TournamentTable.round_id == round_id)
        .order_by(TournamentTable.number)
    )
    return [(t, g) for t, g in rows]


def _index(value: Any) -> Fraction:
    return Fraction(value) if isinstance(value, int) else Fraction(str(value))


async def _scores(session: AsyncSession, rounds: list[TournamentRound]) -> tuple[list[TableScore], int, int]:
    """The tables counted in the standings: ended ones (finished, or awaiting an award: provisional),
    each from its stored settlement; with the number of tables that summed to 0 and those counted."""
    scores, zero_sum = [], 0
    for rnd in rounds:
        for seated, table in await _round_tables(session, rnd.id):
            if table.status in LIVE or not table.settlement or "result" not in table.settlement:
                continue
            indices = tuple(_index(v) for v in table.settlement["result"])
            if sum(indices) == 0:
                zero_sum += 1
            else:  # pragma: no cover - §7.5 guarantees it; shown, never hidden
                raise ZeroSumError(f"table {table.id}: the indices {indices} do not sum to 0")
            provisional = table.status == TableStatus.AWAITING_ADJUDICATION.value
            scores.append(TableScore(rnd.number, seated.number, tuple(seated.players), indices, provisional))
    return scores, zero_sum, len(scores)


async def _judging(session: AsyncSession, tournament_id: int) -> tuple[list[Adjustment], list[Appeal]]:
    adjustments = [
        Adjustment(a.id, a.player, a.points, a.judge, round(a.at * 1000), a.reason, a.round)
        for a in (
            await session.execute(
                select(TournamentAdjustment)
                .where(TournamentAdjustment.tournament_id == tournament_id)
                .order_by(TournamentAdjustment.id)
            )
        ).scalars()
    ]
    ids = [a.id for a in adjustments]
    appeals = [
        _appeal(a)
        for a in (
            await session.execute(
                select(TournamentAppeal).where(TournamentAppeal.adjustment_id.in_(ids)).order_by(TournamentAppeal.id)
            )
        ).scalars()
    ] if ids else []  # fmt: skip
    return adjustments, appeals


def _appeal(row: TournamentAppeal) -> Appeal:
    return Appeal(
        row.id, row.adjustment_id, row.player, row.reason, round(row.filed_at * 1000),
        None if row.verdict is None else Verdict(row.verdict), row.heard_by,
        None if row.heard_at is None else round(row.heard_at * 1000), row.points, row.note,
    )  # fmt: skip


async def _round_out(session: AsyncSession, rnd: TournamentRound, now_ms: int) -> dict[str, Any]:
    """The round as its page shows it. A playing round none of whose tables is live shows finished: the
    round clock stores that within its second (`_refresh_rounds` before a draw or the finish), and a read
    shared by every viewer writes nothing."""
    tables = []
    rows = await _round_tables(session, rnd.id)
    over = _ended(rnd, rows)
    for seated, table in rows:
        tables.append({
            "number": seated.number, "table_id": table.id, "players": seated.players, "status": table.status,
            "end": seated.end,
            "settlement": table.settlement if table.status not in LIVE else None,
        })  # fmt: skip
    clock = None if rnd.clock is None else RoundClock.from_json(rnd.clock)
    return {
        "number": rnd.number,
        "seed": rnd.seed,
        "status": "finished" if over else rnd.status,
        "byes": rnd.draw.get("byes", []),
        "clock": None if clock is None else {**clock.to_json(), "left_ms": clock.left_ms(now_ms)},
        "tables": tables,
    }


def _ended(rnd: TournamentRound, tables: list[tuple[TournamentTable, GameTable]]) -> bool:
    """A playing round is finished once none of its tables is live (RULES §9.3)."""
    return rnd.status == "playing" and bool(tables) and all(t.status not in LIVE for _, t in tables)


async def _refresh_rounds(session: AsyncSession, rounds: list[TournamentRound]) -> None:
    """Store each playing round that has ended (`_ended`) as finished."""
    for rnd in rounds:
        if rnd.status == "playing" and _ended(rnd, await _round_tables(session, rnd.id)):
            rnd.status = "finished"


def _out(t: Tournament) -> dict[str, Any]:
    return {
        "id": t.id, "room_id": t.room_id, "name": t.name, "status": t.status, "rounds": t.rounds,
        "round_minutes": t.round_minutes, "teams": t.teams, "robots": t.robots, "robot_level": t.robot_level,
        "conventions": t.conventions, "created_at": t.created_at, "finished_at": t.finished_at,
    }  # fmt: skip


@router.get("")
async def list_tournaments(user: CurrentUser, session: SessionDep) -> list[dict[str, Any]]:
    rows = await session.execute(
        select(Tournament)
        .join(Room, Room.id == Tournament.room_id)
        .where(visible_rooms(user))
        .order_by(Tournament.id.desc())
        .limit(200)
    )
    return [_out(t) for t in rows.scalars()]


# A tournament's page asks its four answers for every viewer every 2 s (`tournament.js`): the tournament
# with its rounds' tables, the standings, the judges' decisions and the viewer's own table. The first three
# are the same for every viewer who may watch the tournament's room (each request checks that first), so
# each is built once, encoded, and shared for `Settings.lobby_answer_ms` (`http.shared_answers`); asked
# for each viewer, a page of a 60-player tournament cost the server 37 ms of CPU every 2 s (issue 24,
# `bench/tournament_cost.py`). What this process's own requests change forgets them at once
# (`forget_tournament`); a table's play (a round's table ending) shows within that time.


@dataclass(frozen=True, slots=True)
class TournamentViewer:
    """The caller of a tournament's read, checked: his name, and whether he judges it (§9.1)."""

    name: str
    judge: bool


_TOURNAMENT_ROOM = select(Tournament.room_id).where(Tournament.id == bindparam("tournament"))


async def tournament_viewer(ctx: ServerContext, claims: TokenClaims, tournament_id: int) -> TournamentViewer:
    """`_tournament`'s checks for a read, in two statements on one connection without an ORM session: 404
    for an unknown tournament, 401 for a token whose user is gone, 403 for a room the caller may not watch
    (a tournament whose room is gone is shown to anyone, as before)."""
    async with ctx.engine.connect() as db:
        room_id = (await db.execute(_TOURNAMENT_ROOM, {"tournament": tournament_id})).scalar()
        found = room_id is not None
        viewer = require_live(await room_viewer(db, claims.user_id, room_id or 0), claims.generation)
    if not found:
        raise ApiError(ErrorCode.NOT_FOUND, f"no tournament {tournament_id}")
    if viewer.room_found and not viewer.may_watch:
        raise ApiError(ErrorCode.PRIVATE_ROOM, PRIVATE_ROOM)
    return TournamentViewer(viewer.name, viewer.staff)


@dataclass(frozen=True, slots=True)
class SharedTournament:
    """``GET /api/tournaments/{id}`` but its ``judge``, encoded, with its latest round's seats by player
    (each one's ``GET .../me``): the same for every viewer."""

    encoded: bytes
    latest: int | None  # the latest round's number (None: no round yet)
    seats: dict[str, dict[str, Any]]
    byes: frozenset[str]

    def with_judge(self, judge: bool) -> bytes:
        """The encoded tournament with the viewer's ``judge`` (the object's last member)."""
        return self.encoded[:-1] + (b',"judge":true}' if judge else b',"judge":false}')

    def me(self, name: str) -> dict[str, Any]:
        """The viewer's table in the latest round ("my table now"), his seat, or his bye."""
        if self.latest is None:
            return {"round": None, "table_id": None}
        seat = self.seats.get(name)
        if seat is not None:
            return {"round": self.latest, **seat}
        return {"round": self.latest, "table_id": None, "bye": name in self.byes}


async def _stored(session: AsyncSession, tournament_id: int) -> Tournament:
    """The tournament a shared build reads (its first request checked that it exists: tournaments stay)."""
    t = await session.get(Tournament, tournament_id)
    if t is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no tournament {tournament_id}")
    return t


async def shared_tournament(ctx: ServerContext, tournament_id: int) -> SharedTournament:
    return await ctx.answers.get(
        tournament_key(tournament_id), "tournament", lambda: _build_tournament(ctx, tournament_id)
    )


async def _build_tournament(ctx: ServerContext, tournament_id: int) -> SharedTournament:
    async with ctx.sessions() as session:
        t = await _stored(session, tournament_id)
        rounds = await _rounds(session, t.id)
        now_ms = round(time.time() * 1000)
        players = [
            {"player": p.name, "team": p.team, "role": p.team_role, "withdrawn": p.withdrawn_at is not None}
            for p in await _players(session, t.id)
        ]
        round_list = [await _round_out(session, r, now_ms) for r in rounds]
    seats: dict[str, dict[str, Any]] = {}
    if round_list:
        for table in round_list[-1]["tables"]:
            for index, name in enumerate(table["players"]):
                if name is not None:
                    seats[name] = {
                        "number": table["number"], "table_id": table["table_id"], "seat": index,
                        "status": table["status"],
                    }  # fmt: skip
    return SharedTournament(
        # "judge" is the viewer's: `with_judge` puts it last.
        orjson.dumps({**_out(t), "players": players, "round_list": round_list}),
        round_list[-1]["number"] if round_list else None,
        seats,
        frozenset(round_list[-1]["byes"]) if round_list else frozenset(),
    )


async def shared_standings(ctx: ServerContext, tournament_id: int) -> bytes:
    return await ctx.answers.get(
        standings_key(tournament_id), "standings", lambda: _build_standings(ctx, tournament_id)
    )


async def _build_standings(ctx: ServerContext, tournament_id: int) -> bytes:
    """§9.4: live from the ended tables during a round, final when the tournament is finished."""
    async with ctx.sessions() as session:
        t = await _stored(session, tournament_id)
        players = await _players(session, t.id)
        scores, zero_sum, counted = await _scores(session, await _rounds(session, t.id))
        adjustments, appeals = await _judging(session, t.id)
    rows = standings([p.name for p in players], scores, net_adjustments(adjustments, appeals))
    out: dict[str, Any] = {
        "final": t.status == FINISHED,
        "standings": [r.to_json() for r in rows],
        "tables": [s.to_json() for s in scores],
        "zero_sum_tables": zero_sum,
        "tables_counted": counted,
    }
    if t.teams:
        out["teams"] = [
            x.to_json() for x in team_standings(rows, {p.name: p.team for p in players if p.team})
        ]
    return orjson.dumps(out)


async def shared_adjustments(ctx: ServerContext, tournament_id: int) -> bytes:
    return await ctx.answers.get(
        adjustments_key(tournament_id), "adjustments", lambda: _build_adjustments(ctx, tournament_id)
    )


async def _build_adjustments(ctx: ServerContext, tournament_id: int) -> bytes:
    async with ctx.sessions() as session:
        adjustments, appeals = await _judging(session, tournament_id)
    return orjson.dumps(
        {"adjustments": [a.to_json() for a in adjustments], "appeals": [a.to_json() for a in appeals]}
    )


def _json(body: bytes) -> Response:
    return Response(body, media_type="application/json")


@router.get("/{tournament_id}")
async def get_tournament(tournament_id: Id, claims: CurrentClaims, ctx: ContextDep) -> Response:
    """The tournament, its players (and teams), every round with its tables and the round's clock, and
    whether the caller judges it."""
    viewer = await tournament_viewer(ctx, claims, tournament_id)
    step_aside()
    return _json((await shared_tournament(ctx, tournament_id)).with_judge(viewer.judge))


@router.get("/{tournament_id}/me")
async def my_table(tournament_id: Id, claims: CurrentClaims, ctx: ContextDep) -> dict[str, Any]:
    """The caller's table in the latest round ("my table now"), his seat, or his bye."""
    viewer = await tournament_viewer(ctx, claims, tournament_id)
    step_aside()
    return (await shared_tournament(ctx, tournament_id)).me(viewer.name)


@router.get("/{tournament_id}/standings")
async def get_standings(tournament_id: Id, claims: CurrentClaims, ctx: ContextDep) -> Response:
    """§9.4: live from the ended tables during a round, final when the tournament is finished."""
    await tournament_viewer(ctx, claims, tournament_id)
    step_aside()
    return _json(await shared_standings(ctx, tournament_id))


@router.get("/{tournament_id}/page")
async def tournament_page(tournament_id: Id, claims: CurrentClaims, ctx: ContextDep) -> Response:
    """What the tournament's page shows, in one request (it asks every 2 s): ``tournament`` as ``GET
    /api/tournaments/{id}``, ``standings``, ``me`` and ``adjustments`` as the three requests of those names
    under it. Asked apart, a poll was four requests."""
    viewer = await tournament_viewer(ctx, claims, tournament_id)
    step_aside()
    # The three builds that are due run side by side, each on a pooled connection of its own.
    shared, standings_json, adjustments_json = await asyncio.gather(
        shared_tournament(ctx, tournament_id),
        shared_standings(ctx, tournament_id),
        shared_adjustments(ctx, tournament_id),
    )
    out = {
        "tournament": orjson.Fragment(shared.with_judge(viewer.judge)),
        "standings": orjson.Fragment(standings_json),
        "me": shared.me(viewer.name),
        "adjustments": orjson.Fragment(adjustments_json),
    }
    return _json(orjson.dumps(out))


# --------------------------------------------------------------------------------------------- organise


@router.post("", status_code=201)
async def create_tournament(body: TournamentIn, user: OperatorUser, session: SessionDep) -> dict[str, Any]:
    """§9.1: the room's operator (or an admin) creates it with the room's conventions and overrides;
    registration is open from then until the first round."""
    room = await session.get(Room, body.room_id)
    if room is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no room {body.room_id}")
    if room.operator_id != user.id and not Role(user.role).allows(Role.ADMIN):
        raise ApiError(ErrorCode.FORBIDDEN, "a tournament is run by the room's operator or an administrator")
    conventions: Conventions = _validate_conventions(room.preset, {**room.overrides, **body.overrides})
    played = tournament_conventions(conventions, body.overrides)
    t = Tournament(
        room_id=room.id, name=body.name, conventions=played.model_dump(mode="json"), rounds=body.rounds,
        round_minutes=body.round_minutes, teams=body.teams, robots=body.robots,
        robot_level=body.robot_level, status=REGISTRATION, created_by=user.id, created_at=time.time(),
    )  # fmt: skip
    session.add(t)
    await session.flush()
    audit(session, user, "tournament_create", f"tournament {t.id}", **body.model_dump())
    await session.commit()
    return _out(t)


async def _named(session: AsyncSession, name: str) -> User:
    found = await session.scalar(select(User).where(User.name == name))
    if found is None:
        raise ApiError(ErrorCode.UNKNOWN_USER, f"no user {name!r}", "player")
    return found


@router.post("/{tournament_id}/register")
async def register(
    tournament_id: Id, body: PlayerIn, user: CurrentUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """A player registers himself while registration is open; the operator adds anyone until the end
    (a player added during the tournament plays from the next round, §9.1)."""
    t = await _tournament(session, tournament_id, user)
    judge = await _is_judge(session, t, user)
    if body.player is not None and body.player != user.name and not judge:
        raise ApiError(ErrorCode.FORBIDDEN, "only the operator registers another player")
    target = user if body.player is None else await _named(session, body.player)
    if t.status == FINISHED or (t.status != REGISTRATION and not judge):
        raise ApiError(ErrorCode.TOURNAMENT_STATE, "registration is closed")
    room = await session.get(Room, t.room_id)
    assert room is not None
    # A player sits in the room's tournament as at its tables: a private room's invitation always (the
    # organiser cannot override privacy), its rating limits when he registers himself — the organiser
    # registering him may override them.
    await require_sit(session, room, target)
    if target.id == user.id:
        await require_rating_to_sit(session, room, target)
    row = await session.scalar(
        select(TournamentPlayer).where(
            TournamentPlayer.tournament_id == t.id, TournamentPlayer.user_id == target.id
        )
    )
    if row is None:
        row = TournamentPlayer(
            tournament_id=t.id, user_id=target.id, name=target.name, registered_at=time.time()
        )
        session.add(row)
    row.withdrawn_at = None
    audit(session, user, "tournament_register", f"tournament {t.id}", player=target.name)
    await session.commit()
    forget_tournament(ctx, t.id)
    return {"player": target.name, "registered": True}


@router.post("/{tournament_id}/withdraw")
async def withdraw(
    tournament_id: Id, body: PlayerIn, user: CurrentUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """A player withdraws (before the start himself; later the operator withdraws him): he plays no
    further round, and the rounds he played keep counting."""
    t = await _tournament(session, tournament_id, user)
    judge = await _is_judge(session, t, user)
    if body.player is not None and body.player != user.name and not judge:
        raise ApiError(ErrorCode.FORBIDDEN, "only the operator withdraws another player")
    if t.status == FINISHED or (t.status != REGISTRATION and not judge):
        raise ApiError(ErrorCode.TOURNAMENT_STATE, "after the start only the operator withdraws a player")
    name = body.player or user.name
    row = await session.scalar(
        select(TournamentPlayer).where(TournamentPlayer.tournament_id == t.id, TournamentPlayer.name == name)
    )
    if row is None:
        raise ApiError(ErrorCode.UNKNOWN_USER, f"{name!r} is not registered", "player")
    if t.status == REGISTRATION:
        await session.delete(row)
    else:
        row.withdrawn_at = time.time()
    audit(session, user, "tournament_withdraw", f"tournament {t.id}", player=name)
    await session.commit()
    forget_tournament(ctx, t.id)
    return {"player": name, "withdrawn": True}


@router.post("/{tournament_id}/teams")
async def set_team(
    tournament_id: Id, body: TeamIn, user: CurrentUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """§9.1: the operator puts a player in a team, as its captain, its deputy or a member."""
    t = await _tournament(session, tournament_id, user)
    await _judge(session, t, user)
    if not t.teams:
        raise ApiError(ErrorCode.TOURNAMENT_STATE, "an individual tournament has no teams")
    players = await _players(session, t.id)
    row = next((p for p in players if p.name == body.player), None)
    if row is None:
        raise ApiError(ErrorCode.UNKNOWN_USER, f"{body.player!r} is not registered", "player")
    if body.role is not None:
        if body.team is None:
            raise ApiError(ErrorCode.INVALID_REQUEST, "role: a captain or deputy belongs to a team", "role")
        for other in players:
            if other is not row and other.team == body.team and other.team_role == body.role:
                other.team_role = None  # one captain and one deputy per team
    row.team, row.team_role = body.team, body.role if body.team is not None else None
    audit(session, user, "tournament_team", f"tournament {t.id}", **body.model_dump())
    await session.commit()
    forget_tournament(ctx, t.id)
    return {"player": row.name, "team": row.team, "role": row.team_role}


async def _set_status(
    ctx: ServerContext, session: AsyncSession, user: User, t: Tournament, *, status: str, action: str
) -> dict[str, Any]:
    t.status = status
    if status == FINISHED:
        t.finished_at = time.time()
    audit(session, user, action, f"tournament {t.id}")
    await session.commit()
    forget_tournament(ctx, t.id)
    return _out(t)


def _playing(rounds: list[TournamentRound]) -> bool:
    return any(r.status == "playing" for r in rounds)


@router.post("/{tournament_id}/pause")
async def pause(tournament_id: Id, user: CurrentUser, ctx: ContextDep, session: SessionDep) -> dict[str, Any]:
    """Between rounds: no round is drawn until the operator resumes."""
    t = await _tournament(session, tournament_id, user)
    await _judge(session, t, user)
    if t.status != RUNNING:
        raise ApiError(ErrorCode.TOURNAMENT_STATE, "only a running tournament is paused")
    return await _set_status(ctx, session, user, t, status=PAUSED, action="tournament_pause")


@router.post("/{tournament_id}/resume")
async def resume(
    tournament_id: Id, user: CurrentUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    t = await _tournament(session, tournament_id, user)
    await _judge(session, t, user)
    if t.status != PAUSED:
        raise ApiError(ErrorCode.TOURNAMENT_STATE, "the tournament is not paused")
    return await _set_status(ctx, session, user, t, status=RUNNING, action="tournament_resume")


@router.post("/{tournament_id}/finish")
async def finish(
    tournament_id: Id, user: CurrentUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """The standings become final once no round is playing; appeals are heard from then on."""
    t = await _tournament(session, tournament_id, user)
    await _judge(session, t, user)
    rounds = await _rounds(session, t.id)
    await _refresh_rounds(session, rounds)
    if t.status == FINISHED or _playing(rounds):
        raise ApiError(ErrorCode.TOURNAMENT_STATE, "a round is still playing (or the tournament is finished)")
    return await _set_status(ctx, session, user, t, status=FINISHED, action="tournament_finish")


# -------------------------------------------------------------------------------------------- the rounds


@router.post("/{tournament_id}/rounds", status_code=201)
async def start_round(
    tournament_id: Id, user: CurrentUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """Draw the next round (§9.2, from a fresh seed stored with it), open its tables with the tournament's
    conventions, seat everyone (robots where the organiser allowed them) and start its clock (§9.3)."""
    t = await _tournament(session, tournament_id, user)
    await _judge(session, t, user)
    if ctx.cluster is not None:
        # The round clock and the seating reach only this process's tables (docs/tournaments.md).
        raise ApiError(
            ErrorCode.TOURNAMENT_ONE_WORKER, "tournaments run on a server of one worker process for now"
        )
    rounds = await _rounds(session, t.id)
    await _refresh_rounds(session, rounds)
    if t.status not in (REGISTRATION, RUNNING) or _playing(rounds) or len(rounds) >= t.rounds:
        raise ApiError(ErrorCode.TOURNAMENT_STATE, "no round can start now (paused, playing, or all played)")
    players = [p for p in await _players(session, t.id) if p.withdrawn_at is None]
    history = [RoundDraw.from_json(r.draw) for r in rounds]
    scores, _, _ = await _scores(session, rounds)
    adjustments, appeals = await _judging(session, t.id)
    rows = standings([p.name for p in players], scores, net_adjustments(adjustments, appeals))
    seed = secrets.randbits(48)
    try:
        draw = draw_round(
            [p.name for p in players], history, {r.player: r.score for r in rows}, seed,
            teams={p.name: p.team for p in players if p.team}, robots=t.robots,
        )  # fmt: skip
    except DrawError as exc:
        raise ApiError(ErrorCode.INVALID_DRAW, str(exc)) from None
    now = time.time()
    conventions = Conventions.model_validate(t.conventions)
    clock = RoundClock(
        round(now * 1000), round(t.round_minutes * 60_000), round(conventions.round_end_warning * 1000)
    )
    rnd = TournamentRound(
        tournament_id=t.id,
        number=draw.round,
        seed=seed,
        draw=draw.to_json(),
        clock=clock.to_json(),
        status="playing",
    )
    session.add(rnd)
    await session.flush()
    users = {p.name: p.user_id for p in players}
    opened: list[tuple[int, tuple[str | None, ...]]] = []
    for drawn in draw.tables:
        table = GameTable(
            room_id=t.room_id, seats=len(drawn.seats), conventions=t.conventions,
            first_dealer=drawn.first_dealer, status="waiting", version=0, created_at=now,
        )  # fmt: skip
        session.add(table)
        await session.flush()
        session.add(
            TournamentTable(
                round_id=rnd.id, number=drawn.number, table_id=table.id, players=list(drawn.seats)
            )
        )
        opened.append((table.id, drawn.seats))
    status_before, t.status = t.status, RUNNING
    audit(session, user, "tournament_round", f"tournament {t.id}", round=draw.round, seed=seed)
    await session.commit()
    try:
        for table_id, seats in opened:
            await _seat(ctx, table_id, seats, users, t.robot_level)
    except Exception as exc:
        reason = exc.message if isinstance(exc, ApiError | SeatError) else f"{type(exc).__name__}: {exc}"
        await _undo_round(
            ctx, session, t, rnd=rnd, table_ids=[i for i, _ in opened], status_before=status_before, user=user
        )
        raise ApiError(
            ErrorCode.ROUND_NOT_SEATED,
            f"round {rnd.number} could not be seated ({reason}); its tables were stopped and it may be "
            "drawn again",
        ) from exc
    finally:
        ctx.answers.forget(("tables", t.room_id), ("seated", t.room_id))  # the room's new tables and seats
        forget_tournament(ctx, t.id)
    return await _round_out(session, rnd, round(time.time() * 1000))


async def _undo_round(
    ctx: ServerContext,
    session: AsyncSession,
    t: Tournament,
    *,
    rnd: TournamentRound,
    table_ids: list[int],
    status_before: str,
    user: User,
) -> None:
    """A round whose seating failed is undone, so that it can be drawn again: a table whose pulya started
    is stopped (§7.7, settled as it stands, outside the tournament), a waiting one is closed, and the
    round's rows go; the tournament is back where it was before the draw."""
    await session.rollback()  # whatever the failure left half-done in this session
    for table_id in table_ids:
        actor = ctx.tables.get(table_id)
        if actor is None:
            continue
        if actor.game is not None and not actor.game.is_over:
            reply: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            actor.submit(Stop("the tournament round could not be seated", reply))
            try:
                await asyncio.wait_for(reply, timeout=30)
            except Exception:
                log.exception("table %s of an undone round could not be stopped", table_id)
        if ctx.tables.get(table_id) is actor:
            del ctx.tables[table_id]
        await actor.stop()
    await session.execute(
        update(GameTable)
        .where(GameTable.id.in_(table_ids), GameTable.status.in_(LIVE))
        .values(status=TableStatus.FINISHED.value, finish_reason="round_void", finished_at=time.time())
    )
    await session.execute(delete(TournamentTable).where(TournamentTable.round_id == rnd.id))
    await session.execute(delete(TournamentRound).where(TournamentRound.id == rnd.id))
    await session.execute(update(Tournament).where(Tournament.id == t.id).values(status=status_before))
    audit(session, user, "tournament_round_undone", f"tournament {t.id}", round=rnd.number, tables=table_ids)
    await session.commit()


async def _seat(
    ctx: ContextDep, table_id: int, seats: tuple[str | None, ...], users: dict[str, int], level: str
) -> None:
    """Seat the drawn players (and robots) through the table's actor; the pulya starts with the last."""
    await place_table(ctx, table_id)
    actor = await get_actor(ctx, table_id)
    if actor is None:  # pragma: no cover - just placed
        raise ApiError(ErrorCode.TABLE_CLOSED, f"table {table_id} could not be loaded")
    loop = asyncio.get_running_loop()
    robots = False
    for seat, name in enumerate(seats):
        if name is None:
            async with ctx.sessions() as session, session.begin():
                robot = await robot_user(session, level if level in LEVELS else "normal", seat)
                user_id, user_name = robot.id, robot.name
            robots = True
        else:
            user_id, user_name = users[name], name
        reply: asyncio.Future[int] = loop.create_future()
        actor.submit(Sit(user_id, user_name, seat, reply))
        await _ask(reply)
    if robots:
        attach_robots(ctx, actor)


# ------------------------------------------------------------------------------------ judges and appeals


@router.get("/{tournament_id}/adjustments")
async def list_adjustments(tournament_id: Id, claims: CurrentClaims, ctx: ContextDep) -> Response:
    await tournament_viewer(ctx, claims, tournament_id)
    step_aside()
    return _json(await shared_adjustments(ctx, tournament_id))


@router.post("/{tournament_id}/adjustments", status_code=201)
async def add_adjustment(
    tournament_id: Id, body: AdjustmentIn, user: CurrentUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """§9.5: a judge gives a player tournament points (e.g. −100 for arguing with the judge)."""
    t = await _tournament(session, tournament_id, user)
    await _judge(session, t, user)
    if t.status == FINISHED:
        raise ApiError(ErrorCode.TOURNAMENT_STATE, "after the tournament decisions change only on appeal")
    players = await _players(session, t.id)
    if body.player not in {p.name for p in players}:
        raise ApiError(ErrorCode.UNKNOWN_USER, f"{body.player!r} is not registered", "player")
    plays = any(p.user_id == user.id and p.withdrawn_at is None for p in players)
    now = time.time()
    try:
        decision = adjust(
            0,
            body.player,
            body.points,
            judge=user.name,
            at_ms=round(now * 1000),
            reason=body.reason,
            round=body.round,
            judge_plays=plays,
        )
    except JudgingError as exc:
        raise ApiError(ErrorCode.INVALID_JUDGING, str(exc)) from None
    row = TournamentAdjustment(
        tournament_id=t.id, player=decision.player, points=decision.points, judge=decision.judge,
        reason=decision.reason, round=decision.round, at=now,
    )  # fmt: skip
    session.add(row)
    await session.flush()
    audit(session, user, "tournament_adjust", f"tournament {t.id}", id=row.id, **body.model_dump())
    await session.commit()
    forget_tournament(ctx, t.id)
    return {"id": row.id, **body.model_dump(), "judge": user.name}


@router.post("/{tournament_id}/adjustments/{adjustment_id}/appeal", status_code=201)
async def appeal(  # noqa: PLR0917 - FastAPI passes the path, the body and the dependencies
    tournament_id: Id,
    adjustment_id: Id,
    body: AppealIn,
    user: CurrentUser,
    ctx: ContextDep,
    session: SessionDep,
) -> dict[str, Any]:
    """§9.5: the player a decision concerns appeals it; heard after the tournament."""
    row = await session.get(TournamentAdjustment, adjustment_id)
    if row is None or row.tournament_id != tournament_id:
        raise ApiError(ErrorCode.NOT_FOUND, f"no decision {adjustment_id} in tournament {tournament_id}")
    decision = Adjustment(
        row.id, row.player, row.points, row.judge, round(row.at * 1000), row.reason, row.round
    )
    now = time.time()
    try:
        filed = file_appeal(0, decision, user.name, reason=body.reason, filed_ms=round(now * 1000))
    except JudgingError as exc:
        raise ApiError(ErrorCode.INVALID_JUDGING, str(exc)) from None
    stored = TournamentAppeal(adjustment_id=row.id, player=filed.player, reason=filed.reason, filed_at=now)
    session.add(stored)
    await session.flush()
    audit(session, user, "tournament_appeal", f"tournament {tournament_id}", id=stored.id, adjustment=row.id)
    await session.commit()
    forget_tournament(ctx, tournament_id)
    return _appeal(stored).to_json()


@router.get("/appeals/open")
async def open_appeals(user: AdminUser, session: SessionDep) -> list[dict[str, Any]]:
    """The administrators' appeals page: every appeal with its decision and tournament."""
    rows = await session.execute(
        select(TournamentAppeal, TournamentAdjustment, Tournament)
        .join(TournamentAdjustment, TournamentAdjustment.id == TournamentAppeal.adjustment_id)
        .join(Tournament, Tournament.id == TournamentAdjustment.tournament_id)
        .order_by(TournamentAppeal.id.desc())
        .limit(500)
    )
    return [
        {
            **_appeal(a).to_json(),
            "tournament": {"id": t.id, "name": t.name, "status": t.status},
            "decision": {"points": d.points, "judge": d.judge, "reason": d.reason, "player": d.player},
        }
        for a, d, t in rows
    ]


@router.post("/appeals/{appeal_id}/hear")
async def hear(
    appeal_id: Id, body: HearingIn, user: AdminUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """§9.5: an administrator other than the judge hears it after the tournament."""
    row = await session.get(TournamentAppeal, appeal_id)
    if row is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no appeal {appeal_id}")
    decision_row = await session.get(TournamentAdjustment, row.adjustment_id)
    assert decision_row is not None
    t = await _tournament(session, decision_row.tournament_id, user)
    decision = Adjustment(
        decision_row.id, decision_row.player, decision_row.points, decision_row.judge,
        round(decision_row.at * 1000), decision_row.reason, decision_row.round,
    )  # fmt: skip
    now = time.time()
    try:
        heard = hear_appeal(
            _appeal(row), decision, admin=user.name, tournament_over=t.status == FINISHED,
            verdict=body.verdict, points=body.points, note=body.note, heard_ms=round(now * 1000),
        )  # fmt: skip
    except JudgingError as exc:
        raise ApiError(ErrorCode.INVALID_JUDGING, str(exc)) from None
    row.verdict = None if heard.verdict is None else heard.verdict.value
    row.heard_by, row.heard_at, row.points, row.note = heard.heard_by, now, heard.points, heard.note
    audit(
        session,
        user,
        "tournament_hear_appeal",
        f"tournament {t.id}",
        appeal=row.id,
        **body.model_dump(mode="json"),
    )
    await session.commit()
    forget_tournament(ctx, t.id)
    return _appeal(row).to_json()
