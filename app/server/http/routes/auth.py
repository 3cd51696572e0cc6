"""Register, log in, who am I.

Both register and login cost an argon2 hash: they run on the server's bounded password pool (never on the
event loop) and are rate-limited per client address and, for login, per name (429 with ``Retry-After``).
"""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field
from sqlalchemy.exc import IntegrityError

from app.auth.passwords import PoolBusy
from app.auth.roles import Role
from app.auth.tokens import issue_token
from app.auth.users import (
    AccountError,
    check_credentials,
    create_user,
    name_key,
    revoke_tokens,
    user_by_name,
)
from app.protocol.codes import ErrorCode
from app.server.accounts.ratelimit import retry_after
from app.server.accounts.sessions import close_user
from app.server.cluster.addresses import moved_url
from app.server.context import ServerContext
from app.server.errors import ApiError
from app.server.http.admission import step_aside
from app.server.http.deps import MAX_ID, ContextDep, CurrentClaims, CurrentUser, SessionDep, live_account

router = APIRouter(prefix="/api/auth", tags=["auth"])


class Credentials(BaseModel):
    name: str = Field(max_length=64)
    password: str = Field(max_length=256)


class TokenOut(BaseModel):
    token: str
    expires_at: float
    user_id: int
    name: str
    role: str


class UserOut(BaseModel):
    id: int
    name: str
    role: str


def _too_many(wait: float) -> ApiError:
    return ApiError(
        ErrorCode.RATE_LIMITED,
        "too many attempts; try again later",
        headers={"Retry-After": retry_after(wait)},
    )


def _busy() -> ApiError:
    return ApiError(ErrorCode.BUSY, "the server is busy; try again shortly", headers={"Retry-After": "1"})


async def _limit(ctx: ServerContext, request: Request, name: str | None) -> None:
    address = request.client.host if request.client else "?"
    wait = await ctx.auth_by_address.take(address)
    if wait == 0 and name is not None:
        # The key login looks the name up by (NFKC + casefold): every spelling of a name shares its budget.
        wait = await ctx.auth_by_name.take(name_key(name))
    if wait > 0:
        raise _too_many(wait)


@router.post("/register", status_code=201)
async def register(body: Credentials, request: Request, session: SessionDep, ctx: ContextDep) -> UserOut:
    """Anyone may register; new accounts are players (operators and admins come from the CLI)."""
    await _limit(ctx, request, None)
    try:
        check_credentials(body.name, body.password)
        if await user_by_name(session, body.name) is not None:
            raise AccountError("name", "already taken")
        step_aside()  # the hash is made off the event loop
        password_hash = await ctx.passwords.hash(body.password)
        user = await create_user(session, body.name, body.password, Role.PLAYER, password_hash=password_hash)
    except AccountError as exc:
        # A taken name is a conflict with another account (409); a name or password against the rules a 422.
        status = 409 if exc.message == "already taken" else None
        raise ApiError(ErrorCode.INVALID_ACCOUNT, str(exc), exc.field, status=status) from None
    except PoolBusy:
        raise _busy() from None
    try:
        await session.commit()
    except IntegrityError:  # the same name registered concurrently
        raise ApiError(ErrorCode.INVALID_ACCOUNT, "name: already taken", "name", status=409) from None
    return UserOut(id=user.id, name=user.name, role=user.role)


@router.post("/login")
async def login(body: Credentials, request: Request, session: SessionDep, ctx: ContextDep) -> TokenOut:
    await _limit(ctx, request, body.name)
    user = await user_by_name(session, body.name)
    try:
        # An unknown name is verified against a decoy hash: it costs what a wrong password costs.
        step_aside()
        ok = await ctx.passwords.verify(user.password_hash if user else None, body.password)
    except PoolBusy:
        raise _busy() from None
    if user is None or not ok:
        raise ApiError(ErrorCode.UNAUTHORIZED, "wrong name or password")
    if user.disabled:
        raise ApiError(ErrorCode.DISABLED, "the account is disabled")
    token, expires_at = issue_token(
        ctx.token_secret, user.id, time.time(), ctx.settings.token_ttl, user.token_generation
    )
    return TokenOut(token=token, expires_at=expires_at, user_id=user.id, name=user.name, role=user.role)


class TicketOut(BaseModel):
    ticket: str
    expires_in: float
    # Several workers, with ``?table=ID``: the websocket URL (ticket included) on the own port of the
    # worker that runs the table; absent otherwise (open the socket where you are).
    url: str | None = None


@router.post("/ws-ticket", response_model_exclude_none=True)
async def ws_ticket(
    request: Request,
    claims: CurrentClaims,
    ctx: ContextDep,
    table: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
) -> TicketOut:
    """A single-use ticket for opening one websocket (``/ws/tables/{id}?ticket=…``) within ``expires_in``
    seconds; the socket lives until the bearer token it came from expires."""
    # The account is read on a connection given back at once: finding the table's worker needs a
    # connection too, and a request holds at most one (a reconnect storm of these exhausted the pool:
    # issue 26 §1.2).
    user = await live_account(ctx.engine, claims.user_id, claims.generation)
    book = ctx.signed_tickets or ctx.tickets
    ticket, ttl = book.issue(user.id, user.token_generation, claims.expires_at, time.monotonic())
    url = None
    if ctx.cluster is not None and table is not None:
        address = await ctx.cluster.address_of(ctx, table)
        if address is not None:
            url = f"{moved_url(request, address, table)}?ticket={ticket}"
    return TicketOut(ticket=ticket, expires_in=ttl, url=url)


@router.post("/logout")
async def logout(user: CurrentUser, session: SessionDep, ctx: ContextDep) -> dict[str, int]:
    """Revokes every token of the caller (all devices) and closes the caller's sockets."""
    await revoke_tokens(session, user)
    await session.commit()
    return {"closed": close_user(ctx, user.id, "logged out")}


@router.get("/me")
async def me(user: CurrentUser) -> UserOut:
    return UserOut(id=user.id, name=user.name, role=user.role)
