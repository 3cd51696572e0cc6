"""The HMAC key of the tokens: from ``PREFERANS_TOKEN_SECRET``, else from a file only its owner may read
(generated on first start). Never from the database: a copy of the database must not mint tokens."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

MIN_SECRET = 32


class SecretError(Exception):
    """A secret that is too short or kept in a file others may read; the server refuses to start."""


def load_token_secret(configured: str, path: Path) -> str:
    if configured:
        if len(configured) < MIN_SECRET:
            raise SecretError(f"PREFERANS_TOKEN_SECRET must be at least {MIN_SECRET} characters")
        return configured
    if not path.exists():
        _create(path)
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SecretError(f"{path} may be read by others (mode {stat.filemode(mode)}); chmod 600 it")
    secret = path.read_text().strip()
    if len(secret) < MIN_SECRET:
        raise SecretError(f"{path} holds fewer than {MIN_SECRET} characters")
    return secret


def _create(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written to a private temporary file and linked into place: two servers starting at once agree on
    # one secret, and nobody ever reads a half-written file.
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32) + "\n")
        with contextlib.suppress(FileExistsError):  # another server won the race: its secret is kept
            os.link(temporary, path)
    finally:
        temporary.unlink()
