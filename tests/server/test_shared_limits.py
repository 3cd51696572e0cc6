"""The rate limits the workers share in the database (`accounts.ratelimit.SharedLimiter`): one upsert per
attempt, so the workers together never let more attempts through than one bucket holds."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from app.db.engine import make_engine
from app.db.models import RateBucket
from app.server.accounts.ratelimit import KeyedLimiter, SharedLimiter


@pytest.fixture
def database(migrated_database: str) -> str:
    return migrated_database


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_two_workers_racing_share_one_bucket(database: str) -> None:
    """Two workers (each its own engine and limiter) take from the same key at once: of 40 attempts
    exactly the burst (5) pass; another key and another limit's same key have their own buckets; and the
    bucket refills at the limit's rate (one a second here), after which one more attempt passes."""

    async def scenario() -> None:
        clock = Clock()
        engines = [make_engine(database), make_engine(database)]
        try:
            workers = [SharedLimiter(e, "auth-name", rate=1.0, burst=5, clock=clock) for e in engines]
            waits = await asyncio.gather(*(workers[i % 2].take("alice") for i in range(40)))
            assert sum(1 for w in waits if w == 0) == 5
            assert all(0 < w <= 1.0 for w in waits if w != 0)
            assert await workers[1].take("bob") == 0
            other_limit = SharedLimiter(engines[0], "auth-address", rate=1.0, burst=5, clock=clock)
            assert await other_limit.take("alice") == 0
            clock.now += 1.0
            assert await workers[1].take("alice") == 0
            assert await workers[0].take("alice") > 0
            async with engines[0].connect() as conn:
                keys = (await conn.execute(select(RateBucket.key))).scalars().all()
            assert len(keys) == 3 and not any("alice" in k or "bob" in k for k in keys)  # hashed
        finally:
            for engine in engines:
                await engine.dispose()

    asyncio.run(scenario())


def test_full_buckets_are_forgotten(database: str) -> None:
    """Keys not tried for as long as their bucket takes to fill are deleted with a later attempt, so the
    table holds only the keys tried lately."""

    async def scenario() -> None:
        clock = Clock()
        engine = make_engine(database)
        try:
            limiter = SharedLimiter(engine, "auth-address", rate=1.0, burst=5, clock=clock)
            for n in range(10):
                await limiter.take(f"10.0.0.{n}")
            clock.now += SharedLimiter.PURGE_EVERY + 5
            await limiter.take("10.0.1.1")
            async with engine.connect() as conn:
                assert await conn.scalar(select(func.count()).select_from(RateBucket)) == 1
        finally:
            await engine.dispose()

    asyncio.run(scenario())


def test_one_process_keeps_its_buckets_in_memory() -> None:
    async def scenario() -> None:
        clock = Clock()
        limiter = KeyedLimiter(rate=0.5, burst=2, clock=clock)
        assert [await limiter.take("a") for _ in range(2)] == [0.0, 0.0]
        assert await limiter.take("a") == pytest.approx(2.0)
        clock.now -= 100  # a clock that steps back refills nothing and breaks nothing
        assert await limiter.take("a") > 0

    asyncio.run(scenario())
