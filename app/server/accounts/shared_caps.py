"""Several workers (``serve --workers N``): the per-user caps counted for the whole server, not per process.

Two caps counted what one process saw: a user's table sockets (`max_connections_per_user`) and the seats
he holds at waiting tables (`max_waiting_seats_per_user`, issue 25 §1.5); with N workers a user had N times
the first, and two sits at once at two workers could both pass the second. Both are now counted in the
database, as the login limits already are (`accounts.ratelimit`): it is there in every deployment
(SQLite included), the workers already meet there, and each check is one or two small indexed statements
on a path that already reads the database (a socket's ticket and user, a sit's seat count). Not Redis: a
deployment would need it for this alone. With one process nothing here runs: its memory is the whole count.

Sockets (`SharedSockets`): each worker keeps one row per user it holds sockets of (``user_sockets``:
user, worker's boot id, count). On PostgreSQL a socket is admitted in one transaction that adds one to its
worker's row and sums the user's rows of the workers in their slots now; over the cap it is rolled back and
the socket refused. A user's admissions take turns, so the sum is exact and the cap never exceeded: the
transaction first takes a lock for that user (`pg_advisory_xact_lock`, held for the transaction's three
statements only; another user's admission does not wait). On SQLite it is one statement, committed as it
runs: the upsert of the worker's row only while the sum is under the cap (`_admit_if_under`); a write
statement takes the file's one write lock before it reads, so the workers' admissions take turns there.
A worker's rows are decremented as its sockets close; a decrement that could not be stored is owed and
stored again at the next tick, and the rows of a process no slot names any more (it crashed, or was
replaced) are neither counted nor kept.

Sits (`sit_lease`): a user's sit takes a lease row (``sit_leases``, one per user) by one conditional upsert
before counting his waiting seats and gives it back once the table has stored the seat (or refused it), so
that at most one sit of a user is between its count and its stored seat anywhere. A sit that finds the
lease taken waits for it; a lease whose worker died ends by itself after `SIT_LEASE_S`. On SQLite the
taking, the giving back and the housekeeping's deletes are each one statement committed as it runs, as
an admission is: none holds the file's write lock while the loop turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator

from sqlalchemy import Insert, Integer, String, Table, bindparam, delete, func, literal, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.engine import writing
from app.db.models import SitLease, UserSockets, WorkerSlot
from app.protocol.codes import ErrorCode
from app.server.errors import ApiError

log = logging.getLogger(__name__)

_SOCKETS: Table = UserSockets.__table__  # type: ignore[assignment]
_LEASES: Table = SitLease.__table__  # type: ignore[assignment]


# The user's sockets at the workers in their slots now. Statements built once (a statement built per
# call leaves its bound parameters in reference cycles for the collector; `sessions._USERS_STATE`).
_SUM = select(func.coalesce(func.sum(_SOCKETS.c.sockets), 0)).where(
    _SOCKETS.c.user_id == bindparam("user_id"), _SOCKETS.c.boot.in_(select(WorkerSlot.boot))
)
_USER_LOCK = select(func.pg_advisory_xact_lock(literal(0x55534B54), bindparam("user_id")))
_EMPTIED = delete(_SOCKETS).where(
    _SOCKETS.c.user_id == bindparam("user_id"), _SOCKETS.c.boot == bindparam("boot"), _SOCKETS.c.sockets <= 0
)
_GONE = delete(_SOCKETS).where(_SOCKETS.c.boot.not_in(select(WorkerSlot.boot)))
_MINE = delete(_SOCKETS).where(_SOCKETS.c.boot == bindparam("boot"))


def _add_statement(engine: AsyncEngine) -> Insert:
    """Add ``delta`` to a worker's count of a user's sockets (a new row starts at ``fresh``)."""
    dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
    statement: Insert = (
        dialect.insert(_SOCKETS)
        .values(user_id=bindparam("user_id"), boot=bindparam("boot"), sockets=bindparam("fresh"))
        .on_conflict_do_update(
            index_elements=[_SOCKETS.c.user_id, _SOCKETS.c.boot],
            set_={"sockets": _SOCKETS.c.sockets + bindparam("delta")},
        )
    )
    return statement


def _admit_if_under() -> Insert:
    """SQLite: one more of the user's sockets at this worker only if every worker's of his are fewer than
    ``cap``, in one statement (bound: ``user_id``, ``boot``, ``cap``), which returns the new count (no row:
    refused, nothing counted). A write statement takes SQLite's write lock before it reads, so the sum it
    reads is the one it adds to."""
    under = select(bindparam("user_id", type_=Integer), bindparam("boot", type_=String), literal(1)).where(
        _SUM.scalar_subquery() < bindparam("cap")
    )
    return (
        sqlite.insert(_SOCKETS)
        .from_select([_SOCKETS.c.user_id, _SOCKETS.c.boot, _SOCKETS.c.sockets], under)
        .on_conflict_do_update(
            index_elements=[_SOCKETS.c.user_id, _SOCKETS.c.boot], set_={"sockets": _SOCKETS.c.sockets + 1}
        )
        .returning(_SOCKETS.c.sockets)
    )


_ADMIT_IF_UNDER = _admit_if_under()


class SharedSockets:
    """The per-user socket cap for every worker at once (see the module's docstring)."""

    def __init__(
        self, engine: AsyncEngine, boot: str, cap: int, *, autocommit: AsyncEngine | None = None
    ) -> None:
        """``autocommit`` (SQLite: `ServerContext.autocommit`): an engine of the same database whose
        statements commit as they run; an admission is then one statement on it, not a transaction."""
        self.engine = engine
        self.boot = boot
        self.cap = cap
        self._add_statement = _add_statement(engine)
        # PostgreSQL: a user's admissions take turns (a lock for the transaction, per user). SQLite: one
        # statement each, committed on the connection's thread as it runs (no transaction open across the
        # loop's turns: the other workers' commits wait for SQLite's one write lock meanwhile, and under a
        # thousand sockets reconnecting at once their writers' batches waited past the outage threshold).
        self._lock = _USER_LOCK if engine.dialect.name == "postgresql" else None
        self._autocommit = autocommit
        self._owed: dict[int, int] = {}  # decrements not stored yet, by user
        self._background: set[asyncio.Task[None]] = set()

    async def admit(self, user_id: int) -> bool:
        """Count one more socket of the user here; False (and nothing counted) when every worker's
        sockets of his would then be more than the cap."""
        keys = {"user_id": user_id, "boot": self.boot}
        if self._autocommit is not None:
            async with self._autocommit.connect() as conn:
                counted = await conn.scalar(_ADMIT_IF_UNDER, {**keys, "cap": self.cap})
            return counted is not None
        async with self.engine.connect() as conn:
            transaction = await conn.begin()
            try:
                if self._lock is not None:
                    await conn.execute(self._lock, keys)
                await conn.execute(self._add_statement, {**keys, "fresh": 1, "delta": 1})
                total = int(await conn.scalar(_SUM, keys) or 0)
                if total > self.cap:
                    await transaction.rollback()  # nothing counted
                    return False
                await transaction.commit()
            except BaseException:
                if transaction.is_active:
                    await transaction.rollback()
                raise
        return True

    def release(self, user_id: int) -> None:
        """One socket of the user here closed (stored in the background; owed if the database is away)."""
        self._owed[user_id] = self._owed.get(user_id, 0) + 1
        task = asyncio.get_running_loop().create_task(self.settle(), name="user-sockets-release")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def settle(self) -> None:
        """Store the decrements owed (called as sockets close, and at every tick for those that failed)."""
        owed, self._owed = self._owed, {}
        for user_id, count in owed.items():
            try:
                await self._add(user_id, -count)
            except Exception:
                self._owed[user_id] = self._owed.get(user_id, 0) + count
                log.warning("a closed socket of user %s could not be uncounted yet", user_id, exc_info=True)

    async def _add(self, user_id: int, delta: int) -> None:
        keys = {"user_id": user_id, "boot": self.boot}
        # The emptied row's delete needs no transaction with the decrement (a socket admitted in between
        # leaves its row above zero).
        async with writing(self.engine, self._autocommit) as conn:
            await conn.execute(self._add_statement, {**keys, "fresh": max(delta, 0), "delta": delta})
            if delta < 0:
                await conn.execute(_EMPTIED, keys)

    async def forget_gone(self) -> None:
        """Housekeeping: the rows of processes no slot names any more (crashed or replaced)."""
        async with writing(self.engine, self._autocommit) as conn:
            await conn.execute(_GONE)

    async def close(self) -> None:
        """This process stops: its rows go with it (its sockets are closing)."""
        for task in list(self._background):
            with contextlib.suppress(Exception):
                await task
        with contextlib.suppress(Exception):
            async with writing(self.engine, self._autocommit) as conn:
                await conn.execute(_MINE, {"boot": self.boot})


def _take_statement(dialect: str) -> Insert:
    """The user's lease for this sit (bound: ``user_id``, ``holder``, ``until``, ``now``) if nobody holds
    it or its lease has expired; returns the holder after it (none: another sit holds it)."""
    insert = (postgresql if dialect == "postgresql" else sqlite).insert
    statement: Insert = (
        insert(_LEASES)
        .values(user_id=bindparam("user_id"), holder=bindparam("holder"), until=bindparam("until"))
        .on_conflict_do_update(
            index_elements=[_LEASES.c.user_id],
            set_={"holder": bindparam("holder"), "until": bindparam("until")},
            where=_LEASES.c.until < bindparam("now"),
        )
        .returning(_LEASES.c.holder)
    )
    return statement


_TAKE = {name: _take_statement(name) for name in ("postgresql", "sqlite")}
_GIVE_BACK = delete(_LEASES).where(
    _LEASES.c.user_id == bindparam("user_id"), _LEASES.c.holder == bindparam("holder")
)
SIT_LEASE_S = 45.0  # longer than a sit waits for its table (30 s): a live sit never loses its lease
_LEASE_WAIT_S = 40.0


@contextlib.asynccontextmanager
async def sit_lease(
    engine: AsyncEngine, user_id: int, *, autocommit: AsyncEngine | None = None
) -> AsyncIterator[None]:
    """Hold the user's sit lease for the block (several workers): taken by one upsert that succeeds only
    on a free or expired lease, given back after. Refused with ``conflict`` when another sit of the user
    holds it for longer than a sit can take. ``autocommit`` as for `SharedSockets`: on SQLite the taking
    and the giving back are one statement each, committed as they run (`db.engine.writing`)."""
    holder = secrets.token_hex(16)
    take = _TAKE["postgresql" if engine.dialect.name == "postgresql" else "sqlite"]
    deadline = time.monotonic() + _LEASE_WAIT_S
    pause = 0.01
    while True:
        now = time.time()
        async with writing(engine, autocommit) as conn:
            keys = {"user_id": user_id, "holder": holder, "until": now + SIT_LEASE_S, "now": now}
            taken = (await conn.execute(take, keys)).scalar_one_or_none()
        if taken == holder:
            break
        if time.monotonic() > deadline:
            raise ApiError(ErrorCode.CONFLICT, "another sit of yours is under way; try again")
        await asyncio.sleep(pause)  # another worker's sit of this user: it ends within a commit or two
        pause = min(pause * 2, 0.2)
    try:
        yield
    finally:
        async with writing(engine, autocommit) as conn:
            await conn.execute(_GIVE_BACK, {"user_id": user_id, "holder": holder})
