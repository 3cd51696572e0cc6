"""The round clock (RULES.md §9.3) against a real database, with scripted tables in place of the actors: a
table that does not answer in time, a crash after the announcement was recorded, and a straggler that
refuses its end at first must all still end, so that the round finishes."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, cast

import pytest
from sqlalchemy import select

from app.auth.roles import Role
from app.db.engine import make_engine, make_sessionmaker
from app.db.models import GameTable, Room, Tournament, TournamentRound, TournamentTable, User
from app.protocol.codes import ErrorCode
from app.server.context import ServerContext
from app.server.http.shared_answers import SharedAnswers
from app.server.tables.commands import RoundEnd, SeatError
from app.server.tournaments import analysis_gate, round_clock
from app.server.tournaments.answers import tournament_key
from app.tournament.roundend import MORE_DEALS, RoundClock, TableEnd
from tests.server import test_group_commit as harness

database_url = harness.database_url

WARNING_AT = 1_000_000 + 50 * 60_000  # the clock below: started at 1_000_000, 60 min long, warning 10 min


@dataclass
class ScriptedTable:
    """A table's answers to the round's end: ``deal`` in progress; ``lose`` replies are swallowed (the
    table takes the end but the reply never comes); ``refuse`` straggler ends are refused first; ``fail``
    ends are answered ``server_error`` first (the table could not store them)."""

    deal: int
    lose: int = 0
    refuse: int = 0
    fail: int = 0
    last_deal: int | None = None
    asked: list[bool] = field(default_factory=list)

    def submit(self, command: RoundEnd) -> None:
        straggler = command.command.straggler
        self.asked.append(straggler)
        if self.fail:
            self.fail -= 1
            command.reply.set_exception(SeatError(ErrorCode.SERVER_ERROR, "the database is away"))
            return
        if straggler and self.refuse:
            self.refuse -= 1
            command.reply.set_exception(SeatError(ErrorCode.TOURNAMENT_STATE, "adjourned"))
            return
        if self.last_deal is None:  # idempotent, as `app.table.step` is: a repeat keeps the first end
            self.last_deal = self.deal if straggler else self.deal + MORE_DEALS
        if self.lose:
            self.lose -= 1
            return
        command.reply.set_result({"sheet": {"last_deal": self.last_deal, "last_dealer": 0}})


@pytest.fixture
async def ctx(database_url: str) -> AsyncIterator[ServerContext]:
    engine = make_engine(database_url)
    try:
        # (Answers kept on a clock that stands still: only what a tick forgets goes.)
        answers = SharedAnswers(1000, clock=lambda: 0.0)
        yield cast(
            ServerContext, SimpleNamespace(sessions=make_sessionmaker(engine), cluster=None, answers=answers)
        )
    finally:
        await engine.dispose()


async def _round(
    ctx: ServerContext, ends: list[dict[str, Any] | None], *, announced: bool = False
) -> list[int]:
    """A playing round with one live table per entry of ``ends`` (its stored end); the tables' ids."""
    clock: dict[str, Any] = RoundClock(1_000_000, 60 * 60_000, 10 * 60_000).to_json()
    if announced:
        clock["announced_ms"] = WARNING_AT
    async with ctx.sessions() as session:
        user = User(
            name="op", name_key="op", password_hash="-", role=Role.OPERATOR.value, created_at=time.time()
        )
        session.add(user)
        await session.flush()
        room = Room(name="r", operator_id=user.id, preset="p", overrides={}, conventions={}, created_at=0.0)
        session.add(room)
        await session.flush()
        tour = Tournament(room_id=room.id, name="t", conventions={}, rounds=1, round_minutes=60.0,
                          status="playing", created_by=user.id, created_at=0.0)  # fmt: skip
        session.add(tour)
        await session.flush()
        rnd = TournamentRound(tournament_id=tour.id, number=1, seed=1, draw={}, clock=clock, status="playing")
        session.add(rnd)
        await session.flush()
        ids = []
        for number, end in enumerate(ends, 1):
            table = GameTable(room_id=room.id, seats=3, conventions={}, status="playing", created_at=0.0)
            session.add(table)
            await session.flush()
            session.add(
                TournamentTable(round_id=rnd.id, number=number, table_id=table.id, players=[], end=end)
            )
            ids.append(table.id)
        await session.commit()
    return ids


async def _ends(ctx: ServerContext) -> list[dict[str, Any] | None]:
    async with ctx.sessions() as session:
        rows = await session.execute(select(TournamentTable.end).order_by(TournamentTable.number))
        return list(rows.scalars())


def _script(monkeypatch: pytest.MonkeyPatch, tables: dict[int, ScriptedTable]) -> None:
    async def get_actor(ctx: ServerContext, table_id: int) -> ScriptedTable:
        return tables[table_id]

    monkeypatch.setattr(round_clock, "get_actor", get_actor)
    monkeypatch.setattr(round_clock, "ANSWER_TIMEOUT_S", 0.05)


async def test_a_table_whose_answer_times_out_is_asked_again_and_the_others_answers_are_kept(
    ctx: ServerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = await _round(ctx, [None, None])
    tables = {first: ScriptedTable(deal=3), second: ScriptedTable(deal=5, lose=1)}
    _script(monkeypatch, tables)
    await round_clock.tick(ctx, WARNING_AT - 1)
    assert tables[first].asked == [] and await _ends(ctx) == [None, None]  # not due yet

    await round_clock.tick(ctx, WARNING_AT)  # the second table takes it, but its reply is lost
    ends = await _ends(ctx)
    assert ends[0] is not None and ends[0]["last_deal"] == 3 + MORE_DEALS and not ends[0]["missed"]
    assert ends[1] is None  # no answer: neither announced nor missed

    await round_clock.tick(ctx, WARNING_AT + 1_000)  # asked again: it answers with the end it already has
    ends = await _ends(ctx)
    assert ends[1] is not None and ends[1]["last_deal"] == 5 + MORE_DEALS and not ends[1]["missed"]
    assert tables[first].asked == [False] and tables[second].asked == [False, False]
    await round_clock.tick(ctx, WARNING_AT + 2_000)
    assert tables[second].asked == [False, False]  # answered: not asked a third time


async def test_an_announcement_recorded_before_a_crash_still_reaches_every_table(
    ctx: ServerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    (table_id,) = await _round(ctx, [None], announced=True)  # killed between the round's and tables' commits
    tables = {table_id: ScriptedTable(deal=2)}
    _script(monkeypatch, tables)
    await round_clock.tick(ctx, WARNING_AT + 5_000)
    (end,) = await _ends(ctx)
    assert end is not None and end["last_deal"] == 2 + MORE_DEALS and tables[table_id].asked == [False]


async def test_a_refused_straggler_end_is_sent_again_until_the_table_takes_it(
    ctx: ServerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    missed = TableEnd(3, 0).miss().to_json()
    (table_id,) = await _round(ctx, [missed], announced=True)
    tables = {table_id: ScriptedTable(deal=4, refuse=1)}
    _script(monkeypatch, tables)
    await round_clock.tick(ctx, WARNING_AT + 1_000)  # every other table has ended: its end, refused
    (end,) = await _ends(ctx)
    assert end is not None and "straggler_sent" not in end
    await round_clock.tick(ctx, WARNING_AT + 2_000)
    (end,) = await _ends(ctx)
    assert end is not None and end["straggler_sent"] == WARNING_AT + 2_000
    assert tables[table_id].asked == [True, True] and tables[table_id].last_deal == 4


async def test_a_table_that_cannot_store_the_announcement_is_asked_again_not_counted_as_missing_it(
    ctx: ServerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    (table_id,) = await _round(ctx, [None])
    tables = {table_id: ScriptedTable(deal=3, fail=1)}
    _script(monkeypatch, tables)
    await round_clock.tick(ctx, WARNING_AT)  # its commit failed: no answer, not a refusal (§9.3)
    assert await _ends(ctx) == [None]
    await round_clock.tick(ctx, WARNING_AT + 1_000)
    (end,) = await _ends(ctx)
    assert end is not None and end["last_deal"] == 3 + MORE_DEALS and not end["missed"]
    assert tables[table_id].asked == [False, False]


async def test_what_a_tick_changes_forgets_the_tournaments_shared_answers(
    ctx: ServerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    (table_id,) = await _round(ctx, [None])
    async with ctx.sessions() as session:
        (tournament_id,) = (await session.execute(select(Tournament.id))).scalars()
    _script(monkeypatch, {table_id: ScriptedTable(deal=3)})
    builds = 0

    async def build() -> bytes:
        nonlocal builds
        builds += 1
        return b"{}"

    async def asked() -> int:
        await ctx.answers.get(tournament_key(tournament_id), "tournament", build)
        return builds

    assert await asked() == 1
    await round_clock.tick(ctx, WARNING_AT - 1)  # nothing due: the page's answer is kept
    assert await asked() == 1
    await round_clock.tick(ctx, WARNING_AT)  # announced and answered: the page shows it at once
    assert await asked() == 2
    async with ctx.sessions() as session:
        table = await session.get(GameTable, table_id)
        assert table is not None
        table.status = "finished"
        await session.commit()
    await round_clock.tick(ctx, WARNING_AT + 1_000)  # the round is finished
    assert await asked() == 3
    async with ctx.sessions() as session:
        statuses = (await session.execute(select(TournamentRound.status))).scalars().all()
    assert statuses == ["finished"]


async def test_a_rounds_deals_may_be_analysed_once_it_has_ended_at_every_table_before_the_clock_stores_it(
    ctx: ServerContext,
) -> None:
    """RULES §12, last point: a tournament deal is analysed only once its round has ended at every table;
    that is read from the tables, not only from the round's stored status (the round clock stores it within
    its second)."""
    first, second = await _round(ctx, [None, None])
    async with ctx.sessions() as session:
        assert await analysis_gate.round_over(session, first) is False
        table = await session.get(GameTable, first)
        assert table is not None
        table.status = "finished"
        await session.commit()
        assert await analysis_gate.round_over(session, second) is False  # the other table still plays
        other = await session.get(GameTable, second)
        assert other is not None
        other.status = "finished"
        await session.commit()
        assert await analysis_gate.round_over(session, first) is True
        statuses = (await session.execute(select(TournamentRound.status))).scalars().all()
        assert statuses == ["playing"]  # not stored yet: the clock's tick does it
        assert await analysis_gate.round_over(session, 987654) is None  # no tournament seated it
