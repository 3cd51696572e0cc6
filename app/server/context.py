"""What every part of the running server shares: settings, the database, the token secret, the tables."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.server.persistence import GroupWriter
from app.server.settings import Settings

if TYPE_CHECKING:
    from app.server.actor import TableActor


@dataclass(slots=True)
class ServerContext:
    settings: Settings
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    token_secret: str
    solver_executor: Executor
    writer: GroupWriter
    # The last heartbeat (wall ms) of every earlier process, read at start: the bound of what a crash
    # charges to the seat on move (`app.server.persistence.charge_after_crash`).
    heartbeats: dict[str, int] = field(default_factory=dict)
    tables: dict[int, TableActor] = field(default_factory=dict)
