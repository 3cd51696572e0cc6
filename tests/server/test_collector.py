"""The cycle collector on the loop's timer (app.server.collector, issue 24): Python's own trigger is off
while it runs, garbage cycles are still freed, each generation is collected at its pace, and the trigger
is back on once it stops."""

from __future__ import annotations

import asyncio
import gc
import weakref

from app.server.collector import run_collector
from tests.server.helpers import until


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cycle collector frees it


def _collections() -> list[int]:
    return [generation["collections"] for generation in gc.get_stats()]


async def test_the_loop_collects_cycles_with_pythons_trigger_off() -> None:
    assert gc.isenabled()
    task = asyncio.create_task(run_collector(0.005, 3, 3600))
    try:
        await until(lambda: not gc.isenabled(), "the trigger switched off", timeout=30)
        before = _collections()
        node = _Node()
        gone = weakref.ref(node)
        del node
        await until(lambda: gone() is None, "the cycle freed", timeout=30)
        now = _collections()
        await until(lambda: _collections()[1] > now[1], "an older collection", timeout=30)
        assert _collections()[2] == before[2]  # no full collection before its interval
    finally:
        task.cancel()
        await asyncio.wait({task})
    assert gc.isenabled()


async def test_a_full_collection_comes_at_its_interval() -> None:
    before = _collections()[2]
    task = asyncio.create_task(run_collector(0.005, 1000, 0.05))
    try:
        await until(lambda: _collections()[2] > before, "a full collection", timeout=30)
    finally:
        task.cancel()
        await asyncio.wait({task})
    assert gc.isenabled()
