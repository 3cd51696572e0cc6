"""Password hashing with argon2id (argon2-cffi), off the event loop.

A hash costs 64 MiB and tens of milliseconds of CPU by design, so the server never runs one on its event
loop: `PasswordPool` runs them on a few worker threads (argon2 releases the GIL) and refuses work beyond a
bounded backlog instead of queueing it without limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()
_T = TypeVar("_T")

MIN_PASSWORD = 8
MAX_PASSWORD = 256


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def _lowest_priority() -> None:
    # Linux nice values are per thread and inherited by the threads argon2 starts for its lanes: a hash
    # then only takes CPU the event loop (and the tables) do not want.
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


class PoolBusy(Exception):
    """More hashes are waiting than the pool accepts; the caller is asked to come back later."""


class PasswordPool:
    """Hashes and verifications on ``workers`` threads, at most ``backlog`` waiting beyond those."""

    def __init__(self, workers: int, backlog: int) -> None:
        self._executor = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="argon2", initializer=_lowest_priority
        )
        self._limit = workers + backlog
        self._in_flight = 0

    @cached_property
    def _decoy_hash(self) -> str:
        # Verified against when the name is unknown, so that costs what a wrong password costs and the
        # time of an answer does not tell which names exist.
        return hash_password(secrets.token_urlsafe(16))

    async def _run(self, fn: Callable[..., _T], *args: str) -> _T:
        if self._in_flight >= self._limit:
            raise PoolBusy
        self._in_flight += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        finally:
            self._in_flight -= 1

    async def hash(self, password: str) -> str:
        return await self._run(hash_password, password)

    async def verify(self, password_hash: str | None, password: str) -> bool:
        """``None`` (no such user) verifies against a decoy hash and is always False."""
        if password_hash is None:
            await self._run(self._verify_decoy, password)
            return False
        return await self._run(verify_password, password_hash, password)

    def _verify_decoy(self, password: str) -> bool:
        verify_password(self._decoy_hash, password)
        return False

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
