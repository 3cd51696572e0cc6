"""Token buckets by key (a client address, an account name) for the REST calls that cost a password hash.

One process keeps its buckets in memory (`KeyedLimiter`). Several workers (``serve --workers N``) share
them in the database (`SharedLimiter`, table ``rate_buckets``): an attempt counted at one worker is
counted at all, so N workers do not give N times the attempts. The database, not Redis: it is there in
every deployment (SQLite alone included), the workers already meet there (ownership, heartbeats, used
tickets), and an attempt that may cost a password hash (tens of milliseconds of a thread) costs a one-
statement round trip more at most.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from sqlalchemy import Table, case, delete, literal
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.models import RateBucket


class Limiter(Protocol):
    async def take(self, key: str) -> float:
        """0 when an attempt is allowed (and counted), else the seconds until the next one is."""
        ...


class KeyedLimiter:
    """``rate`` attempts a second per key, bursts up to ``burst``; at most ``max_keys`` keys remembered
    (the least recently used is forgotten first, so memory stays bounded whatever the keys)."""

    def __init__(
        self, rate: float, burst: float, max_keys: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    async def take(self, key: str) -> float:
        now = self.clock()
        tokens, stamp = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + max(0.0, now - stamp) * self.rate)
        allowed = tokens >= 1.0
        if allowed:
            tokens -= 1.0
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return 0.0 if allowed else (1.0 - tokens) / self.rate


class SharedLimiter:
    """The same buckets in the database, for every worker: each attempt is one upsert that refills the
    bucket for the time since its last attempt, takes a token if there is one, and says whether it did
    (atomic on SQLite and PostgreSQL alike, so two workers never both take the last token). Buckets full
    again are deleted now and then, so the table holds only the keys tried lately. Wall clock: the workers
    may be on several hosts (their clocks in step, as the clocks' charging already needs)."""

    PURGE_EVERY = 60.0  # seconds between deletions of full buckets

    def __init__(
        self,
        engine: AsyncEngine,
        name: str,
        rate: float,
        burst: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.name = name
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._purged = 0.0

    def _row_key(self, key: str) -> str:
        return hashlib.sha256(f"{self.name}\0{key}".encode()).hexdigest()

    async def take(self, key: str) -> float:
        now = self.clock()
        table: Table = RateBucket.__table__  # type: ignore[assignment]
        elapsed = case((literal(now) > table.c.stamp, literal(now) - table.c.stamp), else_=0.0)
        filled = table.c.tokens + elapsed * self.rate
        refilled = case((filled > self.burst, literal(self.burst)), else_=filled)
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        statement = (
            dialect.insert(table)
            .values(key=self._row_key(key), tokens=self.burst - 1.0, stamp=now, allowed=True)
            .on_conflict_do_update(
                index_elements=[table.c.key],
                set_={
                    "tokens": case((refilled >= 1.0, refilled - 1.0), else_=refilled),
                    "stamp": case((literal(now) > table.c.stamp, literal(now)), else_=table.c.stamp),
                    "allowed": refilled >= 1.0,
                },
            )
            .returning(table.c.tokens, table.c.allowed)
        )
        async with self.engine.begin() as conn:
            tokens, allowed = (await conn.execute(statement)).one()
            if now - self._purged > self.PURGE_EVERY:
                self._purged = now
                # Full again by now: forgetting such a bucket changes nothing.
                await conn.execute(delete(table).where(table.c.stamp < now - self.burst / self.rate))
        return 0.0 if allowed else (1.0 - float(tokens)) / self.rate


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` header value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))
