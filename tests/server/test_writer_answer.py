"""How soon a committed SQLite batch reaches its tables (issue 24).

Under load every turn of the event loop runs thousands of callbacks, so each hop between the writer's
thread and a table's task is milliseconds of the ack. The thread's answer is one callback that tells every
table of the batch at once: the tables' tasks run on the loop's next turn, not two turns later behind the
executor's future and the writer's own task."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from app.db.engine import make_writer_engine
from app.db.migrate import upgrade
from app.server.storage import GroupWriter, group_writer
from app.server.storage.batch import Fence, run_sync
from app.server.storage.step_write import StepWrite
from tests.server.helpers import until


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path / 'preferans.db'}"
    upgrade(url)
    return url


class TurnCounter:
    """Counts the loop's turns from the one that first hears the writer's thread (its callback's own)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch) -> None:
        self.loop = loop
        self.turns: int | None = None
        self.counting = True
        real = loop.call_soon_threadsafe

        def from_the_writer(callback: Callable[..., Any], *args: Any, context: Any = None) -> Any:
            if not threading.current_thread().name.startswith("sqlite-writer"):
                return real(callback, *args, context=context)

            def counted(*given: Any) -> None:
                if self.turns is None:
                    self.turns = 0
                    loop.call_soon(self._tick)
                callback(*given)

            return real(counted, *args, context=context)

        monkeypatch.setattr(loop, "call_soon_threadsafe", from_the_writer)

    def _tick(self) -> None:
        assert self.turns is not None
        self.turns += 1
        if self.counting:
            self.loop.call_soon(self._tick)


async def test_a_committed_batch_resumes_its_table_on_the_loops_next_turn(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = TurnCounter(asyncio.get_running_loop(), monkeypatch)
    writer = GroupWriter(make_writer_engine(url), window_ms=0.0, heartbeat_s=3600.0)
    await writer.start()
    try:
        await writer.commit(1, None, StepWrite(table={"status": "waiting"}))
        resumed_after = counter.turns
        assert writer.batches == 1 and writer.failing_since is None
        assert resumed_after == 1, f"the table resumed {resumed_after} turns after the commit was heard"
    finally:
        counter.counting = False
        await writer.close()
        await writer.engine.dispose()


async def test_the_steps_that_waited_go_to_the_thread_on_the_turn_the_last_batch_is_heard(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Steps that came while a batch was on the thread are the next batch, handed to the thread by that
    batch's answer itself, not a turn later by the writer's task."""
    loop = asyncio.get_running_loop()
    counter = TurnCounter(loop, monkeypatch)
    first_started, release = threading.Event(), threading.Event()
    real_run = run_sync

    def held_first(engine: Engine, fence: Fence) -> None:
        if not first_started.is_set():
            first_started.set()
            assert release.wait(30)
        real_run(engine, fence)

    monkeypatch.setattr(group_writer, "run_sync", held_first)
    writer = GroupWriter(make_writer_engine(url), window_ms=0.0, heartbeat_s=3600.0)
    await writer.start()
    thread = writer._batch_thread
    assert thread is not None
    submitted: list[int | None] = []
    real_submit = thread.submit

    def recorded(work: Callable[[], None]) -> Any:
        submitted.append(counter.turns)
        return real_submit(work)

    monkeypatch.setattr(thread, "submit", recorded)
    try:
        first = asyncio.create_task(writer.commit(1, None, StepWrite(table={"status": "waiting"})))
        await until(first_started.is_set, "the first batch is on the thread")
        waited = [
            asyncio.create_task(writer.commit(table, None, StepWrite(table={"status": "waiting"})))
            for table in (2, 3)
        ]
        await until(lambda: writer.waiting == 2, "the next steps wait for the thread")
        release.set()
        await asyncio.gather(first, *waited)
        assert writer.batches == 2 and writer.committed == 3 and writer.failing_since is None
        # The first batch before any answer; the two that waited on the turn its answer was heard.
        assert submitted == [None, 0], submitted
    finally:
        counter.counting = False
        release.set()
        await writer.close()
        await writer.engine.dispose()
