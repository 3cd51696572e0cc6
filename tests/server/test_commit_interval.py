"""Group commit under load (issue 24): after a batch of several tables' steps, the next batch begins only
``interval_ms`` after that one began, so the steps that come meanwhile share one commit (on SQLite a commit
costs its fsync and pages whatever it stores); a step that comes alone is not held."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.db.engine import make_writer_engine
from app.db.migrate import upgrade
from app.server.storage import GroupWriter
from app.server.storage.step_write import StepWrite


async def _writer(tmp_path: Path, interval_ms: float) -> GroupWriter:
    url = f"sqlite+aiosqlite:///{tmp_path / 'preferans.db'}"
    await asyncio.to_thread(upgrade, url)
    writer = GroupWriter(make_writer_engine(url), window_ms=0.0, interval_ms=interval_ms, heartbeat_s=3600.0)
    await writer.start()
    return writer


async def _two_together(writer: GroupWriter) -> None:
    """Two steps queued in one turn of the loop: one batch of several tables' steps."""
    together = [asyncio.create_task(writer.commit(t, None, StepWrite())) for t in (1, 2)]
    async with asyncio.timeout(60):
        await asyncio.gather(*together)


async def test_after_a_batch_of_several_steps_the_next_waits_for_the_interval(tmp_path: Path) -> None:
    writer = await _writer(tmp_path, interval_ms=5_000.0)
    try:
        await _two_together(writer)
        assert (writer.batches, writer.committed) == (1, 2)

        # Three more, each sent once the one before it is queued: one batch, begun an interval after the
        # first (without the interval, or after a batch of one step, each would be a batch of its own).
        commits = []
        for table_id in (1, 2, 3):
            commits.append(asyncio.create_task(writer.commit(table_id, None, StepWrite())))
            await asyncio.sleep(0.01)
        async with asyncio.timeout(60):
            await asyncio.gather(*commits)
        assert (writer.batches, writer.committed) == (2, 5)
    finally:
        await writer.close()
        await writer.engine.dispose()


async def test_a_step_that_comes_alone_is_not_held(tmp_path: Path) -> None:
    writer = await _writer(tmp_path, interval_ms=60_000.0)  # (close() does not wait it out)
    try:
        async with asyncio.timeout(30):  # held for the interval, three steps would take three minutes
            for table_id in (1, 2, 3):
                await writer.commit(table_id, None, StepWrite())
        assert (writer.batches, writer.committed) == (3, 3)
    finally:
        await writer.close()
        await writer.engine.dispose()


async def test_closing_does_not_wait_out_the_interval(tmp_path: Path) -> None:
    writer = await _writer(tmp_path, interval_ms=600_000.0)
    try:
        await _two_together(writer)
        late = asyncio.create_task(writer.commit(3, None, StepWrite()))  # held for ten minutes...
        await asyncio.sleep(0.05)
        assert not late.done()
    finally:
        async with asyncio.timeout(60):  # ...unless the writer closes: then it is stored at once
            await writer.close()
        await writer.engine.dispose()
    await late
    assert (writer.batches, writer.committed) == (2, 3)
