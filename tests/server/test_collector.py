"""The cycle collector on the loop's timer (app.server.collector, issue 24): Python's own trigger is off
while it runs, young garbage cycles are still freed, what survives a young collection waits (no later
young collection scans it) for a full collection, which comes at its interval or once the resident
memory has grown enough (a minute after the last at the soonest), and the trigger is back on once it
stops. What exists when the server has built its app, before it reads its tables back, is frozen: no
full collection scans it while the server runs."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.db.migrate import upgrade
from app.server import collector, timebase
from app.server.app import create_app
from app.server.collector import run_collector
from app.server.settings import Settings
from tests.server.helpers import until
from tests.server.in_process import add_operator, bearer, open_room_table


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cycle collector frees it


def _collections() -> list[int]:
    return [generation["collections"] for generation in gc.get_stats()]


@pytest.fixture(autouse=True)
def _thawed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test leaves the process's objects as it found them: none frozen by the collector, and the
    tables' time as it was (a server of another test in this process may hold it in full collections)."""
    monkeypatch.setattr(timebase._StoodStill, "ns", timebase._StoodStill.ns)
    yield
    gc.unfreeze()


async def _stopped(task: asyncio.Task[None]) -> None:
    task.cancel()
    await asyncio.wait({task})


async def test_the_loop_collects_young_cycles_with_pythons_trigger_off() -> None:
    assert gc.isenabled()
    task = asyncio.create_task(run_collector(0.005, 3600, 0))
    try:
        await until(lambda: not gc.isenabled(), "the trigger switched off", timeout=30)
        before = _collections()
        node = _Node()
        gone = weakref.ref(node)
        del node
        await until(lambda: gone() is None, "the cycle freed", timeout=30)
        assert _collections()[2] == before[2]  # no full collection before its interval
    finally:
        await _stopped(task)
    assert gc.isenabled()


async def test_a_survivor_waits_for_a_full_collection() -> None:
    task = asyncio.create_task(run_collector(0.005, 3600, 0))
    try:
        node: _Node | None = _Node()
        gone = weakref.ref(node)
        young = _collections()[0]
        await until(lambda: _collections()[0] >= young + 2, "two young collections", timeout=30)
        node = None  # garbage now, but older: young collections no longer see it
        young = _collections()[0]
        await until(lambda: _collections()[0] >= young + 5, "five more young collections", timeout=30)
        assert gone() is not None
        assert collector.collect_full() >= 1
        assert gone() is None
    finally:
        await _stopped(task)


def test_a_full_collection_leaves_what_was_frozen_at_the_start() -> None:
    before: _Node | None = _Node()
    before_gone = weakref.ref(before)
    collector.freeze_startup()
    after: _Node | None = _Node()
    after_gone = weakref.ref(after)
    before = after = None  # both garbage now
    collector.collect_full()
    assert after_gone() is None
    assert before_gone() is not None  # not scanned: frozen at the start
    collector.thaw_startup()
    gc.collect()
    assert before_gone() is None


def test_the_server_freezes_its_app_and_not_the_tables_it_reads_back(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'frozen.db'}"
    upgrade(url)
    asyncio.run(add_operator(url))
    settings = Settings(database_url=url, token_secret="s" * 40)
    with TestClient(create_app(settings)) as first:
        table_id = open_room_table(first, bearer(first))
    app = create_app(settings)
    with TestClient(app):
        ctx = app.state.ctx
        tracked = {id(o) for o in gc.get_objects()}  # frozen objects are out of its sight
        assert id(ctx.tables[table_id]) in tracked  # read back after the freeze: a full collection's
        assert id(ctx) not in tracked  # built before: never scanned while the server runs
    assert id(ctx) in {id(o) for o in gc.get_objects()}  # thawed once the app stopped


async def test_a_full_collection_comes_at_its_interval() -> None:
    before = _collections()[2]
    task = asyncio.create_task(run_collector(0.005, 0.05, 0))
    try:
        await until(lambda: _collections()[2] > before, "a full collection", timeout=30)
    finally:
        await _stopped(task)
    assert gc.isenabled()


async def test_a_full_collection_comes_once_memory_has_grown(monkeypatch: pytest.MonkeyPatch) -> None:
    resident = iter(range(100, 100_000, 50))  # grows 50 MB at every reading
    monkeypatch.setattr(collector, "resident_mb", lambda: float(next(resident)))
    monkeypatch.setattr(collector, "_GROWTH_SPACING_S", 0.0)
    before = _collections()[2]
    task = asyncio.create_task(run_collector(0.001, 3600, 128))
    try:
        await until(lambda: _collections()[2] > before, "a full collection", timeout=30)
    finally:
        await _stopped(task)


async def test_no_full_collection_while_memory_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    readings = 0

    def steady() -> float:
        nonlocal readings
        readings += 1
        return 300.0

    monkeypatch.setattr(collector, "resident_mb", steady)
    monkeypatch.setattr(collector, "_GROWTH_SPACING_S", 0.0)
    before = _collections()[2]
    task = asyncio.create_task(run_collector(0.001, 3600, 128))
    try:
        await until(lambda: readings >= 4, "the memory read three times after the start", timeout=30)
        assert _collections()[2] == before
    finally:
        await _stopped(task)


async def test_growth_triggers_no_full_collection_within_a_minute_of_the_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resident = iter(range(100, 100_000, 500))  # grows 500 MB at every reading
    monkeypatch.setattr(collector, "resident_mb", lambda: float(next(resident)))
    before = _collections()
    task = asyncio.create_task(run_collector(0.001, 3600, 128))
    try:  # a hundred young collections: five times the memory's reading interval
        await until(lambda: _collections()[0] >= before[0] + 100, "a hundred young collections", timeout=30)
        assert _collections()[2] == before[2]
    finally:
        await _stopped(task)


class _Readings:
    """The resident memory grows ``step_mb`` at every reading; the load (sockets and tables) grows by one
    at each of the first ``growing`` readings, then stays. Records which reading each full collection
    followed (through `gc.callbacks`)."""

    def __init__(self, step_mb: int, growing: int) -> None:
        self.step_mb, self.growing = step_mb, growing
        self.memory_read = 0
        self.full_after: list[int] = []

    def resident_mb(self) -> float:
        self.memory_read += 1
        return 100.0 + self.step_mb * self.memory_read

    def load(self) -> int:
        return min(self.memory_read, self.growing)

    def on_collection(self, phase: str, info: dict[str, int]) -> None:
        # (Python's own trigger may still collect before the collector's first reading switches it off.)
        if phase == "start" and info["generation"] == 2 and self.memory_read > 0:
            self.full_after.append(self.memory_read)


@pytest.fixture
def readings(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Readings]:
    found = _Readings(step_mb=50, growing=10)
    monkeypatch.setattr(collector, "resident_mb", found.resident_mb)
    monkeypatch.setattr(collector, "_GROWTH_SPACING_S", 0.0)
    gc.callbacks.append(found.on_collection)
    yield found
    gc.callbacks.remove(found.on_collection)


async def test_growth_that_comes_with_more_sockets_and_tables_triggers_nothing(readings: _Readings) -> None:
    readings.growing = 1_000_000  # the load grows at every reading
    task = asyncio.create_task(run_collector(0.001, 3600, 128, readings.load))
    try:  # 50 MB at each of ten readings: 500 MB, all of it with more sockets and tables
        await until(lambda: readings.memory_read >= 11, "ten readings after the start", timeout=30)
        assert readings.full_after == []
    finally:
        await _stopped(task)


async def test_growth_at_a_steady_load_triggers_a_full_collection(readings: _Readings) -> None:
    task = asyncio.create_task(run_collector(0.001, 3600, 128, readings.load))
    try:
        await until(lambda: readings.full_after != [], "a full collection", timeout=30)
    finally:
        await _stopped(task)
    # Readings 1-10 came with more load (its memory); from the 11th on the load stays, and at 50 MB a
    # reading the 128 MB are passed at the third reading at that steady load.
    assert readings.full_after[0] == 10 + 3


class _Churn(_Readings):
    """Sockets come and go below the load's high: 10, 9, 10, 9, ... after the first reading's 10."""

    def load(self) -> int:
        return 10 - (self.memory_read + 1) % 2


async def test_growth_while_sockets_come_and_go_below_the_high_triggers_a_full_collection(
    readings: _Readings, monkeypatch: pytest.MonkeyPatch
) -> None:
    churn = _Churn(step_mb=50, growing=0)
    monkeypatch.setattr(collector, "resident_mb", churn.resident_mb)
    gc.callbacks.append(churn.on_collection)
    task = asyncio.create_task(run_collector(0.001, 3600, 128, churn.load))
    try:
        await until(lambda: churn.full_after != [], "a full collection", timeout=30)
    finally:
        await _stopped(task)
        gc.callbacks.remove(churn.on_collection)
    # The load rose (9 to 10) at every other reading but never past its first 10: all the growth counts,
    # and the 128 MB are passed at the fourth reading, as with no load at all.
    assert churn.full_after[0] == 4


def test_the_resident_memory_is_read_on_linux() -> None:
    resident = collector.resident_mb()
    assert resident is not None and 1 < resident < 100_000
