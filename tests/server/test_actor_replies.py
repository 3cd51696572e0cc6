"""Issue 9 §4: every command that a caller waits for gets a reply — failure included — and cancellation is
never swallowed. The table actor runs in-process here on a fake store (no database) and, where the time
matters, a fake clock (issue 23: the actor reads the time only through the ``now`` it is given)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from app.clock import ReserveClock
from app.engine.conventions import Conventions
from app.server.storage import StepWrite, StoredTable
from app.server.tables.actor import TableActor
from app.server.tables.commands import SeatError, Sit, Stop
from app.server.timebase import MonoMs


class FakeStore:
    """A table's storage (`StepStore`) without a database; ``impl`` stands for the commit."""

    def __init__(self) -> None:
        self.impl: Callable[[int, int | None, StepWrite], Awaitable[None]] = _stored
        self.versions: dict[int, int] = {}
        self.failing_since: MonoMs | None = None

    async def commit(self, table_id: int, version: int | None, write: StepWrite) -> None:
        await self.impl(table_id, version, write)
        if version is not None:
            self.versions[table_id] = version

    async def stored_version(self, table_id: int) -> int | None:
        return self.versions.get(table_id, 0)

    async def read(self, table_id: int) -> StoredTable | None:
        return None

    async def next_award_revision(self, deal_id: int) -> int:
        return 1

    def clock_record(self, clock: ReserveClock, now: MonoMs) -> dict[str, Any]:
        return clock.to_json()


async def _stored(_table: int, _version: int | None, _write: StepWrite) -> None:
    pass


@pytest.fixture
async def store() -> FakeStore:
    return FakeStore()


@pytest.fixture
async def actor(store: FakeStore) -> AsyncIterator[TableActor]:
    table = TableActor(store, 1, 3, Conventions(), first_dealer=0)
    table.start()
    yield table
    await table.stop()


def _sit(user: int, seat: int) -> tuple[Sit, asyncio.Future[int]]:
    reply: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    return Sit(user, f"u{user}", seat, reply), reply


async def test_a_failed_commit_answers_the_caller_with_a_typed_error_and_changes_nothing(
    actor: TableActor, store: FakeStore
) -> None:
    async def broken(*_args: object) -> None:
        raise OSError("the database is gone")

    store.impl = broken
    command, reply = _sit(7, 0)
    actor.submit(command)
    with pytest.raises(SeatError) as failed:
        await asyncio.wait_for(reply, 5)
    assert failed.value.code == "server_error"
    assert actor.seating.users == (None, None, None) and actor.version == 0

    stored: list[StepWrite] = []

    async def works(_table: int, _version: int | None, write: StepWrite) -> None:
        stored.append(write)

    store.impl = works
    command, reply = _sit(7, 0)
    actor.submit(command)
    assert await asyncio.wait_for(reply, 5) == 0  # the same table takes the next command
    assert actor.seating.users[0] == 7 and actor.version == 1 and len(stored) == 1

    stop_reply: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    actor.submit(Stop("no game yet", stop_reply))
    with pytest.raises(SeatError) as refused:
        await asyncio.wait_for(stop_reply, 5)
    assert refused.value.code == "not_started"


async def test_unloading_a_busy_table_answers_every_waiting_caller_and_lets_cancellation_through(
    actor: TableActor, store: FakeStore
) -> None:
    committing, giving_up = asyncio.Event(), asyncio.Event()

    async def slow(*_args: object) -> None:
        committing.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            giving_up.set()
            await asyncio.sleep(0.5)  # a commit that takes a moment to give up
            raise

    store.impl = slow
    first, first_reply = _sit(1, 0)
    second, second_reply = _sit(2, 1)
    actor.submit(first)
    actor.submit(second)
    await asyncio.wait_for(committing.wait(), 10)  # the first sit is storing, the second waits
    stopper = asyncio.create_task(actor.stop())
    await asyncio.wait_for(giving_up.wait(), 10)  # stop() has cancelled the table and waits for it
    stopper.cancel()  # the caller of stop() is cancelled itself: that must reach it, not be swallowed
    with pytest.raises(asyncio.CancelledError):
        await stopper
    await actor.stop()
    for reply in (first_reply, second_reply):
        with pytest.raises(SeatError) as closed:
            await asyncio.wait_for(reply, 5)
        assert closed.value.code == "table_closed"


async def test_the_actor_reads_the_time_only_from_the_clock_it_is_given(store: FakeStore) -> None:
    """The game starts when the third player sits; the seat to act runs from the injected instant (far from
    this process's monotonic clock), with the conventions' deal time and reserve (RULES §8.1)."""
    instants = iter(range(5_000_000_000, 5_000_100_000, 1_000))
    actor = TableActor(store, 1, 3, Conventions(), first_dealer=0, now=lambda: MonoMs(next(instants)))
    actor.start()
    try:
        for user in range(3):
            command, reply = _sit(user + 1, user)
            actor.submit(command)
            assert await asyncio.wait_for(reply, 5) == user
        game = actor.game
        assert game is not None and game.clock.running is not None
        deal, reserve = game.clock.settings.deal_ms, game.clock.settings.reserve_ms
        deadline = game.clock.expires_at()
        assert (
            deadline is not None
            and 5_000_000_000 + deal + reserve <= deadline < 5_000_100_000 + deal + reserve
        )
    finally:
        await actor.stop()
