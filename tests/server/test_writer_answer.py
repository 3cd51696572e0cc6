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

from app.db.engine import make_writer_engine
from app.db.migrate import upgrade
from app.server.storage import GroupWriter
from app.server.storage.step_write import StepWrite


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path / 'preferans.db'}"
    upgrade(url)
    return url


async def test_a_committed_batch_resumes_its_table_on_the_loops_next_turn(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = asyncio.get_running_loop()
    turns = -1
    counting = True

    def tick() -> None:
        nonlocal turns
        turns += 1
        if counting:
            loop.call_soon(tick)

    def start_counting() -> None:
        nonlocal turns
        turns = 0
        loop.call_soon(tick)

    real = loop.call_soon_threadsafe

    def from_the_writer(callback: Callable[..., Any], *args: Any, context: Any = None) -> Any:
        if not threading.current_thread().name.startswith("sqlite-writer"):
            return real(callback, *args, context=context)

        def counted(*given: Any) -> None:  # the count starts on the turn that hears the thread
            start_counting()
            callback(*given)

        return real(counted, *args, context=context)

    monkeypatch.setattr(loop, "call_soon_threadsafe", from_the_writer)
    writer = GroupWriter(make_writer_engine(url), window_ms=0.0, heartbeat_s=3600.0)
    await writer.start()
    try:
        await writer.commit(1, None, StepWrite(table={"status": "waiting"}))
        resumed_after = turns
        counting = False
        assert writer.batches == 1 and writer.failing_since is None
        assert resumed_after == 1, f"the table resumed {resumed_after} turns after the commit was heard"
    finally:
        counting = False
        await writer.close()
        await writer.engine.dispose()
