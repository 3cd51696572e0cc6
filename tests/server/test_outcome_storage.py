"""A game's outcome stored and read back (SQLite and PostgreSQL): the settlement, exact fractions and
money included, is published and stored as the same JSON as before `Outcome.settlement` was typed, and
the table read back from the database has the very outcome the live table had."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

from sqlalchemy import select

from app.db.models import GameTable
from app.server.context import ServerContext
from app.server.storage.reading import read_table
from app.server.tables.commands import Stop
from app.table import Termination
from tests.server import test_group_commit as harness
from tests.table.test_outcome import EXACT_BEFORE, exact_sheet

database_url = harness.database_url
ctx = harness.ctx


async def test_an_exact_settlement_is_stored_published_and_read_back_unchanged(ctx: ServerContext) -> None:
    table_id, conns = (await harness._started_tables(ctx))[0]
    for conn in conns:
        await conn.next("snapshot")
    actor = ctx.tables[table_id]
    assert actor.game is not None
    # The sheet of a pulya settled in exact fractions (`tests.table.test_outcome`), then stopped (§7.7).
    actor.game = replace(actor.game, sheet=exact_sheet())
    reply: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    actor.submit(Stop("stopped: venue closes", reply))
    await reply

    live = actor.game.outcome
    assert live is not None and live.termination is Termination.INTERRUPTED
    published = (await conns[0].next("update"))["outcome"]
    assert published["reason"] == "interrupted"
    assert json.dumps(published["settlement"]) == EXACT_BEFORE
    async with ctx.sessions() as session:
        stored = (
            await session.execute(select(GameTable.settlement).where(GameTable.id == table_id))
        ).scalar_one()
    assert stored == json.loads(EXACT_BEFORE)

    back = await read_table(ctx.sessions, table_id)
    assert back is not None and back.game is not None
    assert back.game.outcome == live
