"""Issue 9 §4: every command that a caller waits for gets a reply — failure included — and cancellation is
never swallowed. The table actor runs in-process here with its writer replaced (no database)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import pytest

from app.engine.conventions import Conventions
from app.server.context import ServerContext
from app.server.settings import Settings
from app.server.storage import Boot, StepWrite
from app.server.tables.actor import TableActor
from app.server.tables.commands import SeatError, Sit, Stop


class FakeWriter:
    """The group writer's interface; ``impl`` stands for the database."""

    def __init__(self) -> None:
        self.boot = Boot()
        self.impl: Any = None
        self.versions: dict[int, int] = {}
        self.failing_since: int | None = None

    async def commit(self, table_id: int, version: int | None, write: StepWrite) -> None:
        await self.impl(table_id, version, write)
        if version is not None:
            self.versions[table_id] = version

    async def stored_version(self, table_id: int) -> int | None:
        return self.versions.get(table_id, 0)


@pytest.fixture
async def actor() -> AsyncIterator[TableActor]:
    executor = ThreadPoolExecutor(1)
    ctx = ServerContext(
        settings=Settings(database_url="sqlite+aiosqlite:///:memory:"),
        engine=cast(Any, None),
        sessions=cast(Any, None),
        token_secret="x" * 32,
        solver_executor=executor,
        passwords=cast(Any, None),
        auth_by_address=cast(Any, None),
        auth_by_name=cast(Any, None),
        tickets=cast(Any, None),
        writer=cast(Any, FakeWriter()),
    )
    table = TableActor(ctx, 1, 3, Conventions(), first_dealer=0)
    table.start()
    yield table
    await table.stop()
    executor.shutdown(wait=False)


def _sit(user: int, seat: int) -> tuple[Sit, asyncio.Future[int]]:
    reply: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    return Sit(user, f"u{user}", seat, reply), reply


async def test_a_failed_commit_answers_the_caller_with_a_typed_error_and_changes_nothing(
    actor: TableActor,
) -> None:
    async def broken(*_args: object) -> None:
        raise OSError("the database is gone")

    actor.ctx.writer.impl = broken  # type: ignore[attr-defined]
    command, reply = _sit(7, 0)
    actor.submit(command)
    with pytest.raises(SeatError) as failed:
        await asyncio.wait_for(reply, 5)
    assert failed.value.code == "server_error"
    assert actor.seat_users == [None, None, None] and actor.version == 0

    stored: list[StepWrite] = []

    async def works(_table: int, _version: int | None, write: StepWrite) -> None:
        stored.append(write)

    actor.ctx.writer.impl = works  # type: ignore[attr-defined]
    command, reply = _sit(7, 0)
    actor.submit(command)
    assert await asyncio.wait_for(reply, 5) == 0  # the same table takes the next command
    assert actor.seat_users[0] == 7 and actor.version == 1 and len(stored) == 1

    stop_reply: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    actor.submit(Stop("no game yet", stop_reply))
    with pytest.raises(SeatError) as refused:
        await asyncio.wait_for(stop_reply, 5)
    assert refused.value.code == "not_started"


async def test_unloading_a_busy_table_answers_every_waiting_caller_and_lets_cancellation_through(
    actor: TableActor,
) -> None:
    async def slow(*_args: object) -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            await asyncio.sleep(0.5)  # a commit that takes a moment to give up
            raise

    actor.ctx.writer.impl = slow  # type: ignore[attr-defined]
    first, first_reply = _sit(1, 0)
    second, second_reply = _sit(2, 1)
    actor.submit(first)
    actor.submit(second)
    await asyncio.sleep(0.05)
    stopper = asyncio.create_task(actor.stop())
    await asyncio.sleep(0.1)
    stopper.cancel()  # the caller of stop() is cancelled itself: that must reach it, not be swallowed
    with pytest.raises(asyncio.CancelledError):
        await stopper
    await actor.stop()
    for reply in (first_reply, second_reply):
        with pytest.raises(SeatError) as closed:
            await asyncio.wait_for(reply, 5)
        assert closed.value.code == "table_closed"
