"""Python's cycle collector, kept from stopping the event loop for long (issue 24).

A collection stops the loop (and every clock's timeout) for as long as it scans. What it scans is the live
objects of the generations it collects, so the pause depends on how many objects are alive in them, not on
how many were made since the last collection. Python starts a young collection when the objects made
outnumber those freed by its threshold; but a table's step frees its old state (old objects) while making
the new one, so at a steady load that count barely moves: with a threshold of 10,000 at 1,000 paced tables
the young generation held about 100,000 live objects (every table's current state) when a collection
came, 40-50 ms every 2-3 s, and an older collection 120-260 ms (the acks' tail, timeouts up to 100 ms late).

So once the app is built, before it opens a database connection or reads a table back, what exists (the
modules, the app: some 150,000 objects that live as long as it) is frozen out of the collector's reach
while it serves (`freeze_startup`), Python's own trigger is switched off, and the loop collects on a timer
(`run_collector`): the young generation every ``young_s`` (what it holds is at most that long old: 1-4 ms at
that load). What survives it moves to an older generation that no young collection scans again. There is
no middle collection: at 1,000 paced tables its collections found nothing at all (18 sampled, 2026-12-04)
yet were two fifths of the collector's CPU, 4-5 % of the loop's, and stopped the loop 3-5 ms every 250 ms
(30-40 ms once the loop fell behind); a table's state lives about a second, so each was scanned twice,
young and middle, before it died. A cycle that outlives one young collection is freed by the next full
collection (`collect_full`): every ``full_s`` seconds, or sooner once the process's resident memory has
grown by ``growth_mb`` since the last one (the garbage held is bounded by memory, not by time), a minute
after it at the soonest. Growth that comes while the process takes on more sockets and tables than it held
since the last one (``load`` at a new high) is theirs, not garbage's, and does not count: a full collection
at 1,000 tables found nothing and stopped the loop 0.8 s (2026-12-05), and without this one came a minute
after every start or restart, as the tables reconnected. Garbage that piles up while the load climbs to
new highs waits for the interval; sockets that come and go below the high do not hide it. A full
collection scans every object made since the start (0.2 s at 1,000 tables' idle sockets, about twice
that under play; hence rare), not those frozen at the start: scanning them too took a quarter to a third
of its time, for nothing. The
transports' cycles, the one kind of garbage that piled up between full collections, are broken on close
(`http.transport.release`).

``young_s`` 0 leaves Python's trigger on with the given thresholds (`tune_collector`)."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

# How often (in young collections) the resident memory is read for the growth trigger: a file read.
_RSS_EVERY = 20
# Growth triggers no full collection sooner than this after the last one: a burst of real growth (a
# restart, a thousand tables reconnecting) would otherwise stop the loop for each step of it.
_GROWTH_SPACING_S = 60.0


def freeze_startup() -> None:
    """Moves every object alive now out of the collector's reach until `thaw_startup`. Called once the app
    is built, before it opens a database connection or reads a table back, so what it freezes lives as
    long as the app (a table or a connection frozen here would keep its garbage cycles until the app
    stops). It acts on the whole process: two apps in one process (the tests) freeze and thaw each other's
    objects too, which only changes what a full collection scans meanwhile."""
    gc.collect()
    gc.freeze()


def thaw_startup() -> None:
    """Gives what `freeze_startup` froze back to the collector (the app stops: tests run many in one
    process)."""
    gc.unfreeze()


def tune_collector(thresholds: str) -> None:
    """Python's own trigger with raised ``gen0,gen1,gen2`` thresholds (empty: Python's defaults)."""
    if thresholds.strip():
        gen0, gen1, gen2 = (int(part) for part in thresholds.split(","))
        gc.set_threshold(gen0, gen1, gen2)


def resident_mb() -> float | None:
    """The process's resident memory (None where ``/proc`` does not tell it)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def collect_full() -> int:
    """A full collection of every object made since the start (not those frozen then). Returns how many
    unreachable objects it found."""
    return gc.collect(2)


def _no_load() -> int:
    return 0


async def run_collector(
    young_s: float, full_s: float, growth_mb: float, load: Callable[[], int] = _no_load
) -> None:
    """Collects on the loop's timer until cancelled; Python's trigger is off meanwhile (``growth_mb`` 0:
    no growth trigger, only the interval). ``load``: how many sockets and tables the process holds now
    (by default none, so all growth counts)."""
    gc.disable()
    try:
        ticks = 0
        last_full = time.monotonic()
        baseline = resident_mb()
        # The most sockets and tables held since the last full collection: memory grown while that rose is
        # theirs; sockets that come and go under it bring none that the last high did not.
        last_mb, peak = baseline, load()
        while True:
            await asyncio.sleep(young_s)
            ticks += 1
            gc.collect(0)  # the survivors move to the next generation: no young collection scans them again
            since_full = time.monotonic() - last_full
            overdue = since_full >= full_s
            grown = False
            if not overdue and growth_mb > 0 and ticks % _RSS_EVERY == 0:
                now_mb, now_load = resident_mb(), load()
                higher = now_load > peak
                if higher and now_mb is not None and last_mb is not None and baseline is not None:
                    baseline += max(0.0, now_mb - last_mb)  # not garbage: it came with a new high
                last_mb = now_mb
                if higher:
                    peak = now_load
                grown = (
                    since_full >= _GROWTH_SPACING_S
                    and now_mb is not None
                    and baseline is not None
                    and now_mb - baseline >= growth_mb
                )
            if overdue or grown:
                started = time.monotonic_ns()
                found = collect_full()
                took = time.monotonic_ns() - started
                log.info(
                    "full collection (%s): %d unreachable objects, %.0f ms",
                    "memory grew" if grown else "interval",
                    found,
                    took / 1e6,
                )
                last_full = time.monotonic()
                baseline = last_mb = resident_mb()
                peak = load()
    finally:
        # Python's own collector takes over again (the garbage held in the older generations is freed at
        # its next full collection), without a full collection's pause here.
        gc.enable()
