"""A deal the solver cannot analyse within the node budget (issue 21 §2): the pool says so as a typed
outcome, and the outcome is stored, so the deal is not solved again on every request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.analysis.deal import PlayedDeal
from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade
from app.db.models import DealAnalysis, DealRecord, GameTable, Room, User
from app.server.analysis import OVER_BUDGET, AnalysisOverBudget, AnalysisPool, stored_analysis
from app.server.analysis import store as store_module

DEAL: dict[str, Any] = {
    "hands": [
        ["sA", "sK", "sQ", "sJ", "sT", "s9", "s8", "s7", "cA", "cK"],
        ["dA", "dK", "dQ", "dJ", "dT", "d9", "d8", "d7", "cQ", "cJ"],
        ["hA", "hK", "hQ", "hJ", "hT", "h9", "h8", "h7", "cT", "c9"],
    ],
    "trump": "s", "mode": "contract", "declarer": 0, "leader": 1, "play": ["dA", "hA", "s7"],
}  # fmt: skip


async def test_the_pool_answers_over_budget_rather_than_failing() -> None:
    pool = AnalysisPool(node_budget=1)
    try:
        with pytest.raises(AnalysisOverBudget) as caught:
            await pool.analyse(DEAL)
        assert caught.value.node_budget == 1
        assert pool._waiting == 0
    finally:
        pool.shutdown()


@pytest.fixture
def url(tmp_path: Path) -> str:
    """A migrated SQLite database (the migrations run their own event loop: not inside the test's)."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}"
    upgrade(database)
    return database


class CountingPool(AnalysisPool):
    def __init__(self, node_budget: int) -> None:
        super().__init__(node_budget=node_budget)
        self.calls = 0

    async def analyse(self, deal: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        raise AnalysisOverBudget(self.node_budget)


async def test_an_over_budget_deal_is_stored_and_not_solved_again(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    async with sessions() as session, session.begin():
        user = User(name="op", name_key="op", password_hash="x", role="operator", created_at=0.0)
        session.add(user)
        await session.flush()
        room = Room(
            name="r", operator_id=user.id, preset="sochi", overrides={}, conventions={}, created_at=0.0
        )
        session.add(room)
        await session.flush()
        table = GameTable(room_id=room.id, seats=3, conventions={}, status="finished", created_at=0.0)
        session.add(table)
        await session.flush()
        deal = DealRecord(table_id=table.id, deal_number=1, result={}, record={}, at=0.0)
        session.add(deal)
        await session.flush()
        deal_id = deal.id
    # The stored record's reading is not what this test is about: the deal above plays as DEAL.
    monkeypatch.setattr(store_module, "played_deal", lambda _r, _d: (PlayedDeal.from_json(DEAL), (0, 1, 2)))
    try:
        pool = CountingPool(node_budget=5)
        for _ in range(3):
            with pytest.raises(AnalysisOverBudget):
                await stored_analysis(sessions, pool, deal_id)
        assert pool.calls == 1
        async with sessions() as session:
            row = await session.get(DealAnalysis, deal_id)
            assert row is not None and OVER_BUDGET in row.analysis and row.node_budget == 5
        raised = CountingPool(node_budget=50)  # a larger budget tries again
        with pytest.raises(AnalysisOverBudget):
            await stored_analysis(sessions, raised, deal_id)
        assert raised.calls == 1
    finally:
        await engine.dispose()
