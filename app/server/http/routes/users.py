"""Administration of accounts (issue 11 §4): list, change a role, disable (revokes its tokens and closes its
sockets at once; its seats in running games keep their clocks) and enable, reset a password; every change
is written to the audit log in the same commit, and admins read the log."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select

from app.auth.passwords import MAX_PASSWORD, PoolBusy
from app.auth.roles import Role
from app.auth.users import (
    AccountError,
    check_credentials,
    name_key,
    revoke_tokens,
    set_disabled,
    user_by_name,
)
from app.db.models import AuditEntry, User
from app.protocol.codes import ErrorCode
from app.server.accounts.audit import audit
from app.server.accounts.sessions import close_user
from app.server.errors import ApiError
from app.server.http.admission import step_aside
from app.server.http.deps import MAX_ID, AdminUser, ContextDep, SessionDep

router = APIRouter(prefix="/api/admin", tags=["admin"])

Name = Annotated[str, Path(min_length=1, max_length=64)]


class AccountOut(BaseModel):
    name: str
    disabled: bool
    closed_sockets: int = 0


class UserRow(BaseModel):
    id: int
    name: str
    role: str
    disabled: bool
    created_at: float


class UsersQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, min_length=1, max_length=64, description="names containing this")
    role: Role | None = None
    limit: int = Field(50, ge=1, le=100)
    offset: int = Field(0, ge=0, le=MAX_ID)


class RoleIn(BaseModel):
    role: Role


class PasswordIn(BaseModel):
    password: str = Field(max_length=MAX_PASSWORD)


async def _user(session: SessionDep, name: str) -> User:
    user = await user_by_name(session, name)
    if user is None:
        raise ApiError(ErrorCode.NOT_FOUND, "no such user", "name")
    return user


def _not_self(admin: User, user: User, what: str) -> None:
    if user.id == admin.id:
        # A 409, not the role's 403: the admin has the right, their own account is what refuses it.
        raise ApiError(ErrorCode.FORBIDDEN, f"an admin does not {what} their own account", status=409)


@router.get("/users")
async def list_users(
    q: Annotated[UsersQuery, Query()], _admin: AdminUser, session: SessionDep
) -> dict[str, Any]:
    query = select(User)
    if q.name is not None:
        query = query.where(User.name_key.contains(name_key(q.name)))
    if q.role is not None:
        query = query.where(User.role == q.role.value)
    total = await session.scalar(select(func.count()).select_from(query.subquery()))
    rows = (await session.execute(query.order_by(User.id).limit(q.limit).offset(q.offset))).scalars()
    return {
        "total": total or 0,
        "items": [
            UserRow(id=u.id, name=u.name, role=u.role, disabled=u.disabled, created_at=u.created_at)
            for u in rows
        ],
    }


@router.post("/users/{name}/role")
async def change_role(name: Name, body: RoleIn, admin: AdminUser, session: SessionDep) -> UserRow:
    """Takes effect at the user's next request (roles are read from the database, not from tokens)."""
    user = await _user(session, name)
    _not_self(admin, user, "change the role of")
    before = user.role
    user.role = body.role.value
    audit(session, admin, "role", user.name, before=before, after=user.role)
    await session.commit()
    return UserRow(
        id=user.id, name=user.name, role=user.role, disabled=user.disabled, created_at=user.created_at
    )


@router.post("/users/{name}/disable")
async def disable(name: Name, admin: AdminUser, session: SessionDep, ctx: ContextDep) -> AccountOut:
    if name_key(name) == admin.name_key:  # any spelling of the admin's own name (issue 25)
        raise ApiError(ErrorCode.FORBIDDEN, "an admin does not disable their own account", status=409)
    user = await _set(session, admin, name, True)
    return AccountOut(
        name=user.name, disabled=True, closed_sockets=close_user(ctx, user.id, "account disabled")
    )


@router.post("/users/{name}/enable")
async def enable(name: Name, admin: AdminUser, session: SessionDep) -> AccountOut:
    user = await _set(session, admin, name, False)
    return AccountOut(name=user.name, disabled=False)


async def _set(session: SessionDep, admin: User, name: str, disabled: bool) -> User:
    try:
        user = await set_disabled(session, name, disabled)
    except AccountError as exc:
        raise ApiError(ErrorCode.NOT_FOUND, str(exc), exc.field) from None
    audit(session, admin, "disable" if disabled else "enable", user.name)
    await session.commit()
    return user


@router.post("/users/{name}/password")
async def reset_password(
    name: Name, body: PasswordIn, admin: AdminUser, session: SessionDep, ctx: ContextDep
) -> AccountOut:
    """Sets a new password; every token of the account is revoked and its sockets are closed."""
    user = await _user(session, name)
    try:
        check_credentials(user.name, body.password)
        step_aside()  # the hash is made off the event loop
        password_hash = await ctx.passwords.hash(body.password)
    except AccountError as exc:
        raise ApiError(ErrorCode.INVALID_ACCOUNT, str(exc), exc.field) from None
    except PoolBusy:
        raise ApiError(ErrorCode.BUSY, "the server is busy; try again shortly") from None
    user.password_hash = password_hash
    await revoke_tokens(session, user)
    audit(session, admin, "password", user.name)  # never the password itself
    await session.commit()
    closed = close_user(ctx, user.id, "password reset")
    return AccountOut(name=user.name, disabled=user.disabled, closed_sockets=closed)


@router.get("/audit")
async def audit_log(
    _admin: AdminUser,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
) -> dict[str, Any]:
    """Every recorded change, newest first."""
    total = await session.scalar(select(func.count(AuditEntry.id)))
    rows = (
        await session.execute(select(AuditEntry).order_by(AuditEntry.id.desc()).limit(limit).offset(offset))
    ).scalars()
    return {
        "total": total or 0,
        "items": [
            {
                "id": e.id,
                "at": e.at,
                "admin": e.actor_name,
                "action": e.action,
                "target": e.target,
                "detail": e.detail,
            }
            for e in rows
        ],
    }
