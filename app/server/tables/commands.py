"""What a table actor's queue carries: connections, seats, actions, timers, operators' and admins' acts.

Every command that a caller waits for carries a ``reply`` future, and every such command gets a reply:
its result, or a `SeatError` whose ``code`` maps to an HTTP status in one place
(`app.server.errors.HTTP_STATUS`), ``server_error`` included when the table could not store the change.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.autoplay.record import InterruptedDeal
from app.engine.result import DealResult
from app.protocol.codes import ErrorCode
from app.server.connections.connection import Connection
from app.server.timebase import MonoMs
from app.table.commands import EndRound, JudgeSheet, TableCommand
from app.table.seats import Seating

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
class Unseat:
    """A seat freed before the game starts by someone other than its player: the room's operator (or an
    admin) removing him (``user_id`` None: whoever sits there), or the table itself when the player
    ``user_id`` has been gone (no socket to the table) for the waiting-seat grace (``if_absent``)."""

    seat: int
    user_id: int | None
    reply: asyncio.Future[None]
    if_absent: bool = False


@dataclass(slots=True)
class Act:
    conn: Connection
    seq: int
    action: dict[str, Any]
    # When the table took the frame (its `submit`, on the table's clock): the action counts at that instant,
    # its wait in the table's queue charged to nobody (RULES §8.6).
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
    # Stored in the table's commit with the sheet (a crash cannot keep one without the other): the new
    # sanction's row (the table adds the sheet line it wrote), or the id of the sanction revoked and how,
    # and the audit line.
    sanction: dict[str, Any] | None = None
    revoked: tuple[int, dict[str, Any]] | None = None
    audit: dict[str, Any] | None = None


@dataclass(slots=True)
class RoundEnd:
    """A tournament round's end reaching the table (RULES §9.3), sent by the round's clock; the reply is
    the table's sheet after the mark."""

    command: EndRound
    reply: asyncio.Future[dict[str, Any]]


@dataclass(slots=True)
class Life:
    """A proposal, an answer, a "ready" or an operator's decision (RULES §7.7). ``build`` makes the table
    command from the seating as the table has it when it takes this (it raises `TableRefused`: who is not
    seated, a substitute who is); ``audit``: an operator's decision's audit line, stored in its commit."""

    build: Callable[[Seating], TableCommand]
    reply: asyncio.Future[dict[str, Any]]
    audit: dict[str, Any] | None = None


@dataclass(slots=True)
class AdjournDue:
    """The table's timer: its adjournment may have run past `adjourn_limit`."""


Command = (
    Connect | Disconnect | Sit | Leave | Unseat | Act | Resync | Expire | Retry | GraceOver | Stop | Award
    | Judge | RoundEnd | Life | AdjournDue
)  # fmt: skip
Replying = Sit | Leave | Unseat | Stop | Award | Judge | RoundEnd | Life


def fail(command: Command, exc: BaseException) -> None:
    """Give a waiting caller its reply when the command failed (the route answers instead of hanging)."""
    if isinstance(command, Replying) and not command.reply.done():
        command.reply.set_exception(exc)
