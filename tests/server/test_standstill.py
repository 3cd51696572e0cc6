"""RULES §8.6: the time a move waits in the server's queue is not charged. A full collection of the cycle
collector stops the whole process, every table's loop with it; the tables' clocks do not run through it:
`timebase.mono_ms` leaves out the time the process stood still in a full collection, whoever started it
(`timebase.hold_clocks_in_full_collections`, a hook on every collection)."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.db.migrate import upgrade
from app.engine import legal_actions
from app.engine.conventions import Conventions
from app.server import timebase
from app.server.app import create_app
from app.server.settings import Settings
from app.server.tables.actor import TableActor
from app.server.tables.commands import Act, Connect, Sit
from app.server.timebase import hold_clocks_in_full_collections, mono_ms, stood_still
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
    monkeypatch.setattr(timebase._StoodStill, "last", 0)
    monkeypatch.setattr(timebase._StoodStill, "holders", 0)
    yield fake
    if timebase._on_collection in gc.callbacks:  # a test that failed while it held the time
        gc.callbacks.remove(timebase._on_collection)


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


class _Pause:
    """Garbage whose finalizer moves the machine's clock while a collection runs: the collection takes
    that long, and the finalizer reads the tables' time meanwhile."""

    def __init__(self, machine: Machine, ms: int, seen: list[int]) -> None:
        self.machine, self.ms, self.seen = machine, ms, seen
        self.me = self  # a cycle: only the cycle collector frees it

    def __del__(self) -> None:
        self.machine.ns += self.ms * MS
        self.seen.append(mono_ms())


@pytest.fixture
def held(machine: Machine) -> Iterator[None]:
    gc.collect()  # nothing older left to finalize in the tests' collections
    enabled = gc.isenabled()
    gc.disable()  # and no collection but the test's own
    hold_clocks_in_full_collections()
    yield
    hold_clocks_in_full_collections(False)
    if enabled:
        gc.enable()


@pytest.mark.usefixtures("held")
def test_a_full_collection_stops_the_tables_time_whoever_starts_it(machine: Machine) -> None:
    seen: list[int] = []
    before = mono_ms()
    _Pause(machine, 800, seen)
    assert gc.collect(2) >= 1
    assert seen == [before]  # a finalizer meanwhile reads the moment the collection began
    assert mono_ms() == before
    machine.ns += 5 * MS
    assert mono_ms() == before + 5


@pytest.mark.usefixtures("held")
def test_a_young_collection_does_not_stop_the_tables_time(machine: Machine) -> None:
    """The control: a young collection's pause is a few ms every 50 ms; left out, the clocks would run
    slow against the players' own."""
    seen: list[int] = []
    before = mono_ms()
    _Pause(machine, 30, seen)
    assert gc.collect(1) >= 1
    assert seen == [before + 30]
    assert mono_ms() == before + 30


def test_a_server_that_stops_no_longer_holds_the_time(machine: Machine) -> None:
    gc.collect()
    hold_clocks_in_full_collections()
    hold_clocks_in_full_collections()  # two servers in the process
    hold_clocks_in_full_collections(False)
    seen: list[int] = []
    before = mono_ms()
    _Pause(machine, 100, seen)
    gc.collect(2)
    assert mono_ms() == before  # the other one still holds it
    hold_clocks_in_full_collections(False)
    _Pause(machine, 100, seen)
    gc.collect(2)
    assert mono_ms() == before + 100


def test_the_server_holds_the_tables_time_in_full_collections_while_it_serves(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'standstill.db'}"
    upgrade(url)
    settings = Settings(database_url=url, token_secret="s" * 40)
    holders = timebase._StoodStill.holders  # (another test's server may still run in this process)
    with TestClient(create_app(settings)):
        assert timebase._on_collection in gc.callbacks
        assert timebase._StoodStill.holders == holders + 1
    assert timebase._StoodStill.holders == holders
    assert (timebase._on_collection in gc.callbacks) == (holders > 0)
