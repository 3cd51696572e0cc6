"""The supervisor's watch for hung workers (alive, not exited: stopped, or its event loop stuck).

A hung worker keeps its process, its listeners and its database lock if it held one: the kernel goes on
handing it new connections on the shared public port, which wait for it. The other workers take its
tables once its heartbeat is older than the lease (`cluster.ownership`), but only the supervisor can
free the public port's share it holds. So, about once a second, the supervisor reads each slot's worker
(``workers`` row) and that worker's heartbeat; a worker whose heartbeat is older than the lease and whose
own port does not answer ``/healthz`` either is hung: it is killed (SIGKILL, which a stopped process
takes too) and started again in its slot, where it takes whatever tables of its predecessor are left.

Both signs are needed. A heartbeat alone goes stale for every worker while the database refuses writes
(their event loops run: they answer the probe and are left alone); a probe alone fails for a worker that
is merely busy for a moment (its heartbeat is still fresh).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx
from sqlalchemy import select

from app.db.engine import make_engine
from app.db.models import WorkerSlot
from app.server.storage import read_heartbeats

log = logging.getLogger("app.supervisor")

CHECK_INTERVAL = 1.0
# How long a worker with a stale heartbeat has to answer its own /healthz: the probe comes only after a
# whole lease without a beat, so an event loop that cannot answer a trivial request in this long is hung.
PROBE_TIMEOUT = 5.0
# A worker's ``workers`` row is its own once it was written after the worker was started (same host's clock).
_ROW_SLACK = 1.0


@dataclass(frozen=True)
class Silent:
    """A slot whose worker's heartbeat is older than the lease."""

    slot: int
    boot: str
    age: float  # seconds since its last heartbeat


class HangWatch:
    """Reads the workers' heartbeats for the (synchronous) supervisor, on a private event loop."""

    def __init__(self, database_url: str, lease: float) -> None:
        self.lease = lease
        self._loop = asyncio.new_event_loop()
        self._engine = make_engine(database_url, pool_size=1, max_overflow=0)
        self._failing = False

    def silent(self, started: dict[int, float]) -> list[Silent]:
        """The slots (of ``started``: slot → wall time its process was started) whose current worker has
        registered and has not beaten for longer than the lease. Nothing when the database cannot be read
        (the workers' beats cannot be judged then)."""
        try:
            rows, beats = self._loop.run_until_complete(self._read())
        except Exception as exc:
            if not self._failing:
                log.warning("cannot read the workers' heartbeats: %s", exc)
            self._failing = True
            return []
        self._failing = False
        now = time.time()
        out = []
        for slot, boot, registered_at in rows:
            if slot not in started or registered_at < started[slot] - _ROW_SLACK:
                continue  # not this process's row yet (it is starting)
            beat = beats.get(boot)
            if beat is not None and now - beat / 1000 > self.lease:
                out.append(Silent(slot, boot, now - beat / 1000))
        return out

    def hung(self, started: dict[int, float], answers: Callable[[int], bool]) -> list[Silent]:
        """The silent slots (`silent`) whose worker does not answer either (``answers(slot)``: its own
        port's probe): those to replace."""
        return [silent for silent in self.silent(started) if not answers(silent.slot)]

    async def _read(self) -> tuple[list[tuple[int, str, float]], dict[str, int]]:
        async with self._engine.connect() as conn:
            rows = (await conn.execute(select(WorkerSlot.slot, WorkerSlot.boot, WorkerSlot.started_at))).all()
        beats = await read_heartbeats(self._engine)
        return [(slot, boot, started_at) for slot, boot, started_at in rows], dict(beats)

    def close(self) -> None:
        self._loop.run_until_complete(self._engine.dispose())
        # A driver's thread may still hand its last answer (a failed connect's) to the loop: let it land.
        self._loop.run_until_complete(asyncio.sleep(0.1))
        self._loop.close()


def answers(host: str, port: int, timeout: float = PROBE_TIMEOUT) -> bool:
    """Whether the worker's own port answers ``/healthz`` within ``timeout``."""
    netloc = f"[{host}]" if ":" in host else host
    try:
        return httpx.get(f"http://{netloc}:{port}/healthz", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False
