"""Issue 13 §1, §7, §11, in process on SQLite and PostgreSQL: a table's queue is bounded; a commit whose
reply was lost is read back from the log before the next step; a fault in the table's own step ends the
game, typed, with the fault recorded, and leaves the other tables alone."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import func, select, update

from app.db.models import ActionRecord, GameTable, InterruptedDeal
from app.server.context import ServerContext
from app.server.storage import StepWrite
from app.server.tables import actor as actor_module
from app.server.tables.commands import Act, Resync, SeatError, Stop
from app.server.timebase import mono_ms
from app.table import SeatAction, StopGame, step
from tests.server import test_group_commit as harness

# The in-process server of the group-commit tests: a real writer on SQLite or PostgreSQL.
database_url = harness.database_url
ctx = harness.ctx


async def _on_move(conns: list[harness.FakeConnection]) -> tuple[int, list[dict[str, Any]]]:
    snapshots = [await conn.next("snapshot") for conn in conns]
    (seat,) = [s for s, snap in enumerate(snapshots) if snap["legal"]]
    return seat, snapshots


async def _stored(ctx: ServerContext, table_id: int) -> tuple[int, int]:
    async with ctx.sessions() as session:
        version = (
            await session.execute(select(GameTable.version).where(GameTable.id == table_id))
        ).scalar_one()
        actions = (
            await session.execute(
                select(func.count()).select_from(ActionRecord).where(ActionRecord.table_id == table_id)
            )
        ).scalar_one()
    return int(version), int(actions)


async def test_a_commit_stored_but_reported_failed_is_read_back_before_the_next_step(
    ctx: ServerContext,
) -> None:
    tables = await harness._started_tables(ctx)
    table_id, conns = tables[0]
    seat, snapshots = await _on_move(conns)
    actor = ctx.tables[table_id]
    version, actions = await _stored(ctx, table_id)
    assert actor.version == version
    writer = ctx.writer
    real_commit = writer.commit

    async def stored_then_lost(table: int, new_version: int | None, write: StepWrite) -> None:
        await real_commit(table, new_version, write)
        del writer.commit  # once: the instance attribute goes away
        raise ConnectionResetError("the connection broke before the reply")

    vars(writer)["commit"] = stored_then_lost  # over the method, until its first call removes it
    action = snapshots[seat]["legal"][0]
    actor.submit(Act(harness.as_connection(conns[seat]), 1, action))
    assert (await conns[seat].next("error"))["code"] == "server_error"
    assert await _stored(ctx, table_id) == (version + 1, actions + 1)  # it was stored after all
    assert actor.version == version  # the table does not know yet

    # The client sends it again: the table reads itself back first, so this is the same action, applied
    # once; every connection gets the table as stored, and the seat on move now is charged nothing for
    # the time the table did not know.
    actor.submit(Act(harness.as_connection(conns[seat]), 1, action))
    ack = await conns[seat].next("ack")
    assert ack["duplicate"] is True and ack["v"] == version + 1 == actor.version
    fresh = [await conn.next("snapshot") for conn in conns]
    assert {snap["v"] for snap in fresh} == {version + 1}
    assert not fresh[seat]["legal"] and fresh[seat]["last_seq"] == 1
    (next_seat,) = [s for s, snap in enumerate(fresh) if snap["legal"]]
    clock = fresh[next_seat]["clock"]
    assert clock["running"] == next_seat and not clock["frozen"]
    assert clock["seats"][next_seat]["deal_ms"] >= 600_000 - 5_000
    assert actor.game is not None
    assert actor.game.clock.time_left(next_seat, mono_ms()).deal_ms >= 600_000 - 5_000
    assert await _stored(ctx, table_id) == (version + 1, actions + 1)

    # The table goes on: the next seat's action is a new version, stored once.
    actor.submit(Act(harness.as_connection(conns[next_seat]), 1, fresh[next_seat]["legal"][0]))
    ack = await conns[next_seat].next("ack")
    assert ack["duplicate"] is False and ack["v"] == version + 2
    assert await _stored(ctx, table_id) == (version + 2, actions + 2)


async def test_a_fault_in_the_tables_step_ends_the_game_typed_and_recorded(
    ctx: ServerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = await harness._started_tables(ctx)
    (table_id, conns), (other_id, other_conns) = tables[0], tables[1]
    seat, snapshots = await _on_move(conns)
    other_seat, other_snapshots = await _on_move(other_conns)
    real_step = step

    def faulty(game: Any, command: Any, **kwargs: Any) -> Any:
        if isinstance(command, SeatAction) and ctx.tables[table_id].game is game:
            raise ZeroDivisionError("a bug in the step")
        return real_step(game, command, **kwargs)

    monkeypatch.setattr(actor_module, "step", faulty)
    ctx.tables[table_id].submit(Act(harness.as_connection(conns[seat]), 1, snapshots[seat]["legal"][0]))
    error = await conns[seat].next("error")
    assert error["code"] == "server_error" and "ended" in error["message"]
    for conn in conns:
        update = await conn.next("update")
        (over,) = [e for e in update["events"] if e["kind"] == "game_over"]
        assert over["data"]["reason"] == "server_fault"
        assert update["outcome"]["reason"] == "server_fault"
        assert "ZeroDivisionError: a bug in the step" in update["outcome"]["settlement"]["note"]
        assert update["legal"] == []
    actor = ctx.tables[table_id]
    assert actor.game is not None and actor.game.is_over
    async with ctx.sessions() as session:
        row = await session.get(GameTable, table_id)
        assert row is not None
        # The deal in progress waits for an administrator (§7.7), the sheet settled as it stands.
        assert row.status == "awaiting_adjudication" and row.finish_reason == "server_fault"
        assert row.settlement is not None and "a bug in the step" in row.settlement["note"]
        archived = (
            (await session.execute(select(InterruptedDeal).where(InterruptedDeal.table_id == table_id)))
            .scalars()
            .all()
        )
        assert [a.deal_number for a in archived] == [1]
    # Another table is untouched and plays on.
    other = ctx.tables[other_id]
    other.submit(
        Act(harness.as_connection(other_conns[other_seat]), 1, other_snapshots[other_seat]["legal"][0])
    )
    assert (await other_conns[other_seat].next("ack"))["duplicate"] is False


async def test_a_flooded_table_refuses_what_does_not_fit_and_serves_the_rest(
    ctx: ServerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx.settings.table_queue_limit = 16
    tables = await harness._started_tables(ctx)
    table_id, conns = tables[0]
    seat, snapshots = await _on_move(conns)
    actor = ctx.tables[table_id]
    writer = ctx.writer
    real_commit = writer.commit
    gate = asyncio.Event()
    holding = asyncio.Event()

    async def held(table: int, new_version: int | None, write: StepWrite) -> None:
        holding.set()
        await gate.wait()
        await real_commit(table, new_version, write)

    monkeypatch.setattr(writer, "commit", held)
    actor.submit(Act(harness.as_connection(conns[seat]), 1, snapshots[seat]["legal"][0]))
    await asyncio.wait_for(holding.wait(), 30)  # the table is now waiting for its commit
    spectator = conns[(seat + 1) % 3]
    for _ in range(50):
        spectator.resync_pending = True
        actor.submit(Resync(harness.as_connection(spectator)))
    assert actor.queue.qsize() == 16
    busy = [f for f in spectator.frames if f["type"] == "error"]
    assert len(busy) == 34 and {f["code"] for f in busy} == {"table_busy"}
    gate.set()
    ack = await conns[seat].next("ack")
    assert ack["duplicate"] is False
    async with asyncio.timeout(10):
        while not actor.queue.empty():
            await asyncio.sleep(0.01)
    assert len([f for f in spectator.frames if f["type"] == "snapshot"]) == 16


async def test_a_fault_in_an_operators_command_changes_nothing_and_the_game_goes_on(
    ctx: ServerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the steps that move the game on end it when they fail: they would fail on every later move. A
    failed stop (or award, or sanction) is refused, typed, and the table plays on."""
    tables = await harness._started_tables(ctx)
    table_id, conns = tables[0]
    seat, snapshots = await _on_move(conns)
    actor = ctx.tables[table_id]
    version = actor.version
    real_step = step

    def faulty(game: Any, command: Any, **kwargs: Any) -> Any:
        if isinstance(command, StopGame):
            raise ZeroDivisionError("a bug in the stop")
        return real_step(game, command, **kwargs)

    monkeypatch.setattr(actor_module, "step", faulty)
    reply: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    actor.submit(Stop("closing early", reply))
    with pytest.raises(SeatError) as refused:
        await asyncio.wait_for(reply, 10)
    assert refused.value.code == "server_fault" and "a bug in the stop" in refused.value.message
    assert actor.version == version and actor.game is not None and not actor.game.is_over
    actor.submit(Act(harness.as_connection(conns[seat]), 1, snapshots[seat]["legal"][0]))
    assert (await conns[seat].next("ack"))["v"] == version + 1


async def test_a_worker_does_not_store_a_step_of_a_table_taken_over_meanwhile(ctx: ServerContext) -> None:
    """Issue 14 §6: with several worker processes the writer stores only steps of tables this process still
    owns; the rows of a table another worker took over meanwhile are left out of the batch (and their
    sender told), the other tables' rows of the same batch are stored."""
    tables = await harness._started_tables(ctx)
    moves = []
    for table_id, conns in tables[:2]:
        seat, snapshots = await _on_move(conns)
        moves.append((table_id, conns[seat], snapshots[seat]["legal"][0]))
    (kept_id, _, _), (moved_id, _, _) = moves
    ctx.writer.owner = "this-worker"
    async with ctx.engine.begin() as conn:
        await conn.execute(update(GameTable).values(owner="this-worker"))
        await conn.execute(update(GameTable).where(GameTable.id == moved_id).values(owner="another-worker"))
    before = {table_id: await _stored(ctx, table_id) for table_id in (kept_id, moved_id)}
    for table_id, sender, action in moves:
        ctx.tables[table_id].submit(Act(harness.as_connection(sender), 1, action))
    kept_conn, moved_conn = moves[0][1], moves[1][1]
    assert (await kept_conn.next("ack"))["duplicate"] is False
    refused = await moved_conn.next("error")
    assert refused["code"] == "server_error"  # not stored; its socket is moved to the owner (4307)
    assert await _stored(ctx, kept_id) == (before[kept_id][0] + 1, before[kept_id][1] + 1)
    assert await _stored(ctx, moved_id) == before[moved_id]
