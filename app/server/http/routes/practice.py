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
from typing import Any

import orjson
from fastapi import APIRouter

from app.engine.views import view
from app.protocol.codes import ErrorCode
from app.robots import Memory, decide
from app.server.accounts.privacy import table_room
from app.server.errors import ApiError
from app.server.http.deps import ContextDep, CurrentUser, Id, SessionDep
from app.server.ratings import room_settings
from app.server.tables.registry import get_actor

router = APIRouter(prefix="/api", tags=["practice"])

HINT_LEVEL = "normal"


@router.post("/tables/{table_id}/hint")
async def hint(table_id: Id, user: CurrentUser, ctx: ContextDep, session: SessionDep) -> dict[str, Any]:
    actor = await get_actor(ctx, table_id)
    if actor is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id}")
    room = await table_room(session, table_id)
    if room is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id}")
    settings = await room_settings(session, room.id)
    await session.close()
    if settings.rated:
        raise ApiError(
            ErrorCode.NOT_PRACTICE,
            "hints are given only at practice tables (rooms whose games are not rated)",
        )
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

    suggestion = await asyncio.get_running_loop().run_in_executor(ctx.solver_executor, work)
    return {"table": table_id, "seat": seat, "hint": suggestion}
