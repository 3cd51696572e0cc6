"""Python's cycle collector, kept from stopping the event loop for long (issue 24).

A collection stops the loop (and every clock's timeout) for as long as it scans. What it scans is the live
objects of the generations it collects, so the pause depends on how many objects are alive in them, not on
how many were made since the last collection. Python starts a young collection when the objects made
outnumber those freed by its threshold; but a table's step frees its old state (old objects) while making
the new one, so at a steady load that count barely moves: with a threshold of 10,000 at 1,000 paced tables
the young generation held about 100,000 live objects (every table's current state) when a collection
came, 40-50 ms every 2-3 s, and an older collection 120-260 ms (the acks' tail, timeouts up to 100 ms late).

So after start what exists is frozen out of the collector's reach (`freeze_startup`), Python's own trigger
is switched off, and the loop collects on a timer (`run_collector`): the young generation every
``young_s`` (what it holds is at most that long old: 1-4 ms at that load), the next every ``old_every``-th
time (what survived since: 7-12 ms), everything every ``full_s`` (it scans every object made since start
that is still alive: about half a second at 1,000 tables, hence rare; the transports' cycles, the one
kind of garbage that piled up between full collections, are broken on close, `http.transport.release`).
Scanning more often costs some CPU (what lives longer than ``young_s`` is scanned once or twice before it
dies, instead of seldom): about 5 % of a core at that load.

``young_s`` 0 leaves Python's trigger on with the given thresholds (`tune_collector`)."""

from __future__ import annotations

import asyncio
import gc
import time


def freeze_startup() -> None:
    """Moves every object alive now (the recovered tables, the app) out of the collector's reach."""
    gc.collect()
    gc.freeze()


def tune_collector(thresholds: str) -> None:
    """Python's own trigger with raised ``gen0,gen1,gen2`` thresholds (empty: Python's defaults)."""
    if thresholds.strip():
        gen0, gen1, gen2 = (int(part) for part in thresholds.split(","))
        gc.set_threshold(gen0, gen1, gen2)


async def run_collector(young_s: float, old_every: int, full_s: float) -> None:
    """Collects on the loop's timer until cancelled; Python's trigger is off meanwhile."""
    gc.disable()
    try:
        ticks = 0
        last_full = time.monotonic()
        while True:
            await asyncio.sleep(young_s)
            ticks += 1
            if time.monotonic() - last_full >= full_s:
                gc.collect(2)
                last_full = time.monotonic()
            elif ticks % old_every == 0:
                gc.collect(1)
            else:
                gc.collect(0)
    finally:
        gc.enable()
