"""Register, log in, who am I."""

from __future__ import annotations

import time

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.auth.roles import Role
from app.auth.tokens import issue_token
from app.auth.users import AccountError, authenticate, create_user
from app.server.deps import ContextDep, CurrentUser, SessionDep
from app.server.errors import ApiError

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


@router.post("/register", status_code=201)
async def register(body: Credentials, session: SessionDep) -> UserOut:
    """Anyone may register; new accounts are players (operators and admins come from the CLI)."""
    try:
        user = await create_user(session, body.name, body.password, Role.PLAYER)
    except AccountError as exc:
        status = 409 if exc.message == "already taken" else 422
        raise ApiError(status, "invalid_account", str(exc), exc.field) from None
    await session.commit()
    return UserOut(id=user.id, name=user.name, role=user.role)


@router.post("/login")
async def login(body: Credentials, session: SessionDep, ctx: ContextDep) -> TokenOut:
    user = await authenticate(session, body.name, body.password)
    if user is None:
        raise ApiError(401, "unauthorized", "wrong name or password")
    token, expires_at = issue_token(ctx.token_secret, user.id, time.time(), ctx.settings.token_ttl)
    return TokenOut(token=token, expires_at=expires_at, user_id=user.id, name=user.name, role=user.role)


@router.get("/me")
async def me(user: CurrentUser) -> UserOut:
    return UserOut(id=user.id, name=user.name, role=user.role)
