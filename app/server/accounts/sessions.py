"""Who is connected, by user, and the short-lived websocket tickets.

A websocket is opened with a single-use ticket obtained over REST with the bearer token, so no long-lived
token ever travels in a URL (where proxies and servers log it). Every live socket is tracked by user, so a
logout, a revocation or a disabled account closes that user's sockets at once, and a socket closes by
itself when the token it was opened with expires.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import bindparam, delete, insert, select
from sqlalchemy.exc import IntegrityError

from app.auth.users import ACCOUNTS_REVISION
from app.db.engine import writing
from app.db.models import ServerState, UsedTicket, User
from app.protocol.codes import CloseCode, ErrorCode
from app.protocol.messages import ErrorMessage
from app.server.context import pool_of

if TYPE_CHECKING:
    from app.server.connections.connection import Connection
    from app.server.context import ServerContext

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Ticket:
    user_id: int
    generation: int
    token_expires_at: float  # wall clock: the socket closes then
    expires_at: float  # monotonic: the ticket must be redeemed before


class TicketBook:
    """Single-use tickets, valid ``ttl`` seconds; at most ``max_per_user`` outstanding per user (the
    oldest is dropped) and ``max_total`` in all, so memory stays bounded."""

    def __init__(self, ttl: float, max_per_user: int = 16, max_total: int = 100_000) -> None:
        self.ttl = ttl
        self.max_per_user = max_per_user
        self.max_total = max_total
        self._tickets: OrderedDict[str, Ticket] = OrderedDict()

    def issue(self, user_id: int, generation: int, token_expires_at: float, now: float) -> tuple[str, float]:
        self._expire(now)
        mine = [key for key, t in self._tickets.items() if t.user_id == user_id]
        for key in mine[: max(0, len(mine) - self.max_per_user + 1)]:
            del self._tickets[key]
        while len(self._tickets) >= self.max_total:
            self._tickets.popitem(last=False)
        key = secrets.token_urlsafe(24)
        self._tickets[key] = Ticket(user_id, generation, token_expires_at, now + self.ttl)
        return key, self.ttl

    def redeem(self, key: str, now: float) -> Ticket | None:
        ticket = self._tickets.pop(key, None)
        if ticket is None or ticket.expires_at <= now:
            return None
        return ticket

    def _expire(self, now: float) -> None:
        while self._tickets:
            key, ticket = next(iter(self._tickets.items()))
            if ticket.expires_at > now:
                break
            del self._tickets[key]


class SignedTickets:
    """Tickets any worker can verify (``serve --workers N``): the claims signed with the server secret
    (HMAC-SHA256), single-use through the database (`redeem_signed`), so one issued by any worker is
    redeemed once, at the table's owner. Nothing is stored until a ticket is used."""

    PREFIX = "s1."

    def __init__(self, secret: str, ttl: float) -> None:
        self._key = hashlib.sha256(b"ws-ticket:" + secret.encode()).digest()
        self.ttl = ttl

    def issue(self, user_id: int, generation: int, token_expires_at: float, now: float) -> tuple[str, float]:
        del now  # a signed ticket's expiry is on the wall clock (it crosses processes)
        claims = {"u": user_id, "g": generation, "x": token_expires_at, "e": time.time() + self.ttl,
                  "n": secrets.token_urlsafe(18)}  # fmt: skip
        body = base64.urlsafe_b64encode(json.dumps(claims, separators=(",", ":")).encode()).decode()
        return f"{self.PREFIX}{body}.{self._sign(body)}", self.ttl

    def verify(self, key: str) -> tuple[Ticket, str] | None:
        """The ticket and its nonce, if the signature holds and it has not
        expired (whether it was used is `redeem_signed`'s question)."""
        if not key.isascii() or not key.startswith(self.PREFIX) or len(key) > 1024:
            return None
        body, _, signature = key[len(self.PREFIX) :].rpartition(".")
        # A signed ticket is ASCII (base64): other text is refused above, before compare_digest, which
        # raises TypeError on non-ASCII str (a 500 with several workers before issue 25).
        if not body or not hmac.compare_digest(signature, self._sign(body)):
            return None
        try:
            claims = json.loads(base64.urlsafe_b64decode(body.encode()))
            ticket = Ticket(int(claims["u"]), int(claims["g"]), float(claims["x"]), float(claims["e"]))
            nonce = str(claims["n"])
        except (ValueError, KeyError, TypeError):
            return None
        if ticket.expires_at <= time.time():
            return None
        return ticket, nonce

    def _sign(self, body: str) -> str:
        digest = hmac.new(self._key, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")


async def redeem_signed(ctx: ServerContext, signed: SignedTickets, key: str) -> Ticket | None:
    """A signed ticket, once: its nonce is inserted into ``used_tickets`` (primary key), so a second
    redemption anywhere fails on the conflict."""
    verified = signed.verify(key)
    if verified is None:
        return None
    ticket, nonce = verified
    try:
        async with writing(ctx.engine, ctx.autocommit) as db:
            await db.execute(_USE_TICKET, {"nonce": nonce, "expires_at": ticket.expires_at})
    except IntegrityError:
        return None
    return ticket


# Built once (a statement built per handshake leaves its bound parameters in reference cycles).
_USE_TICKET = insert(UsedTicket)


_EXPIRED_TICKETS = delete(UsedTicket).where(UsedTicket.expires_at < bindparam("before"))


async def forget_used_tickets(ctx: ServerContext) -> None:
    """Housekeeping: the used tickets that expired over a minute ago (none of them can be redeemed)."""
    async with writing(pool_of(ctx).engine, ctx.autocommit) as db:
        await db.execute(_EXPIRED_TICKETS, {"before": time.time() - 60})


def too_many_connections(
    ctx: ServerContext, user_id: int, table_id: int, seated: Collection[int | None] = ()
) -> str | None:
    """Why one more socket of this user to this table is refused, or None. A user seated at the table
    (``seated``: its seats' users) is bounded only by the per-user cap: spectators, counted apart, can
    never fill the table against its players."""
    settings = ctx.settings
    if len(ctx.user_connections.get(user_id, ())) >= settings.max_connections_per_user:
        return f"at most {settings.max_connections_per_user} connections per user"
    if user_id in seated:
        return None
    table = ctx.table_connections.get(table_id, ())
    if len(table) >= settings.max_connections_per_table:
        return f"at most {settings.max_connections_per_table} connections per table"
    spectators = sum(1 for conn in table if conn.user_id not in seated)
    if spectators >= settings.max_spectators_per_table:
        return f"at most {settings.max_spectators_per_table} spectators' connections per table"
    return None


def track(ctx: ServerContext, conn: Connection, table_id: int) -> None:
    ctx.user_connections.setdefault(conn.user_id, set()).add(conn)
    ctx.fresh_users.add(conn.user_id)  # rechecked by the next `watch_sessions`
    ctx.table_connections.setdefault(table_id, set()).add(conn)


def untrack(ctx: ServerContext, conn: Connection, table_id: int) -> None:
    """The closed socket uncounted (at every worker's count too: `track` follows its admission)."""
    if ctx.shared_sockets is not None:
        ctx.shared_sockets.release(conn.user_id)
    for index, key in ((ctx.user_connections, conn.user_id), (ctx.table_connections, table_id)):
        conns = index.get(key)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del index[key]


def close_user(ctx: ServerContext, user_id: int, why: str) -> int:
    """Close every live socket of a user (logout, revocation, disabled account); returns how many."""
    conns = list(ctx.user_connections.get(user_id, ()))
    for conn in conns:
        conn.send(ErrorMessage(code=ErrorCode.UNAUTHORIZED, message=why))
        conn.close(CloseCode.UNAUTHORIZED)
    return len(conns)


async def watch_sessions(ctx: ServerContext, interval: float, *, full_every_s: float = 60.0) -> None:
    """Closes the sockets of users revoked or disabled behind the server's back (another worker, the
    command line: they write to the database, not to this process). Every ``interval`` it reads the
    accounts' revision (`app.auth.users.ACCOUNTS_REVISION`, set anew by every revocation); it rechecks
    every connected user when the revision changed, and otherwise only the users whose sockets were
    opened since the last recheck (a socket checks its user's account at its handshake, which may have
    read it just before a revocation this process saw the revision of already). Every user is read again
    every ``full_every_s`` anyway, should a write ever bypass `revoke_tokens`. Reading every user at
    every recheck grew with the sockets (issue 24: 3,300 users, 14 queries every 5 s)."""
    full_every = max(1, round(full_every_s / interval))
    seen: str | None = None
    ticks = 0
    while True:
        await asyncio.sleep(interval)
        ticks += 1
        try:
            seen = await _sweep(ctx, seen, full=ticks % full_every == 0)
        except Exception:
            seen = None  # every user again next time: the users of this recheck may not all have been read
            log.exception("session sweep failed")


# Built once (a statement built per query leaves objects in reference cycles for the collector).
_REVISION = select(ServerState.value).where(ServerState.key == ACCOUNTS_REVISION)


async def _sweep(ctx: ServerContext, seen: str | None, *, full: bool = True) -> str | None:
    """One recheck (`watch_sessions`); returns the accounts' revision it read, before it read the users: a
    revocation committed after that read changes the revision the next recheck reads."""
    fresh, ctx.fresh_users = ctx.fresh_users, set()
    async with ctx.engine.connect() as db:
        revision = (await db.execute(_REVISION)).scalar_one_or_none()
    if full or revision is None or revision != seen:
        ids = list(ctx.user_connections)
    else:
        ids = [user_id for user_id in fresh if user_id in ctx.user_connections]
    # In slices: one query naming thousands of users held the event loop for ~70 ms (every clock waits).
    for start in range(0, len(ids), _SWEEP_SLICE):
        await _sweep_users(ctx, ids[start : start + _SWEEP_SLICE])
    return revision


_SWEEP_SLICE = 250
_USERS_STATE = select(User.id, User.token_generation, User.disabled).where(
    User.id.in_(bindparam("ids", expanding=True))
)


async def _sweep_users(ctx: ServerContext, ids: list[int]) -> None:
    async with ctx.engine.connect() as db:
        rows = (await db.execute(_USERS_STATE, {"ids": ids})).all()
    current = {row.id: (row.token_generation, row.disabled) for row in rows}
    for user_id in ids:
        generation, disabled = current.get(user_id, (None, True))
        stale = [c for c in ctx.user_connections.get(user_id, ()) if disabled or c.generation != generation]
        for conn in stale:
            conn.send(ErrorMessage(code=ErrorCode.UNAUTHORIZED, message="the session was revoked"))
            conn.close(CloseCode.UNAUTHORIZED)
