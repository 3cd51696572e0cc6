"""User accounts in the database."""

from __future__ import annotations

import re
import time

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.passwords import MAX_PASSWORD, MIN_PASSWORD, hash_password
from app.auth.roles import Role
from app.db.models import User

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{2,32}$")


class AccountError(ValueError):
    """An invalid name or password, or a name already taken; ``field`` names the culprit."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def check_credentials(name: str, password: str) -> None:
    if not NAME_PATTERN.match(name):
        raise AccountError("name", "2-32 characters of letters, digits, '_', '.', '-'")
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError("password", f"length must be {MIN_PASSWORD}..{MAX_PASSWORD}")
    if password.casefold() == name.casefold():
        raise AccountError("password", "must differ from the name")


async def create_user(
    session: AsyncSession, name: str, password: str, role: Role, *, password_hash: str | None = None
) -> User:
    """``password_hash``: already computed off the event loop (the server's pool); else hashed here."""
    check_credentials(name, password)
    if await user_by_name(session, name) is not None:
        raise AccountError("name", "already taken")
    if password_hash is None:
        password_hash = hash_password(password)
    user = User(name=name, password_hash=password_hash, role=role.value, created_at=time.time())
    session.add(user)
    await session.flush()
    return user


async def user_by_name(session: AsyncSession, name: str) -> User | None:
    return (await session.execute(select(User).where(User.name == name))).scalar_one_or_none()


async def revoke_tokens(session: AsyncSession, user: User) -> None:
    """Every token issued so far stops working (its generation is no longer the user's)."""
    user.token_generation += 1
    await session.flush()


async def set_disabled(session: AsyncSession, name: str, disabled: bool) -> User:
    """Disable (or enable again) an account; disabling also revokes its tokens."""
    user = await user_by_name(session, name)
    if user is None:
        raise AccountError("name", "no such user")
    user.disabled = disabled
    if disabled:
        await revoke_tokens(session, user)
    await session.flush()
    return user
