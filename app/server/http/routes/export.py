"""A game's record for export (issue 21 §4), and the import of such a record into analysis.

``GET /api/export/tables/{table}``: the JSON record, schema ``preferans-game/1`` (docs/export.md): the
table, its room, players by seat, conventions, status, the sheet and settlement, and every finished
deal's result and full record. Only finished deals are in it (RULES §12: public to the table once over),
so it may be taken while the game is played. ``POST /api/analysis/record``: such a record (or any with
its ``deals``) analysed deal by deal, nothing stored.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field
from sqlalchemy import select

from app.analysis.deal import deal_json
from app.analysis.records import inner_record, played_deal
from app.db.models import DealRecord, Room
from app.protocol.codes import ErrorCode
from app.server.accounts.privacy import watched_table
from app.server.analysis import AnalysisOverBudget, analysis_allowed
from app.server.errors import ApiError
from app.server.http.admission import step_aside
from app.server.http.deps import ContextDep, CurrentUser, Id, SessionDep
from app.server.http.holdings import holdings
from app.server.tables.robot_levels import robot_level
from app.solver import InvalidPosition

router = APIRouter(prefix="/api", tags=["export"])

SCHEMA = "preferans-game/1"
MAX_IMPORTED_DEALS = 200


@router.get("/export/tables/{table_id}")
async def export_game(table_id: Id, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    table = await watched_table(session, table_id, user)
    room = await session.get(Room, table.room_id)
    held = await holdings(session, [table_id])
    deals = (
        await session.execute(
            select(DealRecord).where(DealRecord.table_id == table_id).order_by(DealRecord.deal_number)
        )
    ).scalars()
    return {
        "schema": SCHEMA,
        "table": table_id,
        "room": {"id": table.room_id, "name": room.name if room else None},
        "seats": table.seats,
        # Who holds each seat at the end (whose the settlement is), and every holder of each seat with the
        # deals he played, in those deals' seat numbering (RULES §7.7).
        "players": [
            {"seat": h.seat, "name": h.name, "robot": robot_level(h.name)}
            for h in held
            if h.last_deal is None
        ],
        "holders": [
            {"seat": h.seat, "name": h.name, "first_deal": h.first_deal, "last_deal": h.last_deal}
            for h in held
        ],
        "conventions": table.conventions,
        "first_dealer": table.first_dealer,
        "status": table.status,
        "finish_reason": table.finish_reason,
        "started_at": table.started_at,
        "finished_at": table.finished_at,
        "sheet": table.sheet if table.status in ("finished", "awaiting_adjudication") else None,
        "settlement": table.settlement,
        "deals": [
            {"deal": d.deal_number, "result": d.result, "record": inner_record(d.record)} for d in deals
        ],
    }


class ImportedDeal(BaseModel):
    deal: int = Field(ge=1)
    result: dict[str, Any] | None
    record: dict[str, Any]


class ImportedGame(BaseModel):
    """A `preferans-game/1` record (``deals``, and ``table`` to hold a tournament's deals back)."""

    table: int | None = Field(None, ge=1)
    deals: list[ImportedDeal] = Field(max_length=MAX_IMPORTED_DEALS)


@router.post("/analysis/record")
async def analyse_record(
    body: ImportedGame, user: CurrentUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    """Every deal of an imported record analysed (solver seats mapped back to table seats); a deal that
    cannot have been played as recorded is a 422 naming it. The record of a table of this site is held to
    the analysis policy (`analysis_allowed`): a tournament table's deals are not analysed here while its
    round is on (409 ``analysis_not_yet``, RULES §12)."""
    if ctx.analysis is None:  # pragma: no cover - set by the lifespan
        raise ApiError(ErrorCode.BUSY, "the analysis service is not running")
    if body.table is not None and not await analysis_allowed(session, body.table, deal_over=True):
        raise ApiError(
            ErrorCode.ANALYSIS_NOT_YET,
            "the table's tournament round is still on: its deals are analysed after it",
        )
    await session.close()  # no connection held while the solver works
    out = []
    for deal in body.deals:
        try:
            found = played_deal(deal.result, deal.record)
        except (KeyError, TypeError, ValueError, InvalidPosition) as exc:
            raise ApiError(
                ErrorCode.INVALID_REQUEST, f"deal {deal.deal}: unreadable record ({exc})"
            ) from None
        if found is None:
            out.append({"deal": deal.deal, "result": deal.result, "analysis": None})
            continue
        played, seats = found
        step_aside()
        try:
            analysis = await ctx.analysis.analyse(deal_json(played))
        except InvalidPosition as exc:
            raise ApiError(ErrorCode.INVALID_REQUEST, f"deal {deal.deal}: {exc}") from None
        except AnalysisOverBudget as exc:
            raise ApiError(ErrorCode.ANALYSIS_OVER_BUDGET, f"deal {deal.deal}: {exc}") from None
        cards = [{**c, "seat": seats[c["seat"]]} for c in analysis["cards"]]
        summary = {"start": analysis["start"], "taken": analysis["taken"], "cards": cards}
        out.append({"deal": deal.deal, "result": deal.result, "analysis": summary})
    return {"deals": out}
