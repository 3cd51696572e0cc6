"""Broadcast (issue 21 §4): in a room with ``broadcast`` on, spectators follow a table one deal behind,
every hand open — ``GET /api/broadcast/tables/{table}`` gives the last finished deal's full record (its
hands as play began, the talon, the discard, every trick) and of the deal in play only its number.

What it shows is exactly the finished deals' records (RULES §12: public to the table once a deal ends);
the deal in play is never read here. At a tournament table the round gate of
`app.server.analysis.analysis_allowed` holds even those back until the round is over.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy import func, select

from app.analysis.records import inner_record, played_deal
from app.db.models import DealRecord, InterruptedDeal, RoomSettings, TableSeat, User
from app.protocol.codes import ErrorCode
from app.server.accounts.privacy import watched_table
from app.server.analysis import analysis_allowed
from app.server.errors import ApiError
from app.server.http.deps import CurrentUser, Id, SessionDep
from app.server.http.holdings import holders_of_deal, holdings
from app.table import LIVE

router = APIRouter(prefix="/api/broadcast", tags=["broadcast"])


@router.get("/tables/{table_id}")
async def broadcast(table_id: Id, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    table = await watched_table(session, table_id, user)
    settings = await session.get(RoomSettings, table.room_id)
    if settings is None or not settings.broadcast:
        raise ApiError(ErrorCode.FORBIDDEN, "this room does not broadcast its tables")
    last = await session.scalar(
        select(DealRecord)
        .where(DealRecord.table_id == table_id)
        .order_by(DealRecord.deal_number.desc())
        .limit(1)
    )
    interrupted = await session.scalar(
        select(func.max(InterruptedDeal.deal_number)).where(InterruptedDeal.table_id == table_id)
    )
    played = max(last.deal_number if last else 0, interrupted or 0)
    live = played + 1 if table.status in LIVE and table.started_at is not None else None
    players = {
        str(seat): name
        for seat, name in (
            await session.execute(
                select(TableSeat.seat, User.name)
                .join(User, User.id == TableSeat.user_id)
                .where(TableSeat.table_id == table_id)
            )
        ).all()
    }
    previous = None
    if last is not None and await analysis_allowed(session, table_id, deal_over=True):
        found = played_deal(last.result, last.record)
        record = inner_record(last.record)
        # The hands as play began; a deal not played (all passed, a declarer's game unplayed): as dealt.
        hands = (
            {str(s): [c.text for c in found[0].hands[i]] for i, s in enumerate(found[1])}
            if found is not None
            else dict(record.get("hands", {}))
        )
        # RULES §7.7: that deal's own players, in its seat numbering (a seat may have changed hands since).
        held = holders_of_deal(await holdings(session, [table_id]), last.deal_number)
        previous = {
            "deal": last.deal_number,
            "players": {str(seat): name for seat, name in held.items()},
            "result": last.result,
            "record": record,
            "hands": hands,
        }
    return {
        "table": table_id,
        "status": table.status,
        "players": players,
        "live_deal": live,
        "previous": previous,
    }
