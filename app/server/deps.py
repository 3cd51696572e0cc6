"""FastAPI dependencies as ``Annotated`` aliases (STYLE: fastapi template ``deps.py``)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.roles import Role
from app.auth.tokens import TokenError, verify_token
from app.db.models import User
from app.server.context import ServerContext
from app.server.errors import ApiError


def get_context(request: Request) -> ServerContext:
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


async def user_from_token(ctx: ServerContext, session: AsyncSession, token: str | None) -> User:
    if not token:
        raise ApiError(401, "unauthorized", "a bearer token is required")
    try:
        claims = verify_token(ctx.token_secret, token, time.time())
    except TokenError as exc:
        raise ApiError(401, "unauthorized", str(exc)) from None
    user = await session.get(User, claims.user_id)
    if user is None:
        raise ApiError(401, "unauthorized", "the token's user no longer exists")
    return user


async def get_current_user(request: Request, ctx: ContextDep, session: SessionDep) -> User:
    return await user_from_token(ctx, session, bearer_token(request))


CurrentUser = Annotated[User, Depends(get_current_user)]


def require(role: Role) -> object:
    async def check(user: CurrentUser) -> User:
        if not Role(user.role).allows(role):
            raise ApiError(403, "forbidden", f"this needs the {role.value} role")
        return user

    return Depends(check)


OperatorUser = Annotated[User, require(Role.OPERATOR)]
AdminUser = Annotated[User, require(Role.ADMIN)]
