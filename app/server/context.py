"""What every part of the running server shares: settings, the database, the token secret, the tables."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.auth.passwords import PasswordPool
from app.server.ratelimit import KeyedLimiter
from app.server.sessions import TicketBook
from app.server.settings import Settings

if TYPE_CHECKING:
    from app.server.actor import TableActor
    from app.server.connection import Connection


@dataclass(slots=True)
class ServerContext:
    settings: Settings
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    token_secret: str
    solver_executor: Executor
    passwords: PasswordPool
    auth_by_address: KeyedLimiter
    auth_by_name: KeyedLimiter
    tickets: TicketBook
    tables: dict[int, TableActor] = field(default_factory=dict)
    # Every live websocket by user id: a revoked or disabled user's sockets are closed through it.
    user_connections: dict[int, set[Connection]] = field(default_factory=dict)
    table_connections: dict[int, set[Connection]] = field(default_factory=dict)
