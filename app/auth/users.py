"""User accounts in the database."""

from __future__ import annotations

import secrets
import time
import unicodedata

from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.passwords import MAX_PASSWORD, MIN_PASSWORD, hash_password
from app.auth.roles import Role
from app.db.models import ServerState, User

MIN_NAME, MAX_NAME = 2, 32
# The `server_state` row every revocation of a user's tokens (logout, a password reset, an account
# disabled) sets to a new value, in the revocation's transaction: a process rechecks its sockets' users
# whenever it finds the value changed (`app.server.accounts.sessions.watch_sessions`), not every user at
# every recheck.
ACCOUNTS_REVISION = "accounts_revision"
# No ORM object of the row is kept in step: none is ever loaded where tokens are revoked.
_NEW_REVISION = (
    update(ServerState)
    .where(ServerState.key == ACCOUNTS_REVISION)
    .values(value=bindparam("value"))
    .execution_options(synchronize_session=False)
)
_NAME_PUNCTUATION = frozenset("_.-")


class AccountError(ValueError):
    """An invalid name or password, or a name already taken; ``field`` names the culprit."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def normal_name(name: str) -> str:
    """The form a name is stored in: Unicode NFKC (full-width and compatibility letters folded)."""
    return unicodedata.normalize("NFKC", name)


def name_key(name: str) -> str:
    """What makes two names the same: NFKC, case-folded (``PL1``, ``pl1`` and ``ｐｌ１`` are one name)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def _script(char: str) -> str:
    return unicodedata.name(char, "?").split(" ", 1)[0]  # LATIN, CYRILLIC, GREEK, …


def check_name(name: str) -> None:
    """2–32 letters (of one script: no Latin-Cyrillic look-alikes), digits, '_', '.', '-'; so no spaces
    and no control characters. Checked on the NFKC form."""
    name = normal_name(name)
    rule = f"{MIN_NAME}-{MAX_NAME} letters, digits, '_', '.', '-'"
    if not MIN_NAME <= len(name) <= MAX_NAME:
        raise AccountError("name", rule)
    for char in name:
        if not (char.isalpha() or unicodedata.category(char) == "Nd" or char in _NAME_PUNCTUATION):
            raise AccountError("name", rule)
    if len({_script(c) for c in name if c.isalpha()}) > 1:
        raise AccountError("name", "letters of one script only (no mixed look-alikes)")


def check_credentials(name: str, password: str) -> None:
    check_name(name)
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError("password", f"length must be {MIN_PASSWORD}..{MAX_PASSWORD}")
    if name_key(password) == name_key(name):
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
    user = User(
        name=normal_name(name),
        name_key=name_key(name),
        password_hash=password_hash,
        role=role.value,
        created_at=time.time(),
    )
    session.add(user)
    await session.flush()
    return user


async def user_by_name(session: AsyncSession, name: str) -> User | None:
    query = select(User).where(User.name_key == name_key(name))
    return (await session.execute(query)).scalar_one_or_none()


async def revoke_tokens(session: AsyncSession, user: User) -> None:
    """Every token issued so far stops working (its generation is no longer the user's)."""
    user.token_generation += 1
    await session.flush()
    await accounts_changed(session)


async def set_disabled(session: AsyncSession, name: str, disabled: bool) -> User:
    """Disable (or enable again) an account; disabling also revokes its tokens."""
    user = await user_by_name(session, name)
    if user is None:
        raise AccountError("name", "no such user")
    user.disabled = disabled
    if disabled:
        await revoke_tokens(session, user)  # which marks the accounts changed (enabling closes nothing)
    await session.flush()
    return user


async def accounts_changed(session: AsyncSession) -> None:
    """Marks, in the session's transaction, that a user's tokens were revoked: every process rechecks its
    sockets' users (a database without the row, made without the migrations, has them rechecked every
    time)."""
    await session.execute(_NEW_REVISION, {"value": secrets.token_hex(8)})
