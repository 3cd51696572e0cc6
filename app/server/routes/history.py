"""A game's history: the deals of a finished game for everyone; the full action log for admins."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy import select

from app.db.models import ActionRecord, DealRecord, GameTable, InterruptedDeal
from app.server.deps import AdminUser, CurrentUser, SessionDep
from app.server.errors import ApiError

router = APIRouter(prefix="/api", tags=["history"])

FINAL = ("finished", "awaiting_adjudication")


@router.get("/tables/{table_id}/history")
async def table_history(table_id: int, _user: CurrentUser, session: SessionDep) -> dict[str, Any]:
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
async def action_log(table_id: int, _admin: AdminUser, session: SessionDep) -> dict[str, Any]:
    """The archive: the whole action log (shuffles included) with clocks, for review."""
    table = await session.get(GameTable, table_id)
    if table is None:
        raise ApiError(404, "not_found", f"no table {table_id}")
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
