"""Judges' sanctions (issue 11 §3, RULES §11): a catalogue entry (seed 001, `app.engine.scoring.catalogue`)
for a player of a game, written into that game's sheet by the table's actor as a history line naming the
entry, recorded with the admin, the time and the reason, and revoked only by a recorded entry (a sheet line
undoing its writes)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field
from sqlalchemy import select

from app.db.models import GameTable, Sanction, TableSeat
from app.engine.scoring import ScoreSheet
from app.engine.scoring.catalogue import Role, catalogue_json
from app.engine.scoring.records import ScoringError
from app.engine.scoring.sheet import HistoryLine
from app.engine.scoring.violations import apply_sanction, revoke_sanction
from app.protocol.codes import ErrorCode
from app.server.accounts.audit import audit_row
from app.server.accounts.privacy import refuse_own_game
from app.server.errors import ApiError
from app.server.http.admission import step_aside
from app.server.http.deps import AdminUser, ContextDep, Id, SessionDep
from app.server.http.handlers import refusal
from app.server.tables.commands import Judge, SeatError
from app.server.tables.registry import get_actor
from app.table import JudgeSheet

router = APIRouter(prefix="/api/admin", tags=["admin"])


class SanctionIn(BaseModel):
    violation: str = Field(min_length=1, max_length=64)
    role: Role
    seat: int = Field(ge=0, le=3)
    deal: int | None = Field(None, ge=0, le=10_000, description="index in the sheet's history")
    damage: dict[int, int] | None = Field(None, max_length=3)
    recipient: int | None = Field(None, ge=0, le=3)
    reason: str = Field(min_length=1, max_length=500)
    # Entries that cannot happen online are refused unless the judge says otherwise (recorded).
    allow_offline: bool = False


class RevokeIn(BaseModel):
    reason: str = Field(min_length=1, max_length=500)


def _out(row: Sanction) -> dict[str, Any]:
    return {
        "id": row.id,
        "table": row.table_id,
        "seat": row.seat,
        "violation": row.violation,
        "role": row.role,
        "admin": row.admin_name,
        "at": row.at,
        "reason": row.reason,
        "summary": row.line.get("summary"),
        "revoked": None
        if row.revoked_at is None
        else {"by": row.revoked_by, "at": row.revoked_at, "reason": row.revoke_reason},
    }


@router.get("/catalogue")
async def catalogue(_admin: AdminUser) -> list[dict[str, object]]:
    """Seed 001's catalogue of violations with each role's penalty (RULES §11)."""
    return catalogue_json()


@router.get("/tables/{table_id}/sanctions")
async def sanctions(table_id: Id, _admin: AdminUser, session: SessionDep) -> list[dict[str, Any]]:
    rows = (
        await session.execute(select(Sanction).where(Sanction.table_id == table_id).order_by(Sanction.id))
    ).scalars()
    return [_out(r) for r in rows]


async def _write(ctx: ContextDep, table_id: int, judge: Judge) -> dict[str, Any]:
    """Checks the entry on the sheet as it stands (a 422 naming the field), then has the table's actor
    write it on the sheet as it stands then, its rows and audit line stored in the same commit."""
    actor = await get_actor(ctx, table_id)
    if actor is None:
        raise ApiError(ErrorCode.UNKNOWN_TABLE, f"no table {table_id}", "table")
    game = actor.game
    if game is None:
        raise ApiError(ErrorCode.NOT_STARTED, "no game was played at this table")
    try:
        judge.command.write(game.sheet)
    except ScoringError as exc:
        raise ApiError(ErrorCode.INVALID_SANCTION, exc.message, exc.field) from None
    actor.submit(judge)
    step_aside()
    try:
        out: dict[str, Any] = await asyncio.wait_for(judge.reply, timeout=30)
    except SeatError as exc:
        raise refusal(exc) from None
    return out


@router.post("/tables/{table_id}/sanctions", status_code=201)
async def impose(table_id: Id, body: SanctionIn, admin: AdminUser, ctx: ContextDep) -> dict[str, Any]:
    async with ctx.sessions() as session:
        if await session.get(GameTable, table_id) is None:
            raise ApiError(ErrorCode.UNKNOWN_TABLE, f"no table {table_id}", "table")
        await refuse_own_game(session, table_id, admin)
        user_id = await session.scalar(
            select(TableSeat.user_id).where(TableSeat.table_id == table_id, TableSeat.seat == body.seat)
        )
    if user_id is None:
        raise ApiError(ErrorCode.INVALID_SANCTION, f"nobody sits in seat {body.seat}", "seat")

    def write(sheet: ScoreSheet) -> ScoreSheet:
        return apply_sanction(
            sheet,
            body.violation,
            body.role,
            body.seat,
            deal=body.deal,
            damage=body.damage,
            recipient=body.recipient,
            judge=admin.name,
            note=body.reason,
            allow_offline=body.allow_offline,
        )

    at = time.time()
    row = {
        "table_id": table_id,
        "seat": body.seat,
        "user_id": user_id,
        "violation": body.violation,
        "role": body.role.value,
        "params": {
            "deal": body.deal,
            "damage": body.damage,
            "recipient": body.recipient,
            "allow_offline": body.allow_offline,
        },
        "admin_name": admin.name,
        "reason": body.reason,
        "at": at,
    }
    # The audit line names the sanction by its table, seat, entry and instant (its id is the database's).
    line = audit_row(admin, "sanction", f"table {table_id}", at=at, violation=body.violation, seat=body.seat,
                     reason=body.reason)  # fmt: skip
    reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    out = await _write(ctx, table_id, Judge(JudgeSheet(write), reply, sanction=row, audit=line))
    async with ctx.sessions() as session:
        stored = await session.scalar(
            select(Sanction)
            .where(Sanction.table_id == table_id, Sanction.at == at, Sanction.admin_name == admin.name)
            .order_by(Sanction.id.desc())
            .limit(1)
        )
    assert stored is not None  # stored in the table's commit that answered
    return {**_out(stored), "sheet": out["sheet"], "settlement": out["settlement"]}


@router.post("/sanctions/{sanction_id}/revoke")
async def revoke(sanction_id: Id, body: RevokeIn, admin: AdminUser, ctx: ContextDep) -> dict[str, Any]:
    """A new sheet line undoes the sanction's writes (`revoke_sanction`); the sanction stays in the record,
    marked revoked in the same commit as that line."""
    async with ctx.sessions() as session:
        row = await session.get(Sanction, sanction_id)
        if row is None:
            raise ApiError(ErrorCode.UNKNOWN_SANCTION, f"no sanction {sanction_id}", "sanction")
        if row.revoked_at is not None:
            raise ApiError(ErrorCode.ALREADY_REVOKED, "this sanction has been revoked", "sanction")
        table_id, line = row.table_id, HistoryLine.from_json(row.line)
        await refuse_own_game(session, table_id, admin)

    def write(sheet: ScoreSheet) -> ScoreSheet:
        return revoke_sanction(sheet, line, judge=admin.name, reason=body.reason)

    at = time.time()
    marks = {"revoked_by": admin.name, "revoked_at": at, "revoke_reason": body.reason}
    entry = audit_row(admin, "revoke_sanction", f"table {table_id}", at=at, sanction=sanction_id,
                      reason=body.reason)  # fmt: skip
    reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    judge = Judge(JudgeSheet(write), reply, revoked=(sanction_id, marks), audit=entry)
    out = await _write(ctx, table_id, judge)
    async with ctx.sessions() as session:
        stored = await session.get(Sanction, sanction_id)
    assert stored is not None
    return {**_out(stored), "sheet": out["sheet"], "settlement": out["settlement"]}
