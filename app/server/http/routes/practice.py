"""The practice table's hint (issue 21 §2): at a table of a practice room (its games never rated), the
seated player whose turn it is may ask what the robot would do in their place.

The robot decides from exactly that seat's view (`app.engine.view(state, seat)`: RULES §12, what the
player sees) and the deal's completed tricks, which the player saw played, by sampling the unseen cards as
it does at its own seats (`app.robots.decide`, node and layout budgets, a seed from the position), never
from the hidden hands; off the event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
from fastapi import APIRouter
from sqlalchemy import select

from app.db.models import GameTable
from app.engine.views import view
from app.protocol.codes import ErrorCode
from app.robots import Memory, decide
from app.server.accounts.privacy import is_seated, table_room
from app.server.errors import ApiError
from app.server.http.admission import step_aside
from app.server.http.deps import ContextDep, CurrentUser, Id, SessionDep
from app.server.ratings import room_settings
from app.server.tables.registry import get_actor
from app.table import LIVE
from app.tournament import is_tournament_table

router = APIRouter(prefix="/api", tags=["practice"])

HINT_LEVEL = "normal"


class HintGate:
    """Hints in flight: one per player and table (a second ask while the first is solved is refused), and
    at most ``limit`` in all, so that hints never queue without bound in front of the robot seats and
    claim verdicts that share ``ctx.solver_executor`` (503 ``busy`` beyond it)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.asking: set[tuple[int, int]] = set()

    @contextmanager
    def admit(self, table_id: int, user_id: int) -> Iterator[None]:
        key = (table_id, user_id)
        if key in self.asking:
            raise ApiError(ErrorCode.BUSY, "your previous hint at this table is still being worked out")
        if len(self.asking) >= self.limit:
            raise ApiError(ErrorCode.BUSY, "the hint robot is busy; try again shortly")
        self.asking.add(key)
        try:
            yield
        finally:
            self.asking.discard(key)


# Per process: the solver pool has two threads, shared with the robot seats; two hints at a time at most.
GATE = HintGate(limit=2)


@router.post("/tables/{table_id}/hint")
async def hint(table_id: Id, user: CurrentUser, ctx: ContextDep, session: SessionDep) -> dict[str, Any]:
    """Checked from the rows before the table is touched: a finished table is never read back for a hint
    (it would stay in memory), and only a live one is loaded (as `lobby._live_actor` does)."""
    room = await table_room(session, table_id)
    if room is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id}")
    settings = await room_settings(session, room.id)
    status = await session.scalar(select(GameTable.status).where(GameTable.id == table_id))
    seated = await is_seated(session, table_id, user.id)
    await session.close()
    if settings.rated:
        raise ApiError(
            ErrorCode.NOT_PRACTICE,
            "hints are given only at practice tables (rooms whose games are not rated)",
        )
    if not seated:
        raise ApiError(ErrorCode.NOT_SEATED, "only a seated player may ask for a hint")
    if status not in LIVE:
        raise ApiError(ErrorCode.GAME_OVER, "the table's game is over")
    actor = await get_actor(ctx, table_id)
    if actor is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id}")
    # RULES §12 (analysis only after the round): a tournament table gets no solver help, whatever its room.
    if is_tournament_table(actor.conventions):
        raise ApiError(ErrorCode.NOT_PRACTICE, "no hints at a tournament's table")
    seat = actor.seating.seat_of(user.id)
    if seat is None:
        raise ApiError(ErrorCode.NOT_SEATED, "only a seated player may ask for a hint")
    game = actor.game
    if game is None or game.is_over:
        raise ApiError(ErrorCode.NOT_PLAYING, "no game is being played at this table")
    legal = game.legal(seat)
    if not legal:
        raise ApiError(ErrorCode.NOT_YOUR_TURN, "a hint is given when it is your turn")
    seen = view(game.state, seat)
    # The same position always gets the same hint: the seed is the seat's view itself.
    seed = int.from_bytes(
        hashlib.blake2b(orjson.dumps(seen, option=orjson.OPT_SORT_KEYS), digest_size=8).digest()
    )
    conventions = game.state.conventions
    # The tricks of this deal the player watched being played (a robot at its own seat remembers them
    # frame by frame; the view itself shows only the last one).
    deal = game.state.deal
    memory = Memory(game.state.deal_number, tuple(enumerate(deal.tricks)) if deal is not None else ())

    def work() -> dict[str, Any]:
        action = decide(seen, legal, seed, HINT_LEVEL, memory=memory, conventions=conventions)
        return {k: v for k, v in action.to_json().items() if k != "seat"}

    with GATE.admit(table_id, user.id):
        step_aside()
        suggestion = await asyncio.get_running_loop().run_in_executor(ctx.solver_executor, work)
    return {"table": table_id, "seat": seat, "hint": suggestion}
