"""The table actor on a fake store and a fake clock (issue 20 §3): an action counts when the table received
it, not when it left the queue (RULES §8.6); a judge's sanction row and its audit line go in the very
commit that writes the sheet; a proposal's answer is not a move and an operator's decision is audited in
its commit (RULES §7.7)."""

from __future__ import annotations

import asyncio
from typing import Any

from app.engine.conventions import Conventions
from app.engine.scoring import ScoreSheet
from app.engine.scoring.violations import Role, apply_sanction
from app.protocol.messages import AckMessage
from app.server.storage import StepWrite
from app.server.tables.actor import TableActor
from app.server.tables.commands import Act, Judge, Life, Sit
from app.server.timebase import MonoMs
from app.table import Answer, Decree, JudgeSheet, ProposalKind, Propose
from tests.server.test_actor_replies import FakeStore


class FakeConn:
    """What the actor needs of a player's socket: its user, seat and the frames it is sent."""

    def __init__(self, user_id: int, seat: int) -> None:
        self.user_id, self.seat = user_id, seat
        self.sent: list[Any] = []

    def send(self, message: Any) -> None:
        self.sent.append(message)

    def hold(self) -> None:  # the frames are recorded as sent: there is no socket to write them to
        pass

    def release(self) -> None:
        pass


class Recording(FakeStore):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[StepWrite] = []

        async def record(_table: int, _version: int | None, write: StepWrite) -> None:
            self.writes.append(write)

        self.impl = record


async def _seated(store: FakeStore, now: list[int]) -> TableActor:
    actor = TableActor(store, 1, 3, Conventions(), first_dealer=0, now=lambda: MonoMs(now[0]))
    actor.start()
    for user in range(3):
        reply: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        actor.submit(Sit(user + 1, f"u{user + 1}", user, reply))
        await asyncio.wait_for(reply, 5)
    assert actor.game is not None and actor.game.to_act() == 1
    return actor


async def _acked(conn: FakeConn) -> None:
    for _ in range(500):
        if conn.sent:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("no reply")


async def test_an_action_counts_when_received_not_when_its_wait_in_the_queue_ends() -> None:
    now = [1_000_000]
    actor = await _seated(FakeStore(), now)
    try:
        game = actor.game
        assert game is not None and game.clock.since is not None
        started = game.clock.since
        conn = FakeConn(2, 1)
        now[0] = started + 400
        actor.submit(Act(conn, 1, {"type": "pass"}))  # type: ignore[arg-type]
        now[0] = started + 5_000  # the table was busy: 4.6 s more in its queue
        await _acked(conn)
        assert AckMessage.model_validate_json(conn.sent[0]) == AckMessage(seq=1, v=actor.version), conn.sent
        game = actor.game
        assert game is not None
        assert game.clock.seats[1].deal_ms == game.clock.settings.deal_ms - 400  # not 5 000
    finally:
        await actor.stop()


async def test_a_sanction_row_and_its_audit_line_are_stored_in_the_sheets_own_commit() -> None:
    store = Recording()
    actor = await _seated(store, [1_000_000])
    try:

        def write(sheet: ScoreSheet) -> ScoreSheet:
            entry = "dealer-looked-at-talon"
            return apply_sanction(sheet, entry, Role.DEALER, 1, judge="j", note="saw", allow_offline=True)

        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        row = {"table_id": 1, "seat": 1, "user_id": 2, "violation": "dealer-looked-at-talon"}
        audit = {"action": "sanction", "target": "table 1"}
        before = len(store.writes)
        actor.submit(Judge(JudgeSheet(write), reply, sanction=row, audit=audit))
        out = await asyncio.wait_for(reply, 5)
        (commit,) = store.writes[before:]
        assert commit.table["sheet"]["history"][-1]["kind"] == "sanction"
        assert commit.sanction_rows == ({**row, "line": out["sheet"]["history"][-1]},)
        assert commit.audit_rows == (audit,)
    finally:
        await actor.stop()


async def test_answers_run_no_clock_and_an_operators_decision_is_audited_in_its_commit() -> None:
    store = Recording()
    now = [1_000_000]
    actor = await _seated(store, now)
    try:
        game = actor.game
        assert game is not None
        clock = game.clock

        async def life(build: Any, audit: dict[str, Any] | None = None) -> dict[str, Any]:
            reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            actor.submit(Life(build, reply, audit))
            out: dict[str, Any] = await asyncio.wait_for(reply, 5)
            return out

        now[0] += 3_000
        made = await life(lambda _s: Propose(0, ProposalKind.SETTLE))
        assert made["life"]["proposal"]["accepted"] == [0]
        await life(lambda _s: Answer(2, True))
        assert actor.game is not None and actor.game.clock == clock  # nobody's clock touched
        assert store.writes[-1].table["life"]["proposal"]["accepted"] == [0, 2]
        line = {"action": "decree_adjourn", "target": "table 1"}
        decided = await life(lambda _s: Decree(ProposalKind.ADJOURN, "closing"), line)
        assert decided["life"]["proposal"]["reason"] == "closing"
        assert store.writes[-1].audit_rows == (line,)
    finally:
        await actor.stop()
