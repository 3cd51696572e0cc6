"""A game's history: the deals of a finished game for everyone; the full action log for admins; an
administrator's award for an interrupted deal (the deals themselves are listed by the archive,
`app.server.http.routes.archive`)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field
from sqlalchemy import select

from app.autoplay import AdjudicationError
from app.autoplay import InterruptedDeal as InterruptedRecord
from app.db.models import (
    ActionRecord,
    DealRecord,
    GameTable,
    InterruptedDeal,
    SeatHolder,
    TableSeat,
    User,
)
from app.engine import JoinFourth
from app.engine.bids import Bid
from app.engine.conventions import Conventions
from app.engine.result import DealResult, PlayMode, WhistCall
from app.engine.scoring import ScoringError
from app.engine.scoring.checks import check_result
from app.protocol.codes import ErrorCode
from app.server.accounts.audit import audit_row
from app.server.accounts.privacy import refuse_own_game, watched_table
from app.server.errors import ApiError
from app.server.http.admission import step_aside
from app.server.http.deps import AdminUser, ContextDep, CurrentUser, Id, SessionDep
from app.server.http.handlers import refusal
from app.server.tables.commands import Award, SeatError
from app.server.tables.registry import get_actor

router = APIRouter(prefix="/api", tags=["history"])

FINAL = ("finished", "awaiting_adjudication")


@router.get("/tables/{table_id}/history")
async def table_history(table_id: Id, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """Every finished deal's full record (RULES §12: shown to the table once the deal is over); a private
    room closed to spectators shows it only to its players (`app.server.accounts.privacy`)."""
    table = await watched_table(session, table_id, user)
    deals = (
        await session.execute(
            select(DealRecord).where(DealRecord.table_id == table_id).order_by(DealRecord.deal_number)
        )
    ).scalars()
    holders = (
        await session.execute(
            select(SeatHolder, User.name)
            .join(User, User.id == SeatHolder.user_id)
            .where(SeatHolder.table_id == table_id)
            .order_by(SeatHolder.seat, SeatHolder.first_deal)
        )
    ).all()
    return {
        "table": table_id,
        "status": table.status,
        "finish_reason": table.finish_reason,
        "settlement": table.settlement,
        "sheet": table.sheet if table.status in FINAL else None,
        "deals": [{"deal": d.deal_number, "result": d.result, "record": d.record} for d in deals],
        # RULES §7.7: every holder of each seat with the deals each played (last_deal None: to the end).
        "holders": [
            {"seat": h.seat, "user": name, "first_deal": h.first_deal, "last_deal": h.last_deal}
            for h, name in holders
        ],
    }


@router.get("/admin/tables/{table_id}/log")
async def action_log(table_id: Id, admin: AdminUser, session: SessionDep) -> dict[str, Any]:
    """The archive: the whole action log (shuffles included) with clocks, for review. Not to an admin
    seated at the table while its game is played: the shuffles are every hand (RULES §12)."""
    table = await session.get(GameTable, table_id)
    if table is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id}")
    if table.status not in FINAL:
        seated = await session.scalar(
            select(TableSeat).where(TableSeat.table_id == table_id, TableSeat.user_id == admin.id)
        )
        if seated is not None:
            raise ApiError(ErrorCode.FORBIDDEN, "a player at this table cannot read its log during the game")
    rows = (
        (
            await session.execute(
                select(ActionRecord).where(ActionRecord.table_id == table_id).order_by(ActionRecord.seq)
            )
        )
        .scalars()
        .all()
    )
    joins = sum(1 for r in rows if r.action.get("type") == JoinFourth.type)
    return {
        "table": table_id,
        "status": table.status,
        "seats": table.seats,
        # RULES §7.7: a fourth who joined is an action of the log, which starts at the seats before it.
        "log_seats": table.seats - joins,
        "first_dealer": table.first_dealer,
        "conventions": table.conventions,
        "actions": [
            {
                "seq": r.seq,
                "action": r.action,
                "user_id": r.user_id,
                "client_seq": r.client_seq,
                "by_server": r.by_server,
                "at": r.at,
                "clock": r.clock,
            }
            for r in rows
        ],
    }


class AwardIn(BaseModel):
    """An administrator's award for an interrupted deal (RULES §8.4): ``tricks`` per active seat, or null
    for a void deal; ``contract`` when the declarer never named one. ``reason`` is recorded with it;
    ``revise`` gives a later award of a deal already awarded (a new recorded entry; the sheet follows it)."""

    tricks: dict[int, int] | None
    contract: str | None = Field(None, max_length=16)
    # When the deal was interrupted before the whist calls: what the judge rules they were (§8.4).
    calls: list[tuple[int, WhistCall]] | None = Field(None, max_length=4)
    play: PlayMode | None = None
    reason: str = Field(min_length=1, max_length=500)
    revise: bool = False


async def award_request(
    ctx: ContextDep, deal_id: int, body: AwardIn
) -> tuple[int, InterruptedRecord, DealResult]:
    """The table, the archived deal and the result an award (or its preview) asks for; 422 if unfit.
    The database session is closed before the caller waits on the table."""
    async with ctx.sessions() as session:
        row = await session.get(InterruptedDeal, deal_id)
        if row is None:
            raise ApiError(ErrorCode.UNKNOWN_DEAL, f"no interrupted deal {deal_id}", "deal")
        table_id, stored, awarded = row.table_id, row.record, row.adjudication is not None
        table = await session.get(GameTable, table_id)
        conventions = Conventions() if table is None else Conventions.model_validate(table.conventions)
    record = InterruptedRecord.from_json(stored)
    return table_id, record, validated_award(record, body, awarded, conventions)


def validated_award(
    record: InterruptedRecord, body: AwardIn, awarded: bool, conventions: Conventions
) -> DealResult:
    """The deal result the award gives, checked against the table's own conventions, or a 422 naming the
    field; nothing is stored."""
    if awarded and not body.revise:
        raise ApiError(
            ErrorCode.ALREADY_ADJUDICATED, "this deal has been awarded: revise it with revise=true", "revise"
        )
    if body.revise and not awarded:
        # The request contradicts the archive's row, as its twin `already_adjudicated` does: a 422 naming
        # ``revise``. The table's `not_awarded` (its sheet holds no award to revise) is a 409 like its
        # other refusals.
        raise ApiError(ErrorCode.NOT_AWARDED, "this deal has no award to revise", "revise", status=422)
    try:
        contract = None if body.contract is None else Bid.parse(body.contract)
    except ValueError as exc:
        raise ApiError(ErrorCode.INVALID_AWARD, str(exc), "contract") from None
    try:
        calls = None if body.calls is None else tuple(body.calls)
        result = record.awarded(body.tricks, contract=contract, calls=calls, mode=body.play)
        check_result(result, record.seats, conventions)
    except (AdjudicationError, ScoringError, ValueError) as exc:
        raise ApiError(ErrorCode.INVALID_AWARD, str(exc), "tricks") from None
    return result


@router.post("/admin/interrupted/{deal_id}/award")
async def award(deal_id: Id, body: AwardIn, admin: AdminUser, ctx: ContextDep) -> dict[str, Any]:
    """Award a result to an interrupted deal; the table's actor writes it (a game over is settled again)
    together with its entry in the deal's history of awards (the admin, the time, the reason).

    No database connection is held while the table's actor works on the award.
    """
    table_id, record, result = await award_request(ctx, deal_id, body)
    async with ctx.sessions() as session:
        await refuse_own_game(session, table_id, admin)
    actor = await get_actor(ctx, table_id)
    if actor is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id}")
    # The table numbers the revision (awards of one deal are serialised by its table).
    now = time.time()
    entry = {
        "deal_id": deal_id, "table_id": table_id, "admin_id": admin.id, "admin_name": admin.name,
        "reason": body.reason, "award": body.model_dump(mode="json"), "result": result.to_json(), "at": now,
    }  # fmt: skip
    line = audit_row(admin, "award", f"deal {deal_id}", at=now, reason=body.reason)
    reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    # The table's actor stores the sheet, the award's history entry and its audit line in one commit.
    command = Award(deal_id, record, result, admin.name, reply, revise=body.revise, entry=entry, audit=line)
    actor.submit(command)
    step_aside()
    try:
        out: dict[str, Any] = await asyncio.wait_for(reply, timeout=30)
    except SeatError as exc:
        raise refusal(exc) from None
    # The table's settlement changed: a tournament's standings (and a room's list) show it at once. Awards
    # are rare; every shared answer goes.
    ctx.answers.forget()
    return out
