"""A game's history: the deals of a finished game for everyone; the full action log for admins."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field
from sqlalchemy import select

from app.autoplay import AdjudicationError, PulyaClose, close_after_adjudication
from app.autoplay import InterruptedDeal as InterruptedRecord
from app.db.models import ActionRecord, DealRecord, GameTable, InterruptedDeal, TableSeat
from app.engine.bids import Bid
from app.engine.scoring import ScoreSheet, ScoringError
from app.engine.scoring.settlement import settle
from app.server.actor import settlement_json
from app.server.deps import AdminUser, ContextDep, CurrentUser, Id, SessionDep
from app.server.errors import ApiError

router = APIRouter(prefix="/api", tags=["history"])

FINAL = ("finished", "awaiting_adjudication")


@router.get("/tables/{table_id}/history")
async def table_history(table_id: Id, _user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """Every finished deal's full record (RULES §12: shown to the table once the deal is over)."""
    table = await session.get(GameTable, table_id)
    if table is None:
        raise ApiError(404, "not_found", f"no table {table_id}")
    deals = (
        await session.execute(
            select(DealRecord).where(DealRecord.table_id == table_id).order_by(DealRecord.deal_number)
        )
    ).scalars()
    return {
        "table": table_id,
        "status": table.status,
        "finish_reason": table.finish_reason,
        "settlement": table.settlement,
        "sheet": table.sheet if table.status in FINAL else None,
        "deals": [{"deal": d.deal_number, "result": d.result, "record": d.record} for d in deals],
    }


@router.get("/admin/tables/{table_id}/log")
async def action_log(table_id: Id, admin: AdminUser, session: SessionDep) -> dict[str, Any]:
    """The archive: the whole action log (shuffles included) with clocks, for review. Not to an admin
    seated at the table while its game is played: the shuffles are every hand (RULES §12)."""
    table = await session.get(GameTable, table_id)
    if table is None:
        raise ApiError(404, "not_found", f"no table {table_id}")
    if table.status not in FINAL:
        seated = await session.scalar(
            select(TableSeat).where(TableSeat.table_id == table_id, TableSeat.user_id == admin.id)
        )
        if seated is not None:
            raise ApiError(403, "forbidden", "a player at this table cannot read its log during the game")
    rows = (
        await session.execute(
            select(ActionRecord).where(ActionRecord.table_id == table_id).order_by(ActionRecord.seq)
        )
    ).scalars()
    return {
        "table": table_id,
        "status": table.status,
        "seats": table.seats,
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


@router.get("/admin/interrupted")
async def interrupted(_admin: AdminUser, session: SessionDep) -> list[dict[str, Any]]:
    """Interrupted deals awaiting adjudication (RULES §8.4)."""
    rows = (
        await session.execute(select(InterruptedDeal).where(InterruptedDeal.adjudication.is_(None)))
    ).scalars()
    return [
        {"id": r.id, "table": r.table_id, "deal": r.deal_number, "reason": r.reason, "record": r.record}
        for r in rows
    ]


class AwardIn(BaseModel):
    """An administrator's award for an interrupted deal (RULES §8.4): ``tricks`` per active seat, or null
    for a void deal; ``contract`` when the declarer never named one."""

    tricks: dict[int, int] | None
    contract: str | None = Field(None, max_length=16)


@router.post("/admin/interrupted/{deal_id}/award")
async def award(
    deal_id: Id, body: AwardIn, admin: AdminUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """Award a result to an interrupted deal; the pulya is settled again, final."""
    row = await session.get(InterruptedDeal, deal_id)
    if row is None:
        raise ApiError(404, "not_found", f"no interrupted deal {deal_id}")
    if row.adjudication is not None:
        raise ApiError(409, "already_adjudicated", "this deal has been adjudicated")
    table = await session.get(GameTable, row.table_id)
    if table is None or table.status not in FINAL or table.sheet is None:
        raise ApiError(409, "not_finished", "the table's game is not over")
    record = InterruptedRecord.from_json(row.record)
    try:
        contract = None if body.contract is None else Bid.parse(body.contract)
        result = record.awarded(body.tricks, contract=contract)
        sheet = ScoreSheet.from_json(table.sheet)
        if table.status == "awaiting_adjudication" and record.timed_out:
            provisional = PulyaClose(sheet, settle(sheet), record.timed_out, provisional=True)
            final = close_after_adjudication(provisional, record, result)
            sheet, settlement = final.sheet, final.settlement
        else:
            sheet = sheet.apply(result)
            settlement = settle(sheet)
    except (AdjudicationError, ScoringError, ValueError) as exc:
        raise ApiError(422, "invalid_award", str(exc), "tricks") from None
    summary = settlement_json(settlement)
    row.adjudication = {"result": result.to_json(), "by": admin.name, "at": time.time()}
    table.status = "finished"
    table.sheet = sheet.to_json()
    table.settlement = summary
    await session.commit()
    actor = ctx.tables.pop(table.id, None)
    if actor is not None:  # reloaded from the database with the final result on the next connection
        await actor.stop()
    return {"table": table.id, "status": table.status, "settlement": summary}
