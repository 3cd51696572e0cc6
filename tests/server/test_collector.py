"""The cycle collector on the loop's timer (app.server.collector, issue 24): Python's own trigger is off
while it runs, garbage cycles are still freed, each generation is collected at its pace, and the trigger
is back on once it stops."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Callable

from app.server.collector import run_collector


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cycle collector frees it


def _collections() -> list[int]:
    return [generation["collections"] for generation in gc.get_stats()]


async def _until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(3000):  # 30 s at the most: the machine may be busy, the collector is not
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


async def test_the_loop_collects_cycles_with_pythons_trigger_off() -> None:
    assert gc.isenabled()
    task = asyncio.create_task(run_collector(0.005, 3, 3600))
    try:
        await _until(lambda: not gc.isenabled(), "the trigger switched off")
        before = _collections()
        node = _Node()
        gone = weakref.ref(node)
        del node
        await _until(lambda: gone() is None, "the cycle freed")
        now = _collections()
        await _until(lambda: _collections()[1] > now[1], "an older collection")
        assert _collections()[2] == before[2]  # no full collection before its interval
    finally:
        task.cancel()
        await asyncio.wait({task})
    assert gc.isenabled()


async def test_a_full_collection_comes_at_its_interval() -> None:
    before = _collections()[2]
    task = asyncio.create_task(run_collector(0.005, 1000, 0.05))
    try:
        await _until(lambda: _collections()[2] > before, "a full collection")
    finally:
        task.cancel()
        await asyncio.wait({task})
    assert gc.isenabled()
