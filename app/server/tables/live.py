"""What a table's owner knows now and the database does not: who is connected, the deal, the clocks.

The lobby and the operator's list show it for every live table; with several workers a table's details
come from the worker that runs it (`app.server.cluster.peers`), so this is the one shape they travel in.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from app.protocol.messages import SeatInfo
from app.server.tables.actor import TableActor


class TableLive(BaseModel):
    status: str
    players: list[SeatInfo]
    deal: int | None = None  # None until the game has started
    clock: dict[str, Any] | None = None
    pools: dict[str, int] | None = None  # the sum of the pools against n·S


def live_of(actor: TableActor) -> TableLive:
    game = actor.game
    if game is None:
        return TableLive(status=actor.status, players=actor.seat_infos())
    sheet = game.sheet
    return TableLive(
        status=actor.status,
        players=actor.seat_infos(),
        deal=game.state.deal_number,
        clock=game.clock.to_json(),
        pools={"sum": sum(sheet.pools), "target": sheet.seats * sheet.conventions.pool_size},
    )


def local_details(tables: dict[int, TableActor], table_ids: list[int]) -> dict[int, TableLive]:
    """The details of those of ``table_ids`` this process runs."""
    return {table_id: live_of(actor) for table_id in table_ids if (actor := tables.get(table_id)) is not None}
