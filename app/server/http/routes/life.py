"""The pulya's life outside the deal over REST (RULES §7.7): a seated player proposes to settle now, to
adjourn, or to be replaced by a named user; the others (and a named substitute) accept or decline; the
proposer withdraws; the players of an adjourned game say "ready"; the room's operator or an administrator
settles, adjourns, resumes or substitutes without consents, with a reason, audited in the table's commit.

The rules are the table step's (`app.table.life`); these routes only name who asks. Each answers the
table's proposal and adjournment as they then stand; the table's sockets get the same as an update.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field
from sqlalchemy import select

from app.auth.users import name_key
from app.db.models import GameTable, User
from app.engine.conventions import Conventions
from app.protocol.codes import ErrorCode
from app.server.accounts.audit import audit_row
from app.server.accounts.privacy import require_sit, table_room
from app.server.accounts.ratelimit import retry_after
from app.server.context import ServerContext
from app.server.errors import ApiError
from app.server.http.deps import ContextDep, Id
from app.server.http.routes.lobby import Caller, _ask, _check_room_operator, _live_actor, _require_operator
from app.server.ratings import require_rating_to_sit
from app.server.tables.commands import Life
from app.table import (
    Answer,
    AskToJoin,
    Decree,
    Person,
    ProposalKind,
    Propose,
    Ready,
    Seating,
    SubstituteAnswer,
    TableCommand,
    TableRefused,
    Withdraw,
    WithdrawJoin,
)
from app.tournament import is_tournament_table

router = APIRouter(prefix="/api/tables", tags=["proposals"])


class ProposeIn(BaseModel):
    kind: ProposalKind
    substitute: str | None = Field(None, min_length=1, max_length=64, description="a substitution: the user")


class AnswerIn(BaseModel):
    accept: bool


class DecreeIn(BaseModel):
    action: Literal["settle", "adjourn", "resume", "substitute"]
    reason: str = Field(min_length=1, max_length=500)
    seat: int | None = Field(None, ge=0, le=3, description="a substitution: the seat")
    substitute: str | None = Field(None, min_length=1, max_length=64)


def tournament_table(table: GameTable) -> bool:
    """Whether ``table`` is a tournament table, where players propose nothing (RULES §7.7, §9.5); the pure
    step checks the same mark on its own conventions."""
    return is_tournament_table(Conventions.model_validate(table.conventions))


async def _person(ctx: ServerContext, name: str | None) -> Person | None:
    if name is None:
        return None
    async with ctx.sessions() as session:
        user = await session.scalar(select(User).where(User.name_key == name_key(name)))
    if user is None or user.disabled:
        raise ApiError(ErrorCode.UNKNOWN_USER, f"no user named {name!r}", "substitute")
    return Person(user.id, user.name)


def _seat_of(seating: Seating, user: User) -> int:
    seat = seating.seat_of(user.id)
    if seat is None:
        raise TableRefused(ErrorCode.NOT_SEATED, "you do not sit at this table")
    return seat


def _holder(seating: Seating, seat: int) -> Person:
    user, name = seating.users[seat], seating.names[seat]
    if user is None or name is None:
        raise TableRefused(ErrorCode.NOT_SEATED, f"nobody sits in seat {seat}")
    return Person(user, name)


def _seated(seating: Seating) -> tuple[int, ...]:
    return tuple(u for u in seating.users if u is not None)


async def _send(ctx: ServerContext, table_id: int, life: Life) -> dict[str, Any]:
    actor = await _live_actor(ctx, table_id)
    actor.submit(life)
    out: dict[str, Any] = await _ask(life.reply, pool_done=True)
    return out


def _life(build: Any, audit: dict[str, Any] | None = None) -> Life:
    reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    return Life(build, reply, audit)


@router.post("/{table_id}/proposals")
async def make_proposal(table_id: Id, body: ProposeIn, user: Caller, ctx: ContextDep) -> dict[str, Any]:
    """A seated player's proposal: settle now, adjourn, or replace me by ``substitute``."""
    substitute = await _person(ctx, body.substitute)
    async with ctx.sessions() as session:
        row = await session.get(GameTable, table_id)
    tournament = row is not None and tournament_table(row)

    def build(seating: Seating) -> TableCommand:
        seat = _seat_of(seating, user)
        holder = _holder(seating, seat) if body.kind is ProposalKind.SUBSTITUTE else None
        return Propose(seat, body.kind, holder, substitute, _seated(seating), tournament)

    return await _send(ctx, table_id, _life(build))


@router.post("/{table_id}/proposals/answer")
async def answer_proposal(table_id: Id, body: AnswerIn, user: Caller, ctx: ContextDep) -> dict[str, Any]:
    """A seated player's answer, or the named substitute's (he is not seated)."""

    def build(seating: Seating) -> TableCommand:
        seat = seating.seat_of(user.id)
        if seat is None:
            return SubstituteAnswer(user.id, body.accept)
        return Answer(seat, body.accept)

    return await _send(ctx, table_id, _life(build))


@router.post("/{table_id}/proposals/withdraw")
async def withdraw_proposal(table_id: Id, user: Caller, ctx: ContextDep) -> dict[str, Any]:
    """The proposer withdraws his proposal; a user who asked to join, his asking."""

    def build(seating: Seating) -> TableCommand:
        seat = seating.seat_of(user.id)
        return WithdrawJoin(user.id) if seat is None else Withdraw(seat)

    return await _send(ctx, table_id, _life(build))


@router.post("/{table_id}/join")
async def ask_to_join(table_id: Id, user: Caller, ctx: ContextDep) -> dict[str, Any]:
    """RULES §7.7: a user not seated asks to join the three as a fourth (convention `fourth_may_join`);
    each seated player accepts or declines as for a proposal, and he sits from the next deal. He must be
    one the room would seat (a private room's invited players, a rating within its limits). Askings are
    limited per user and table (each one holds the table's one proposal): 429 ``rate_limited``."""
    if ctx.join_asks is not None:
        wait = await ctx.join_asks.take(f"{user.id}:{table_id}")
        if wait > 0:
            raise ApiError(
                ErrorCode.RATE_LIMITED,
                "you have asked to join this table too often; try again later",
                headers={"Retry-After": retry_after(wait)},
            )
    async with ctx.sessions() as session:
        row = await session.get(GameTable, table_id)
        room = await table_room(session, table_id)
        if room is not None:
            await require_sit(session, room, user)
            await require_rating_to_sit(session, room, user)
    tournament = row is not None and tournament_table(row)
    newcomer = Person(user.id, user.name)

    def build(seating: Seating) -> TableCommand:
        if user.id in seating.users:
            raise TableRefused(ErrorCode.ALREADY_SEATED, "you already sit at this table")
        return AskToJoin(newcomer, _seated(seating), tournament)

    return await _send(ctx, table_id, _life(build))


@router.post("/{table_id}/ready")
async def ready(table_id: Id, user: Caller, ctx: ContextDep) -> dict[str, Any]:
    """A player of an adjourned game is ready to go on; the game resumes when all are."""
    return await _send(ctx, table_id, _life(lambda seating: Ready(_seat_of(seating, user))))


@router.post("/{table_id}/decree")
async def decree(table_id: Id, body: DecreeIn, user: Caller, ctx: ContextDep) -> dict[str, Any]:
    """The room's operator or an administrator settles (when the deal in progress ends), adjourns, resumes
    or substitutes without consents; the reason is recorded and audited in the table's own commit."""
    _require_operator(user)
    await _check_room_operator(ctx, table_id, user, "decides for a table")
    substitute = await _person(ctx, body.substitute)
    if body.action == "substitute" and (substitute is None or body.seat is None):
        raise ApiError(ErrorCode.INVALID_PROPOSAL, "name the seat and the substitute", "substitute")
    kind = ProposalKind.SETTLE if body.action == "resume" else ProposalKind(body.action)
    line = audit_row(user, f"decree_{body.action}", f"table {table_id}", at=time.time(), reason=body.reason,
                     seat=body.seat, substitute=body.substitute)  # fmt: skip

    def build(seating: Seating) -> TableCommand:
        holder = None if body.seat is None or substitute is None else _holder(seating, body.seat)
        return Decree(kind, body.reason, body.seat, holder, substitute, _seated(seating),
                      resume=body.action == "resume")  # fmt: skip

    return await _send(ctx, table_id, _life(build, line))
