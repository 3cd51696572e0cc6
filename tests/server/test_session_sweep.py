"""Issue 24: the recheck of live sockets' users (`sessions.watch_sessions`) reads the accounts' revision, and
reads users only when it changed (every connected user) or for the sockets opened since the last recheck;
a revocation made anywhere (`revoke_tokens`: logout, a password reset, an account disabled) changes it in
its own transaction. Revocations by another process are checked end to end in test_sessions (the command
line disabling a user, well within the minute after which every user is read anyway)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any, cast

import pytest
from sqlalchemy import delete, event
from sqlalchemy.ext.asyncio import AsyncEngine

from app.auth.users import ACCOUNTS_REVISION, revoke_tokens, set_disabled
from app.db.engine import make_engine, make_sessionmaker
from app.db.models import ServerState, User
from app.protocol.codes import CloseCode
from app.server.accounts import sessions as sessions_module
from app.server.accounts.sessions import _sweep, track, watch_sessions
from app.server.connections.connection import Connection
from app.server.context import ServerContext


@pytest.fixture
async def engine(migrated_database: str) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(migrated_database)
    yield engine
    await engine.dispose()


class _Socket:
    """What the recheck uses of a `Connection`: its user, its token's generation, and closing it."""

    def __init__(self, user_id: int, generation: int) -> None:
        self.user_id = user_id
        self.generation = generation
        self.closed_with: int | None = None

    def send(self, message: Any) -> None:
        return None

    def close(self, code: int) -> None:
        self.closed_with = code


class _Reads:
    """The users named by each read of the users' token generations alone (the recheck's; not the ORM's reads
    of whole users) that the engine runs."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.named: list[set[int]] = []
        event.listen(engine.sync_engine, "before_cursor_execute", self._seen)

    def _seen(self, conn: Any, cursor: Any, statement: str, parameters: Any, *args: Any) -> None:
        if "token_generation" in statement and "name_key" not in statement and "UPDATE" not in statement:
            values = parameters.values() if isinstance(parameters, dict) else parameters
            self.named.append({v for v in values if isinstance(v, int)})

    def take(self) -> list[set[int]]:
        named, self.named = self.named, []
        return named


async def test_users_are_read_again_only_after_a_revocation_or_for_new_sockets(engine: AsyncEngine) -> None:
    sessions = make_sessionmaker(engine)
    async with sessions() as session:
        users = [User(name=n, name_key=n, password_hash="x", role="player", created_at=0.0) for n in "abc"]
        session.add_all(users)
        await session.commit()
        a, b, c = (user.id for user in users)
    ctx = cast(ServerContext, SimpleNamespace(engine=engine, user_connections={}, table_connections={},
                                              fresh_users=set()))  # fmt: skip
    sockets = {a: _Socket(a, 0), b: _Socket(b, 0), c: _Socket(c, 0)}
    for socket in sockets.values():
        track(ctx, cast(Connection, socket), 1)
    reads = _Reads(engine)

    # The first recheck knows no revision yet: every user.
    seen = await _sweep(ctx, None, full=False)
    assert seen == "initial"  # the migration's row
    assert reads.take() == [{a, b, c}]
    # Nothing changed, no socket opened: the revision alone.
    assert await _sweep(ctx, seen, full=False) == seen
    assert reads.take() == []

    # A revocation (a logout, a password reset) changes the revision in its own transaction.
    async with sessions() as session:
        await revoke_tokens(session, await session.get_one(User, a))
        await session.commit()
    revised = await _sweep(ctx, seen, full=False)
    assert revised not in (None, seen)
    assert reads.take() == [{a, b, c}]
    assert sockets[a].closed_with == CloseCode.UNAUTHORIZED
    assert sockets[b].closed_with is None and sockets[c].closed_with is None

    # A socket whose handshake read its user's account just before the user was disabled, opened after
    # the recheck that saw that revision: the next recheck reads that user alone, and closes it.
    async with sessions() as session:
        await set_disabled(session, "b", True)
        await session.commit()
    disabled = await _sweep(ctx, revised, full=False)
    assert reads.take() == [{a, b, c}] and sockets[b].closed_with == CloseCode.UNAUTHORIZED
    late = _Socket(b, 0)
    track(ctx, cast(Connection, late), 1)
    assert await _sweep(ctx, disabled, full=False) == disabled
    assert reads.take() == [{b}]
    assert late.closed_with == CloseCode.UNAUTHORIZED and sockets[c].closed_with is None
    # Enabling closes nothing, so it leaves the revision as it is.
    async with sessions() as session:
        await set_disabled(session, "b", False)
        await session.commit()
    assert await _sweep(ctx, disabled, full=False) == disabled
    assert reads.take() == []

    # Every so often every user, changed or not (`full_every`).
    assert await _sweep(ctx, disabled, full=True) == disabled
    assert reads.take() == [set(ctx.user_connections)]

    # A database without the row (made without the migrations): every user at every recheck.
    async with engine.begin() as conn:
        await conn.execute(delete(ServerState).where(ServerState.key == ACCOUNTS_REVISION))
    assert await _sweep(ctx, disabled, full=False) is None
    assert await _sweep(ctx, None, full=False) is None
    assert reads.take() == [set(ctx.user_connections)] * 2


async def test_a_failed_recheck_and_every_minute_read_every_user_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`watch_sessions`' own decisions: which revision each recheck compares with, and when it reads every
    user whatever the revision (after a recheck that failed; every ``full_every_s``)."""
    calls: list[tuple[str | None, bool]] = []
    eight = asyncio.Event()

    async def sweep(ctx: ServerContext, seen: str | None, *, full: bool = True) -> str | None:
        calls.append((seen, full))
        if len(calls) == 2:
            raise RuntimeError("the database went away")
        if len(calls) == 8:
            eight.set()
        return "r"

    monkeypatch.setattr(sessions_module, "_sweep", sweep)
    ctx = cast(ServerContext, SimpleNamespace())
    # Every user every fourth recheck.
    watching = asyncio.create_task(watch_sessions(ctx, 0.001, full_every_s=0.004))
    await eight.wait()
    watching.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await watching
    assert calls[:8] == [
        (None, False),  # the first knows no revision: `_sweep` reads every user for it
        ("r", False),  # fails
        (None, False),  # so the next knows none again
        ("r", True),  # the fourth
        ("r", False),
        ("r", False),
        ("r", False),
        ("r", True),
    ]
