"""Who held each seat for which deals (RULES §7.7), read for the pages that name a game's players.

A seat changes hands when a substitute takes it, and every seat's number moves when a fourth joins three;
each `SeatHolder` row is one player's holding of one seat number over a range of deals, in the numbering
those deals use. The table's seat rows (`TableSeat`) name only the holders at the end, so a page that names
the players of a past deal, and the statistics, which count for each holder only the deals he played, read
the holdings instead.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import SeatHolder, TableSeat, User


@dataclass(frozen=True, slots=True)
class Holding:
    table_id: int
    seat: int
    user_id: int
    name: str
    first_deal: int
    last_deal: int | None  # None: holds the seat to the end

    def holds(self, deal_number: int) -> bool:
        return self.first_deal <= deal_number and (self.last_deal is None or deal_number <= self.last_deal)


async def holdings(session: AsyncSession, table_ids: Collection[int]) -> list[Holding]:
    """Every holding at the tables ``table_ids``, by table, seat and first deal.

    Holdings are recorded from a game's start since migration 0012; a game begun before has none until a
    seat changes hands. So a seat row (the holder at the end) whose seat has no open holding stands for a
    holding from the first deal: right for every seat of such a game that never changed hands; where one
    did, its earlier holder is not known (the sheet's history line names him) and only the later one is
    listed."""
    if not table_ids:
        return []
    rows = (
        await session.execute(
            select(
                SeatHolder.table_id,
                SeatHolder.seat,
                SeatHolder.user_id,
                User.name,
                SeatHolder.first_deal,
                SeatHolder.last_deal,
            )
            .join(User, User.id == SeatHolder.user_id)
            .where(SeatHolder.table_id.in_(table_ids))
        )
    ).all()
    found = [Holding(int(t), int(s), int(u), str(n), int(f), None if to is None else int(to))
             for t, s, u, n, f, to in rows]  # fmt: skip
    open_seats = {(h.table_id, h.seat) for h in found if h.last_deal is None}
    seats = await session.execute(
        select(TableSeat.table_id, TableSeat.seat, TableSeat.user_id, User.name)
        .join(User, User.id == TableSeat.user_id)
        .where(TableSeat.table_id.in_(table_ids))
    )
    found += [
        Holding(int(t), int(s), int(u), str(n), 1, None)
        for t, s, u, n in seats.all()
        if (int(t), int(s)) not in open_seats
    ]
    return sorted(found, key=lambda h: (h.table_id, h.seat, h.first_deal))


def holders_of_deal(table: Sequence[Holding], deal_number: int) -> dict[int, str]:
    """Seat (in the deal's numbering) → the name of the player who held it in deal ``deal_number``."""
    return {h.seat: h.name for h in table if h.holds(deal_number)}
