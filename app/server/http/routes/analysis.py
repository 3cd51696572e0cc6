"""The solver's analysis of finished deals over REST (issue 21 §2).

- ``GET /api/analysis/tables/{table}/deals/{n}``: one deal, card by card, in table seats, with the deal's
  full record (all hands) for the replay; refused ``analysis_not_yet`` (409) for the deal in play or
  while a tournament round is on (`app.server.analysis.analysis_allowed`).
- ``GET /api/analysis/tables/{table}``: every finished deal, with the summary (par, tricks taken,
  mistakes) of those already analysed; it computes nothing (a whole pulya in one request would hold the
  solver pool), the per-deal route does.
- ``POST /api/analysis/deal``: a deal given in the command line's form (an imported record): analysed,
  not stored.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy import select

from app.analysis.deal import PlayedDeal
from app.analysis.records import inner_record, played_deal
from app.db.models import DealAnalysis, DealRecord
from app.protocol.codes import ErrorCode
from app.server.accounts.privacy import watched_table
from app.server.analysis import (
    OVER_BUDGET,
    AnalysisOverBudget,
    AnalysisPool,
    analysis_allowed,
    stored_analysis,
)
from app.server.errors import ApiError
from app.server.http.admission import step_aside
from app.server.http.deps import ContextDep, CurrentUser, Id, SessionDep
from app.server.http.holdings import holders_of_deal, holdings
from app.server.tables.robot_levels import robot_level
from app.solver import InvalidPosition

router = APIRouter(prefix="/api/analysis", tags=["analysis"])

MAX_DEAL_NUMBER = 10_000


def _pool(ctx: ContextDep) -> AnalysisPool:
    if ctx.analysis is None:  # pragma: no cover - set by the lifespan
        raise ApiError(ErrorCode.BUSY, "the analysis service is not running")
    return ctx.analysis


def _named(holders: dict[int, str]) -> dict[str, dict[str, Any]]:
    return {str(s): {"name": n, "robot": robot_level(n)} for s, n in sorted(holders.items())}


def _in_table_seats(analysis: dict[str, Any], seats: list[int]) -> dict[str, Any]:
    """The analysis with solver seats replaced by table seats, and each seat's mistakes."""
    cards = [{**c, "seat": seats[c["seat"]]} for c in analysis["cards"]]
    mistakes = {str(s): {"mistakes": 0, "tricks_lost": 0} for s in seats}
    for card in cards:
        if card["loss"]:
            mistakes[str(card["seat"])]["mistakes"] += 1
            mistakes[str(card["seat"])]["tricks_lost"] += card["loss"]
    return {"start": analysis["start"], "taken": analysis["taken"], "cards": cards, "mistakes": mistakes}


@router.get("/tables/{table_id}/deals/{deal_number}")
async def deal_analysis(
    table_id: Id, deal_number: Id, user: CurrentUser, ctx: ContextDep, session: SessionDep
) -> dict[str, Any]:
    table = await watched_table(session, table_id, user)
    deal = await session.scalar(
        select(DealRecord).where(DealRecord.table_id == table_id, DealRecord.deal_number == deal_number)
    )
    if not await analysis_allowed(session, table_id, deal_over=deal is not None):
        if deal is None and table.status in ("finished", "awaiting_adjudication"):
            raise ApiError(ErrorCode.NOT_FOUND, f"table {table_id} has no deal {deal_number}")
        raise ApiError(
            ErrorCode.ANALYSIS_NOT_YET,
            "a deal's analysis is shown once the deal has ended (in a tournament, once the round has)",
        )
    assert deal is not None
    # RULES §7.7: the players of this deal, in its seat numbering (a seat may have changed hands since).
    players = holders_of_deal(await holdings(session, [table_id]), deal_number)
    deal_id, result, record = deal.id, deal.result, deal.record
    await session.close()  # no connection held while the solver works
    step_aside()
    try:
        found = await stored_analysis(ctx.sessions, _pool(ctx), deal_id)
    except AnalysisOverBudget as exc:
        raise ApiError(ErrorCode.ANALYSIS_OVER_BUDGET, str(exc)) from None
    played = played_deal(result, record)
    # The hands as play began (the declarer's after the talon and the discard), by table seat.
    hands = (
        {}
        if played is None
        else {str(seat): [c.text for c in played[0].hands[i]] for i, seat in enumerate(played[1])}
    )
    return {
        "table": table_id,
        "deal": deal_number,
        "players": _named(players),
        "result": result,
        "record": inner_record(record),
        "hands": hands,
        "analysis": None if found is None else _in_table_seats(*found),
    }


@router.get("/tables/{table_id}")
async def game_analysis(table_id: Id, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """Every finished deal of the table, each with the declarer's par and tricks and the mistakes by seat
    once analysed (the per-deal route analyses; ``analysed`` false until then, ``over_budget`` for a deal
    the solver cannot analyse); deals the policy holds back are listed without them."""
    await watched_table(session, table_id, user)
    deals = (
        await session.execute(
            select(DealRecord.deal_number, DealRecord.result, DealAnalysis.analysis, DealAnalysis.seats)
            .outerjoin(DealAnalysis, DealAnalysis.deal_id == DealRecord.id)
            .where(DealRecord.table_id == table_id)
            .order_by(DealRecord.deal_number)
        )
    ).all()
    allowed = await analysis_allowed(session, table_id, deal_over=True)
    held = await holdings(session, [table_id])
    out = []
    for number, result, analysis, seats in deals:
        # Each deal's own players (RULES §7.7: a substitute or a fourth joining changes who sits where).
        summary: dict[str, Any] = {
            "deal": number,
            "players": _named(holders_of_deal(held, number)),
            "result": result,
            "analysis": None,
        }
        if allowed:
            summary["analysed"] = analysis is not None
            summary["over_budget"] = analysis is not None and OVER_BUDGET in analysis
            if analysis is not None and not summary["over_budget"]:
                full = _in_table_seats(analysis, [int(s) for s in seats])
                summary["analysis"] = {
                    "start": full["start"],
                    "taken": full["taken"],
                    "mistakes": full["mistakes"],
                }
        out.append(summary)
    final = {h.seat: h.name for h in held if h.last_deal is None}  # who holds each seat at the end
    return {"table": table_id, "players": _named(final), "held_back": not allowed, "deals": out}


@router.post("/deal")
async def analyse_posted(body: dict[str, Any], user: CurrentUser, ctx: ContextDep) -> dict[str, Any]:
    """An imported deal (the command line's input form, `app.analysis`): analysed in solver seats, not
    stored. A defect is a 422 naming it."""
    try:
        PlayedDeal.from_json(body)
    except InvalidPosition as exc:
        raise ApiError(ErrorCode.INVALID_REQUEST, f"invalid deal: {exc}") from None
    step_aside()
    try:
        return await _pool(ctx).analyse(body)
    except InvalidPosition as exc:
        raise ApiError(ErrorCode.INVALID_REQUEST, f"invalid deal: {exc}") from None
    except AnalysisOverBudget as exc:
        raise ApiError(ErrorCode.ANALYSIS_OVER_BUDGET, str(exc)) from None
