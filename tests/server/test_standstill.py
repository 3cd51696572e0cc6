"""RULES §8.6: the time a move waits in the server's queue is not charged. A full collection of the cycle
collector stops the whole process, every table's loop with it; the tables' clocks do not run through it:
`timebase.mono_ms` leaves out the time the process stood still, which the collector reports
(`timebase.stood_still`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from app.engine import legal_actions
from app.engine.conventions import Conventions
from app.server import collector, timebase
from app.server.collector import run_collector
from app.server.tables.actor import TableActor
from app.server.tables.commands import Act, Connect, Sit
from app.server.timebase import mono_ms, stood_still
from tests.server.helpers import until
from tests.server.test_actor_replies import FakeStore
from tests.server.test_clock_holds import Recorder

MS = 1_000_000  # ns


class Machine:
    """The process's monotonic clock, moved by hand (the wall clock is the real one)."""

    def __init__(self) -> None:
        self.ns = 10**15

    def monotonic_ns(self) -> int:
        return self.ns

    def time_ns(self) -> int:
        return time.time_ns()


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[Machine]:
    fake = Machine()
    monkeypatch.setattr(timebase, "time", fake)
    monkeypatch.setattr(timebase._StoodStill, "ns", 0)
    yield fake


def test_the_time_stood_still_is_left_out_of_the_tables_time(machine: Machine) -> None:
    before = mono_ms()
    machine.ns += 800 * MS
    stood_still(800 * MS)
    assert mono_ms() == before
    machine.ns += 5 * MS
    assert mono_ms() == before + 5


async def _acted(actor: TableActor, conn: Recorder, seq: int) -> None:
    game = actor.game
    assert game is not None
    version = actor.version
    actor.submit(Act(conn, seq, legal_actions(game.state)[0].to_json()))
    await until(lambda: actor.version > version, "the move stored", timeout=10)


def _on_move(actor: TableActor) -> tuple[int, int]:
    """The seat on move and its time left."""
    game = actor.game
    assert game is not None
    mover = game.to_act()
    assert mover is not None
    return mover, game.clock.time_left(mover, mono_ms()).total_ms


def _charged(actor: TableActor, seat: int, left_before: int) -> int:
    game = actor.game
    assert game is not None and game.clock.running != seat
    return left_before - game.clock.time_left(seat, mono_ms()).total_ms


async def test_a_move_that_waited_through_a_full_collection_is_not_charged_for_it(machine: Machine) -> None:
    actor = TableActor(FakeStore(), 1, 3, Conventions(), first_dealer=0)  # its clocks read `mono_ms`
    actor.start()
    try:
        for user in range(3):
            seated: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            actor.submit(Sit(user + 1, f"u{user + 1}", user, seated))
            await asyncio.wait_for(seated, 10)
        players = [Recorder(user_id=user + 1) for user in range(3)]
        for conn in players:
            actor.submit(Connect(conn))
        await until(lambda: all(c.seat is not None for c in players), "the players connected", timeout=10)

        mover, left = _on_move(actor)
        machine.ns += 800 * MS  # a full collection: the move arrives meanwhile and waits
        stood_still(800 * MS)
        machine.ns += 300 * MS
        await _acted(actor, players[mover], 1)
        assert _charged(actor, mover, left) <= 300

        # The control: the next seat's 1.1 s without a collection are charged.
        mover, left = _on_move(actor)
        machine.ns += 1_100 * MS
        await _acted(actor, players[mover], 1)
        assert _charged(actor, mover, left) >= 600
    finally:
        await actor.stop()


async def test_the_collector_reports_how_long_a_full_collection_stood_still(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(timebase._StoodStill, "ns", 0)

    def slow_collection() -> int:
        time.sleep(0.05)
        return 0

    monkeypatch.setattr(collector, "collect_everything", slow_collection)
    task = asyncio.create_task(run_collector(0.001, 0.0, 0))  # a full collection at every tick
    try:
        await until(lambda: timebase._StoodStill.ns > 0, "a full collection reported", timeout=30)
    finally:
        task.cancel()
        await asyncio.wait({task})
    assert timebase._StoodStill.ns >= 50 * MS
