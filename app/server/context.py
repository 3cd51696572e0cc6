"""What every part of the running server shares: settings, the database, the token secret, the tables."""

from __future__ import annotations

from concurrent.futures import Executor
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Types only: every part of the server takes the context, so the context imports none of them when
    # it runs (it is the bag the composition root, `app.server.app`, fills).
    from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

    from app.auth.passwords import PasswordPool
    from app.server.accounts.chat import ChatLimits
    from app.server.accounts.ratelimit import Limiter
    from app.server.accounts.sessions import SignedTickets, TicketBook
    from app.server.accounts.shared_caps import SharedSockets
    from app.server.analysis import AnalysisPool
    from app.server.cluster.ownership import Cluster
    from app.server.cluster.peers import Peers
    from app.server.connections.connection import Connection
    from app.server.http.shared_answers import SharedAnswers
    from app.server.settings import Settings
    from app.server.storage import GroupWriter
    from app.server.tables.actor import TableActor
    from app.server.timebase import WallMs


@dataclass(slots=True)
class ServerContext:
    settings: Settings
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    token_secret: str
    solver_executor: Executor
    passwords: PasswordPool
    # Per process in memory, or shared by the workers in the database (`accounts.ratelimit`).
    auth_by_address: Limiter
    auth_by_name: Limiter
    tickets: TicketBook
    writer: GroupWriter
    # The lobby's answers that are the same for every viewer, built once and shared for a moment.
    answers: SharedAnswers
    # The last heartbeat (wall ms) of every earlier process, read at start: the bound of what a crash
    # charges to the seat on move (`app.server.storage.charge_after_crash`).
    heartbeats: dict[str, WallMs] = field(default_factory=dict)
    tables: dict[int, TableActor] = field(default_factory=dict)
    # Every live websocket by user id: a revoked or disabled user's sockets are closed through it.
    user_connections: dict[int, set[Connection]] = field(default_factory=dict)
    table_connections: dict[int, set[Connection]] = field(default_factory=dict)
    # The users whose sockets opened since `accounts.sessions.watch_sessions` last rechecked.
    fresh_users: set[int] = field(default_factory=set)
    # Several worker processes (`serve --workers N`): which tables this one owns; None with one process.
    cluster: Cluster | None = None
    # ... and how it asks the other workers for their tables' live details and their metrics.
    peers: Peers | None = None
    # Their tickets are signed so that any worker can redeem one (`accounts.sessions.SignedTickets`).
    signed_tickets: SignedTickets | None = None
    # ... and a user's sockets are counted for the cap at every worker (`accounts.shared_caps`).
    shared_sockets: SharedSockets | None = None
    # Several workers on SQLite: an engine whose statements commit as they run, for the one-statement
    # writes of a socket's handshake, ownership, a sit's lease and the tick's housekeeping. SQLite has one
    # write lock for the file, and a transaction left open across the loop's turns held every worker's
    # commits behind it.
    autocommit: AsyncEngine | None = None
    # A user's askings to join a table as its fourth (§7.7), per table: each one takes the table's one
    # proposal and is shown to its players, so a stranger may not keep asking (set at start).
    join_asks: Limiter | None = None
    # The solver's analyses of finished deals (issue 21 §2): worker processes, started on first use.
    analysis: AnalysisPool | None = None
    # The table chat's message buckets (per user, per table), made on first use (`accounts.chat`).
    chat_limits: ChatLimits | None = None

    def open_sockets(self) -> int:
        """The websockets open at this process (every one has its user)."""
        return sum(len(conns) for conns in self.user_connections.values())


@dataclass(frozen=True, slots=True)
class Pool:
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]


# Set for the workers' ownership tick (its task and what it awaits): its own small pool, so that taking
# over a dead worker's tables never waits behind players' requests for a connection (issue 26 §1.2).
OWN_POOL: ContextVar[Pool | None] = ContextVar("own_pool", default=None)


def pool_of(ctx: ServerContext) -> Pool:
    """The pool the running task may use: the background work's own (`OWN_POOL`), else the one of the
    players' requests."""
    return OWN_POOL.get() or Pool(ctx.engine, ctx.sessions)
