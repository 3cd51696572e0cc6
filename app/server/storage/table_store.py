"""`TableStore`: the storage one table actor uses, over the process's group writer and sessions."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.clock import ReserveClock
from app.server.storage.clock_rows import clock_record
from app.server.storage.group_writer import GroupWriter
from app.server.storage.reading import StoredTable, next_award_revision, read_table
from app.server.storage.step_write import StepWrite
from app.server.timebase import MonoMs


class TableStore:
    """What a table stores and reads back (it satisfies `app.server.tables.actor.StepStore`)."""

    def __init__(self, writer: GroupWriter, sessions: async_sessionmaker[AsyncSession]) -> None:
        self.writer = writer
        self.sessions = sessions

    @property
    def failing_since(self) -> MonoMs | None:
        return self.writer.failing_since

    async def commit(self, table_id: int, version: int | None, write: StepWrite) -> None:
        await self.writer.commit(table_id, version, write)

    async def stored_version(self, table_id: int) -> int | None:
        return await self.writer.stored_version(table_id)

    async def read(self, table_id: int) -> StoredTable | None:
        return await read_table(self.sessions, table_id)

    async def next_award_revision(self, deal_id: int) -> int:
        return await next_award_revision(self.sessions, deal_id)

    def clock_record(self, clock: ReserveClock, now: MonoMs) -> dict[str, Any]:
        return clock_record(clock, self.writer.boot, now, self.writer.time.wall())
