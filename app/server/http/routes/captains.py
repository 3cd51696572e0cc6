"""Calls from a tournament table over REST (docs/tournaments.md). The captain's advice (RULES.md §9.6): a
seated player of a team tournament calls his captain in the auction; the called one reads the caller's hand
and the auction for 20 s and may send one suggested bid, which the caller reads (the rules are
`app.tournament.captain`'s). The judge (§9.5): a seated player calls the judge with his words, which every
judge of the tournament sees with the table; a judge answers."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.roles import Role
from app.db.models import (
    CaptainCallRecord,
    Room,
    Tournament,
    TournamentJudgeCall,
    TournamentPlayer,
    TournamentRound,
    TournamentTable,
    User,
)
from app.engine.state import TableState
from app.protocol.codes import ErrorCode
from app.server.accounts.audit import audit
from app.server.errors import ApiError
from app.server.http.deps import ContextDep, CurrentUser, Id, SessionDep
from app.server.tables.registry import get_actor
from app.tournament.captain import (
    CALL_MS,
    CaptainCall,
    CaptainError,
    called_one,
    captain_view,
    check_call,
    legal_suggestions,
)

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"])


class WordsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    words: str = Field(min_length=1, max_length=2000)


class SuggestionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bid: str = Field(min_length=1, max_length=16)


def _now_ms() -> int:
    return round(time.time() * 1000)


def _call(row: CaptainCallRecord) -> CaptainCall:
    return CaptainCall(
        row.id,
        row.table_id,
        row.seat,
        row.caller,
        row.captain,
        row.deal_number,
        row.started_ms,
        row.suggestion,
    )


async def _state(ctx: ContextDep, table_id: int) -> TableState:
    actor = ctx.tables.get(table_id) or await get_actor(ctx, table_id)
    game = None if actor is None else actor.game
    if game is None or game.is_over:
        raise ApiError(ErrorCode.NOT_PLAYING, "no game is running at this table")
    return game.state


async def _tournament_of(session: AsyncSession, table_id: int) -> tuple[Tournament, TournamentTable]:
    row = (
        await session.execute(
            select(Tournament, TournamentTable)
            .join(TournamentRound, TournamentRound.tournament_id == Tournament.id)
            .join(TournamentTable, TournamentTable.round_id == TournamentRound.id)
            .where(TournamentTable.table_id == table_id)
        )
    ).first()
    if row is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"table {table_id} is not a tournament table")
    return row[0], row[1]


@router.post("/tables/{table_id}/captain", status_code=201)
async def call_captain(
    table_id: Id, user: CurrentUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """The seated player calls his captain (or the deputy) now: his turn in the auction, force majeure."""
    tournament, seated = await _tournament_of(session, table_id)
    if user.name not in seated.players:
        raise ApiError(ErrorCode.NOT_SEATED, "only a player of this table calls his captain")
    seat = seated.players.index(user.name)
    players = list(
        (
            await session.execute(
                select(TournamentPlayer).where(TournamentPlayer.tournament_id == tournament.id)
            )
        ).scalars()
    )
    team = next((p.team for p in players if p.name == user.name), None)
    role = {p.team_role: p.name for p in players if team is not None and p.team == team and p.team_role}
    target = called_one(role.get("captain"), role.get("deputy"), seated.players)
    if team is None or target is None:
        raise ApiError(ErrorCode.INVALID_JUDGING, "no captain or deputy of your team can be called (§9.6)")
    calls = await session.scalar(
        select(func.count()).select_from(CaptainCallRecord)
        .where(CaptainCallRecord.table_id == table_id, CaptainCallRecord.seat == seat)
    )  # fmt: skip
    state = await _state(ctx, table_id)
    try:
        check_call(state, seat, calls or 0, team_event=tournament.teams)
    except CaptainError as exc:
        raise ApiError(ErrorCode.INVALID_JUDGING, str(exc)) from None
    row = CaptainCallRecord(table_id=table_id, seat=seat, ordinal=(calls or 0) + 1, caller=user.name,
                            captain=target, deal_number=state.deal_number, started_ms=_now_ms())  # fmt: skip
    session.add(row)
    try:
        await session.commit()
    except IntegrityError:
        # Another call from this seat took that number meanwhile (a double click, two tabs): one is made.
        await session.rollback()
        raise ApiError(
            ErrorCode.INVALID_JUDGING, "another call from this seat was made at the same moment (§9.6)"
        ) from None
    return {**_call(row).to_json(_now_ms()), "calls_left": 2 - (calls or 0)}


@router.get("/captain-calls/mine")
async def my_calls(user: CurrentUser, session: SessionDep) -> list[dict[str, Any]]:
    """The calls that reach the caller as a captain and are still within their 20 s."""
    now = _now_ms()
    rows = (
        await session.execute(
            select(CaptainCallRecord)
            .where(CaptainCallRecord.captain == user.name, CaptainCallRecord.started_ms > now - CALL_MS)
            .order_by(CaptainCallRecord.id)
        )
    ).scalars()
    return [_call(r).to_json(now) for r in rows]


async def _row(session: AsyncSession, call_id: int) -> CaptainCallRecord:
    row = await session.get(CaptainCallRecord, call_id)
    if row is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no captain's call {call_id}")
    return row


@router.get("/captain-calls/{call_id}")
async def read_call(call_id: Id, user: CurrentUser, ctx: ContextDep, session: SessionDep) -> dict[str, Any]:
    """The caller reads his call (and the suggestion); the called captain, within the 20 s, also reads the
    caller's hand and the auction (§12) — nothing else, and nothing afterwards."""
    row = await _row(session, call_id)
    call, now = _call(row), _now_ms()
    if user.name == call.caller:
        return call.to_json(now)
    if user.name != call.captain:
        raise ApiError(ErrorCode.FORBIDDEN, "only the caller and the called captain read a call")
    state = await _state(ctx, call.table_id)
    try:
        call.check_view(user.name, state, now)
    except CaptainError as exc:
        raise ApiError(ErrorCode.FORBIDDEN, str(exc)) from None
    view = captain_view(state, call.seat)
    return {**call.to_json(now), "view": view, "suggestions": legal_suggestions(state, call.seat)}


@router.post("/captain-calls/{call_id}/suggest")
async def suggest(
    call_id: Id, body: SuggestionIn, user: CurrentUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """The called captain's one suggested bid, within the 20 s."""
    row = await _row(session, call_id)
    call, now = _call(row), _now_ms()
    if user.name != call.captain:
        raise ApiError(ErrorCode.FORBIDDEN, "only the called captain suggests")
    state = await _state(ctx, call.table_id)
    try:
        suggested = call.suggest(body.bid, state, user.name, now)
    except CaptainError as exc:
        raise ApiError(ErrorCode.INVALID_JUDGING, str(exc)) from None
    row.suggestion = suggested.suggestion
    await session.commit()
    return suggested.to_json(now)


def _judge_call(row: TournamentJudgeCall) -> dict[str, Any]:
    return {
        "id": row.id, "tournament_id": row.tournament_id, "table_id": row.table_id, "player": row.player,
        "words": row.words, "at": row.at, "answered_by": row.answered_by, "answered_at": row.answered_at,
        "answer": row.answer,
    }  # fmt: skip


@router.post("/tables/{table_id}/judge", status_code=201)
async def call_judge(table_id: Id, body: WordsIn, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """§9.5: without consensus at the table a player calls the judge, with his words."""
    tournament, seated = await _tournament_of(session, table_id)
    if user.name not in seated.players:
        raise ApiError(ErrorCode.NOT_SEATED, "only a player of this table calls the judge")
    row = TournamentJudgeCall(
        tournament_id=tournament.id, table_id=table_id, player=user.name, words=body.words, at=time.time()
    )
    session.add(row)
    await session.commit()
    return _judge_call(row)


async def _judge_of(session: AsyncSession, tournament_id: int, user: User) -> Tournament:
    tournament = await session.get(Tournament, tournament_id)
    if tournament is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no tournament {tournament_id}")
    room = await session.get(Room, tournament.room_id)
    if not Role(user.role).allows(Role.ADMIN) and (room is None or room.operator_id != user.id):
        raise ApiError(ErrorCode.FORBIDDEN, "only the tournament's judges read its calls")
    return tournament


@router.get("/{tournament_id}/judge-calls")
async def judge_calls(tournament_id: Id, user: CurrentUser, session: SessionDep) -> list[dict[str, Any]]:
    """Every call of the tournament, newest first: for its judges (the room's operator, the admins)."""
    await _judge_of(session, tournament_id, user)
    rows = await session.execute(
        select(TournamentJudgeCall)
        .where(TournamentJudgeCall.tournament_id == tournament_id)
        .order_by(TournamentJudgeCall.id.desc())
    )
    return [_judge_call(r) for r in rows.scalars()]


@router.post("/judge-calls/{call_id}/answer")
async def answer_judge_call(
    call_id: Id, body: WordsIn, user: CurrentUser, session: SessionDep
) -> dict[str, Any]:
    """A judge records his answer (a decision in points is an adjustment; a sheet entry a §11 sanction)."""
    row = await session.get(TournamentJudgeCall, call_id)
    if row is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no call {call_id}")
    await _judge_of(session, row.tournament_id, user)
    row.answered_by, row.answered_at, row.answer = user.name, time.time(), body.words
    audit(
        session,
        user,
        "tournament_judge_call",
        f"tournament {row.tournament_id}",
        call=row.id,
        answer=body.words,
    )
    await session.commit()
    return _judge_call(row)
