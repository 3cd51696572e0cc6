"""FastAPI dependencies as ``Annotated`` aliases (STYLE: fastapi template ``deps.py``)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated, NamedTuple, Protocol, TypeVar

from fastapi import Depends, Path, Request
from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from app.auth.roles import Role
from app.auth.tokens import TokenClaims, TokenError, verify_token
from app.db.models import User
from app.protocol.codes import ErrorCode
from app.server.accounts.privacy import PRIVATE_ROOM, room_viewer
from app.server.context import ServerContext
from app.server.errors import ApiError

# Ids are INTEGER columns (32-bit on PostgreSQL): a larger one in a path is a typed 422, never a 500.
MAX_ID = 2**31 - 1
Id = Annotated[int, Path(ge=1, le=MAX_ID)]


async def get_context(request: Request) -> ServerContext:
    # A coroutine, not a plain function: FastAPI runs a plain function dependency in its thread pool, and
    # every request names the context (`tests/architecture/test_routes_on_the_loop.py`).
    ctx: ServerContext = request.app.state.ctx
    return ctx


ContextDep = Annotated[ServerContext, Depends(get_context)]


async def get_session(ctx: ContextDep) -> AsyncIterator[AsyncSession]:
    async with ctx.sessions() as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session)]


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token:
        return token.strip()
    return None


def claims_of(ctx: ServerContext, token: str | None) -> TokenClaims:
    if not token:
        raise ApiError(ErrorCode.UNAUTHORIZED, "a bearer token is required")
    try:
        return verify_token(ctx.token_secret, token, time.time(), ctx.settings.token_ttl)
    except TokenError as exc:
        raise ApiError(ErrorCode.UNAUTHORIZED, str(exc)) from None


async def live_user(session: AsyncSession, user_id: int, generation: int) -> User:
    """The user, if the account is enabled and has not revoked tokens of this generation."""
    return require_live(await session.get(User, user_id), generation)


# Built once (a statement built per call leaves its bound parameters in reference cycles).
_ACCOUNT = select(User.id, User.disabled, User.token_generation, User.role).where(
    User.id == bindparam("user_id")
)


class LiveAccount(NamedTuple):
    """A user's account as `live_account` found it live."""

    id: int
    token_generation: int
    role: str


async def live_account(engine: AsyncEngine, user_id: int, generation: int) -> LiveAccount:
    """`live_user`'s decision on the account's columns alone, read in one statement on a plain connection
    (no ORM session): a browser asks a ticket before each socket it opens, so a restart's reconnecting
    clients ask thousands at once."""
    async with engine.connect() as db:
        return await live_account_on(db, user_id, generation)


async def live_account_on(db: AsyncConnection, user_id: int, generation: int) -> LiveAccount:
    """`live_account` on a connection the caller holds (and reads more on)."""
    row = (await db.execute(_ACCOUNT, {"user_id": user_id})).first()
    live = require_live(row, generation)
    return LiveAccount(live.id, live.token_generation, live.role)


async def watches_room(ctx: ServerContext, claims: TokenClaims, room_id: int) -> bool:
    """Whether room ``room_id`` exists (False: no such room), once the token's user is found live (401)
    and allowed to watch it (403 ``private_room``), read in one statement without an ORM session
    (`accounts.privacy.room_viewer`): the lobby asks it for every room for every viewer every 3 s."""
    async with ctx.engine.connect() as db:
        viewer = require_live(await room_viewer(db, claims.user_id, room_id), claims.generation)
    if not viewer.room_found:
        return False
    if not viewer.may_watch:
        raise ApiError(ErrorCode.PRIVATE_ROOM, PRIVATE_ROOM)
    return True


class Account(Protocol):
    """What `require_live` checks: an ORM user, or the columns of one read without the ORM."""

    @property
    def disabled(self) -> bool: ...

    @property
    def token_generation(self) -> int: ...


AccountT = TypeVar("AccountT", bound=Account)


def require_live(user: AccountT | None, generation: int) -> AccountT:
    """`live_user`'s checks of a user row already read (None: no such user)."""
    if user is None:
        raise ApiError(ErrorCode.UNAUTHORIZED, "the token's user no longer exists")
    if user.disabled:
        raise ApiError(ErrorCode.UNAUTHORIZED, "the account is disabled")
    if user.token_generation != generation:
        raise ApiError(ErrorCode.UNAUTHORIZED, "the token was revoked")
    return user


async def user_from_token(ctx: ServerContext, session: AsyncSession, token: str | None) -> User:
    claims = claims_of(ctx, token)
    return await live_user(session, claims.user_id, claims.generation)


async def get_claims(request: Request, ctx: ContextDep) -> TokenClaims:
    return claims_of(ctx, bearer_token(request))


async def get_current_user(claims: Annotated[TokenClaims, Depends(get_claims)], session: SessionDep) -> User:
    return await live_user(session, claims.user_id, claims.generation)


CurrentUser = Annotated[User, Depends(get_current_user)]
CurrentClaims = Annotated[TokenClaims, Depends(get_claims)]


def require(role: Role) -> object:
    async def check(user: CurrentUser) -> User:
        if not Role(user.role).allows(role):
            raise ApiError(ErrorCode.FORBIDDEN, f"this needs the {role.value} role")
        return user

    return Depends(check)


OperatorUser = Annotated[User, require(Role.OPERATOR)]
AdminUser = Annotated[User, require(Role.ADMIN)]
