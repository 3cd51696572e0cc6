"""What a table actor's queue carries: connections, seats, actions, timers, operators' and admins' acts.

Every command that a caller waits for carries a ``reply`` future, and every such command gets a reply:
its result, or a `SeatError` whose ``code`` maps to an HTTP status in one place
(`app.server.errors.HTTP_STATUS`), ``server_error`` included when the table could not store the change.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from app.autoplay.record import InterruptedDeal
from app.engine.result import DealResult
from app.protocol.codes import ErrorCode
from app.server.connections.connection import Connection
from app.server.timebase import MonoMs
from app.table.commands import JudgeSheet

UNSTAMPED = MonoMs(0)  # an `Act` not yet taken by its table


class SeatError(Exception):
    """A request the table refuses, or could not carry out; ``code`` maps to an HTTP status."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(slots=True)
class Connect:
    conn: Connection


@dataclass(slots=True)
class Disconnect:
    conn: Connection


@dataclass(slots=True)
class Sit:
    user_id: int
    name: str
    seat: int | None
    reply: asyncio.Future[int]


@dataclass(slots=True)
class Leave:
    user_id: int
    reply: asyncio.Future[None]


@dataclass(slots=True)
class Act:
    conn: Connection
    seq: int
    action: dict[str, Any]
    # When the table took the frame (its `submit`, on the table's clock): the wait in the table's queue is
    # lag the server measured itself, credited by the clock's lag allowance (never a client's own time).
    received_ms: MonoMs = UNSTAMPED


@dataclass(slots=True)
class Resync:
    conn: Connection


@dataclass(slots=True)
class Expire:
    version: int


@dataclass(slots=True)
class Retry:
    """The table could not store its last change: try again (its clocks are frozen until it can)."""


@dataclass(slots=True)
class GraceOver:
    """The grace after a restart or a takeover has passed: the running clock resumes whether or not the
    seat to move is back (RULES §8.6)."""


@dataclass(slots=True)
class Stop:
    reason: str
    reply: asyncio.Future[None]


@dataclass(slots=True)
class Award:
    """An administrator's award for interrupted deal ``deal_id`` (a row of the archive)."""

    deal_id: int
    record: InterruptedDeal
    result: DealResult
    admin: str
    reply: asyncio.Future[dict[str, Any]]
    revise: bool = False  # admin: a later award of a deal already awarded (a new recorded entry)
    # Its entry in the deal's history of awards (the settlement is added by the table) and its audit line,
    # both stored in the same commit as the award.
    entry: dict[str, Any] = field(default_factory=dict)
    audit: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Judge:
    """A judge's sanction or its revocation written into the table's sheet (admin: RULES §11)."""

    command: JudgeSheet
    reply: asyncio.Future[dict[str, Any]]


Command = (
    Connect | Disconnect | Sit | Leave | Act | Resync | Expire | Retry | GraceOver | Stop | Award | Judge
)
Replying = Sit | Leave | Stop | Award | Judge


def fail(command: Command, exc: BaseException) -> None:
    """Give a waiting caller its reply when the command failed (the route answers instead of hanging)."""
    if isinstance(command, Replying) and not command.reply.done():
        command.reply.set_exception(exc)
