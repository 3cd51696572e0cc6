"""The administrators' archive of interrupted deals (issue 11 §2, RULES §8.4): a filtered, paged list; a
deal with everything needed to judge it; the solver's suggestion; an award previewed before it is given.

Awards themselves are given by ``POST /api/admin/interrupted/{id}/award`` (`app.server.http.routes.history`).
"""

from __future__ import annotations

import asyncio
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select
from sqlalchemy.sql import Select

from app.auth.users import name_key
from app.autoplay import InterruptedDeal as InterruptedRecord
from app.autoplay.suggestion import suggest
from app.db.models import ActionRecord, Award, GameTable, InterruptedDeal, TableSeat, User
from app.engine import shuffle_action
from app.protocol.codes import ErrorCode
from app.server.errors import ApiError
from app.server.http.admission import step_aside
from app.server.http.deps import MAX_ID, AdminUser, ContextDep, Id, SessionDep
from app.server.http.handlers import refusal
from app.server.http.routes.history import AwardIn, award_request
from app.server.tables.registry import get_actor
from app.server.tables.robot import run_off_loop
from app.server.timebase import mono_ms
from app.table import AwardDeal, ServerMoves, TableRefused, step

router = APIRouter(prefix="/api/admin/archive", tags=["admin"])

_RANDOM = secrets.SystemRandom()
_S = TypeVar("_S", bound=Select[*tuple[Any, ...]])


class ArchiveQuery(BaseModel):
    """The archive's filters (combined) and page."""

    model_config = ConfigDict(extra="forbid")

    room: int | None = Field(None, ge=1, le=MAX_ID)
    table: int | None = Field(None, ge=1, le=MAX_ID)
    player: str | None = Field(None, min_length=1, max_length=64)
    since: float | None = Field(None, description="epoch seconds")
    until: float | None = Field(None, description="epoch seconds")
    status: Literal["awaiting", "awarded"] | None = None
    limit: int = Field(50, ge=1, le=100)
    offset: int = Field(0, ge=0, le=MAX_ID)


def _filtered(query: _S, q: ArchiveQuery) -> _S:
    if q.room is not None:
        query = query.where(
            InterruptedDeal.table_id.in_(select(GameTable.id).where(GameTable.room_id == q.room))
        )
    if q.table is not None:
        query = query.where(InterruptedDeal.table_id == q.table)
    if q.player is not None:
        seated = select(TableSeat.table_id).join(User, User.id == TableSeat.user_id)
        query = query.where(InterruptedDeal.table_id.in_(seated.where(User.name_key == name_key(q.player))))
    if q.since is not None:
        query = query.where(InterruptedDeal.at >= q.since)
    if q.until is not None:
        query = query.where(InterruptedDeal.at <= q.until)
    if q.status == "awaiting":
        query = query.where(InterruptedDeal.adjudication.is_(None))
    elif q.status == "awarded":
        query = query.where(InterruptedDeal.adjudication.is_not(None))
    return query


@router.get("")
async def archive(
    q: Annotated[ArchiveQuery, Query()], _admin: AdminUser, session: SessionDep
) -> dict[str, Any]:
    """Interrupted deals, newest first, with the filters combined; ``total`` counts every match."""
    total = await session.scalar(_filtered(select(func.count(InterruptedDeal.id)), q))
    rows = (
        await session.execute(
            _filtered(select(InterruptedDeal, GameTable.room_id), q)
            .join(GameTable, GameTable.id == InterruptedDeal.table_id)
            .order_by(InterruptedDeal.at.desc(), InterruptedDeal.id.desc())
            .limit(q.limit)
            .offset(q.offset)
        )
    ).all()
    names = await _seat_names(session, {row[0].table_id for row in rows})
    return {
        "total": total or 0,
        "limit": q.limit,
        "offset": q.offset,
        "items": [
            {
                "id": d.id,
                "room": room_id,
                "table": d.table_id,
                "deal": d.deal_number,
                "reason": d.reason,
                "at": d.at,
                "status": "awaiting" if d.adjudication is None else "awarded",
                "players": names.get(d.table_id, []),
                "timed_out": d.record.get("timed_out", []),
            }
            for d, room_id in rows
        ],
    }


async def _seat_names(session: SessionDep, tables: set[int]) -> dict[int, list[str | None]]:
    if not tables:
        return {}
    rows = (
        await session.execute(
            select(TableSeat.table_id, TableSeat.seat, User.name)
            .join(User, User.id == TableSeat.user_id)
            .where(TableSeat.table_id.in_(tables))
        )
    ).all()
    seats = {
        t.id: t.seats
        for t in (await session.execute(select(GameTable).where(GameTable.id.in_(tables)))).scalars()
    }
    names: dict[int, list[str | None]] = {t: [None] * seats[t] for t in tables}
    for table_id, seat, name in rows:
        names[table_id][seat] = name
    return names


async def _deal(session: SessionDep, deal_id: int) -> InterruptedDeal:
    row = await session.get(InterruptedDeal, deal_id)
    if row is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no interrupted deal {deal_id}", "deal")
    return row


@router.get("/{deal_id}")
async def deal(deal_id: Id, _admin: AdminUser, session: SessionDep) -> dict[str, Any]:
    """Everything to judge the deal: the record (hands, talon, discard, auction, calls, tricks in order),
    each seat's clock at the interruption, who ran out of time and when, the game's sheet, the awards."""
    row = await _deal(session, deal_id)
    table = await session.get(GameTable, row.table_id)
    assert table is not None
    names = (await _seat_names(session, {row.table_id}))[row.table_id]
    timeouts = (
        await session.execute(
            select(ActionRecord.action, ActionRecord.at)
            .where(ActionRecord.table_id == row.table_id, ActionRecord.at <= row.at + 1)
            .order_by(ActionRecord.seq)
        )
    ).all()
    ran_out = [
        {"seat": action["seat"], "player": names[action["seat"]], "at": at}
        for action, at in timeouts
        if action.get("type") == "timeout" and isinstance(action.get("seat"), int)
    ]
    awards = (
        await session.execute(select(Award).where(Award.deal_id == deal_id).order_by(Award.revision))
    ).scalars()
    return {
        "id": row.id,
        "room": table.room_id,
        "table": row.table_id,
        "deal": row.deal_number,
        "reason": row.reason,
        "at": row.at,
        "status": "awaiting" if row.adjudication is None else "awarded",
        "players": names,
        "record": row.record,
        "clock": row.clock if row.clock is not None else row.record.get("clocks"),
        "ran_out": ran_out,
        "adjudication": row.adjudication,
        "awards": [
            {
                "revision": a.revision,
                "admin": a.admin_name,
                "at": a.at,
                "reason": a.reason,
                "award": a.award,
                "result": a.result,
                "settlement": a.settlement,
            }
            for a in awards
        ],
        "table_status": table.status,
        "sheet": table.sheet,
        "settlement": table.settlement,
    }


@router.get("/{deal_id}/suggestion")
async def suggestion(deal_id: Id, _admin: AdminUser, ctx: ContextDep) -> dict[str, Any]:
    """The solver's suggestion (labelled as such: the judge decides), searched off the event loop."""
    cached = _SUGGESTIONS.get(deal_id)
    if cached is not None:
        return cached
    async with ctx.sessions() as session:
        stored = (await _deal(session, deal_id)).record
    record = InterruptedRecord.from_json(stored)
    # One search at a time on its own thread: judges never wait in the robots' queue nor hold it up, and
    # no queue of searches grows (a busy solver is a 503 to try again).
    if _SEARCHING.locked():
        raise ApiError(ErrorCode.BUSY, "the solver is working on another suggestion; try again shortly")
    async with _SEARCHING:
        step_aside()
        found = await run_off_loop(_suggestion_executor(), lambda: suggest(record))
    out = {"deal": deal_id, **found.to_json()}
    if len(_SUGGESTIONS) >= _CACHED:
        _SUGGESTIONS.pop(next(iter(_SUGGESTIONS)))
    _SUGGESTIONS[deal_id] = out  # deterministic (node budgets): the same deal, the same suggestion
    return out


_CACHED = 256
_SUGGESTIONS: dict[int, dict[str, Any]] = {}
_SEARCHING = asyncio.Semaphore(1)
_EXECUTOR: list[ThreadPoolExecutor] = []


def _suggestion_executor() -> ThreadPoolExecutor:
    if not _EXECUTOR:
        _EXECUTOR.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="suggestion"))
    return _EXECUTOR[0]


@router.post("/{deal_id}/preview")
async def preview(deal_id: Id, body: AwardIn, _admin: AdminUser, ctx: ContextDep) -> dict[str, Any]:
    """The sheet and settlement the award would give, computed by the pure table step; nothing is stored."""
    table_id, record, result = await award_request(ctx, deal_id, body)
    actor = await get_actor(ctx, table_id)
    if actor is None or actor.game is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no game at table {table_id}")
    command = AwardDeal(record, result, revise=body.revise)
    try:
        after = step(
            actor.game, command, now_ms=mono_ms(), moves=ServerMoves(lambda: shuffle_action(_RANDOM))
        )
    except TableRefused as exc:
        raise refusal(exc) from None
    game = after.game
    return {
        "deal": deal_id,
        "preview": True,
        "result": result.to_json(),
        "status": game.status.value,
        "sheet": game.sheet.to_json(),
        "settlement": None if game.outcome is None else game.outcome.settlement_json(),
    }
