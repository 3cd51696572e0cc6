"""Each server process's heartbeat row: one update a second (written with the group writer's batches)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncEngine

from app.server.storage.schema import STATE
from app.server.timebase import WallMs

HEARTBEAT_PREFIX = "heartbeat:"


async def read_heartbeats(engine: AsyncEngine) -> dict[str, WallMs]:
    """Every process's last heartbeat (wall ms) by process id."""
    async with engine.connect() as conn:
        rows = (await conn.execute(select(STATE.c.key, STATE.c.value).where(
            STATE.c.key.startswith(HEARTBEAT_PREFIX)))).all()  # fmt: skip
    beats: dict[str, WallMs] = {}
    for key, value in rows:
        with contextlib.suppress(ValueError):
            beats[key[len(HEARTBEAT_PREFIX) :]] = WallMs(int(value))
    return beats


async def forget_heartbeats(engine: AsyncEngine, boots: Iterable[str]) -> None:
    """Drop the rows of dead processes once their tables have been recovered."""
    keys = [HEARTBEAT_PREFIX + b for b in boots]
    if keys:
        async with engine.begin() as conn:
            await conn.execute(delete(STATE).where(STATE.c.key.in_(keys)))
