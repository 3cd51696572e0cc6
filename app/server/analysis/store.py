"""A finished deal's analysis, computed once and kept in the database (`DealAnalysis` rows)."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.analysis.deal import deal_json
from app.analysis.records import played_deal
from app.db.models import DealAnalysis, DealRecord
from app.server.analysis.pool import OVER_BUDGET, AnalysisOverBudget, AnalysisPool
from app.solver import IMPLEMENTATION


async def stored_analysis(
    sessions: async_sessionmaker[AsyncSession], pool: AnalysisPool, deal_id: int
) -> tuple[dict[str, Any], list[int]] | None:
    """The analysis of the stored deal ``deal_id`` (solver seats) and the table seat of each solver seat;
    None for a deal with nothing to analyse (all-pass, or not played). Computed on first demand with no
    database connection held meanwhile; two first demands at once store one row.

    A deal the solver cannot analyse within the node budget raises `AnalysisOverBudget`, and that outcome
    is stored too (a row whose analysis is ``{OVER_BUDGET: budget}``): it is deterministic, so the deal
    is not solved again on every request (unless the budget has been raised since)."""
    async with sessions() as session:
        row = await session.get(DealAnalysis, deal_id)
        if row is not None:
            if OVER_BUDGET not in row.analysis:
                return row.analysis, [int(s) for s in row.seats]
            if row.node_budget >= pool.node_budget:
                raise AnalysisOverBudget(row.node_budget)
            await session.delete(row)  # the budget has been raised: try again
            await session.commit()
        deal = await session.get(DealRecord, deal_id)
        if deal is None:
            return None
        played = played_deal(deal.result, deal.record)
    if played is None:
        return None
    data, seats = played
    try:
        analysis = await pool.analyse(deal_json(data))
    except AnalysisOverBudget:
        analysis = {OVER_BUDGET: pool.node_budget}
    async with sessions() as session:
        budget = pool.node_budget
        row = DealAnalysis(deal_id=deal_id, seats=list(seats), analysis=analysis, node_budget=budget,
                           solver=IMPLEMENTATION, at=time.time())  # fmt: skip
        session.add(row)
        try:
            await session.commit()
        except IntegrityError:
            await session.rollback()  # another request stored the same analysis first
    if OVER_BUDGET in analysis:
        raise AnalysisOverBudget(pool.node_budget)
    return analysis, list(seats)
