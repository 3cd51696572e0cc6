"""The round clock of every playing tournament round (RULES.md §9.3), durable across restarts.

A round's clock is stored with the round (`RoundClock` as JSON: its start, length, warning and the downtime
added so far). On start the server adds the time it was down — from the last heartbeat of the process
before it to now — to every playing round (`add_downtime`), so a restart neither loses nor shortens a
round. Then once a second `tick` looks at the playing rounds:

- at `RoundClock.warning_at` every table of the round gets the announcement (`app.table.EndRound`): the
  table marks its last dealer on the sheet, tells its players and spectators ("after the current deal —
  4 more deals") and ends after them; a table that cannot take it (its game not running) missed it;
- once every other table has ended, a table that missed the announcement ends after its deal in progress;
- a round none of whose tables is live is finished.

Every step is idempotent (the announcement is recorded with the round, and a table refuses a second one),
so a crash between two of them repeats nothing. One process runs the clocks (several workers: slot 0)
**[ours]**; it reaches only the tables it runs itself (tournaments are for one worker process for now).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import GameTable, TournamentRound, TournamentTable
from app.server.context import ServerContext
from app.server.errors import TableElsewhere
from app.server.tables.commands import RoundEnd, SeatError
from app.server.tables.registry import get_actor
from app.table import LIVE, EndRound, TableRefused
from app.tournament.roundend import RoundClock, TableEnd

log = logging.getLogger(__name__)

PLAYING = "playing"


def _now_ms() -> int:
    return round(time.time() * 1000)


async def _playing_rounds(session: AsyncSession) -> list[TournamentRound]:
    rows = await session.execute(select(TournamentRound).where(TournamentRound.status == PLAYING))
    return list(rows.scalars())


async def add_downtime(ctx: ServerContext, last_alive_ms: int | None, now_ms: int) -> int:
    """Add the outage since ``last_alive_ms`` (the previous process's last heartbeat) to every playing
    round; returns how many rounds it lengthened."""
    if last_alive_ms is None:
        return 0
    changed = 0
    async with ctx.sessions() as session:
        for rnd in await _playing_rounds(session):
            if rnd.clock is None:
                continue
            clock = RoundClock.from_json(rnd.clock)
            later = clock.after_outage(last_alive_ms, now_ms)
            if later != clock:
                rnd.clock = {**rnd.clock, **later.to_json()}
                changed += 1
        await session.commit()
    return changed


async def _send(ctx: ServerContext, table_id: int, *, straggler: bool) -> dict[str, Any] | None:
    """The round's end to one table; None when the table cannot take it (its game is not running)."""
    try:
        actor = await get_actor(ctx, table_id)
    except TableElsewhere:  # another worker runs it: not reachable from here (docs/tournaments.md)
        log.warning("table %s runs on another worker: the round's end did not reach it", table_id)
        return None
    if actor is None:
        return None
    reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    actor.submit(RoundEnd(EndRound(straggler), reply))
    try:
        return await asyncio.wait_for(reply, timeout=30)
    except (SeatError, TableRefused) as exc:
        log.info("table %s did not take the round's end: %s", table_id, exc)
        return None


async def tick(ctx: ServerContext, now_ms: int) -> None:
    """One look at every playing round (module docstring)."""
    async with ctx.sessions() as session:
        rounds = await _playing_rounds(session)
        for rnd in rounds:
            rows = await session.execute(
                select(TournamentTable, GameTable)
                .join(GameTable, GameTable.id == TournamentTable.table_id)
                .where(TournamentTable.round_id == rnd.id)
                .order_by(TournamentTable.number)
            )
            tables = list(rows.tuples())
            live = [(seated, table) for seated, table in tables if table.status in LIVE]
            if not live:
                rnd.status = "finished"
                continue
            if rnd.clock is None:
                continue
            clock = RoundClock.from_json(rnd.clock)
            if rnd.clock.get("announced_ms") is None:
                if not clock.warning_due(now_ms):
                    continue
                rnd.clock = {**rnd.clock, "announced_ms": now_ms}
                await session.commit()  # before the tables hear it: a crash after this repeats nothing
                for seated, table in live:
                    sheet = await _send(ctx, table.id, straggler=False)
                    end = TableEnd(table.seats, table.first_dealer)
                    if sheet is None:
                        seated.end = end.miss().to_json()
                    else:
                        last = sheet["sheet"].get("last_deal")
                        seated.end = {**end.to_json(), "last_deal": last,
                                      "last_dealer": sheet["sheet"].get("last_dealer")}  # fmt: skip
                continue
            missed = [(s, t) for s, t in live if s.end is not None and s.end.get("missed")]
            if missed and len(missed) == len(live):
                for seated, table in missed:
                    if seated.end is not None and seated.end.get("straggler_sent"):
                        continue
                    await _send(ctx, table.id, straggler=True)
                    seated.end = {**(seated.end or {}), "straggler_sent": now_ms}
        await session.commit()


async def run_round_clocks(ctx: ServerContext, *, interval: float = 1.0, last_alive_ms: int | None) -> None:
    """The clocks' task: the downtime first, then a `tick` every ``interval`` seconds until cancelled."""
    try:
        added = await add_downtime(ctx, last_alive_ms, _now_ms())
        if added:
            log.info("the server's downtime was added to %d playing round(s)", added)
    except Exception:
        log.exception("the downtime could not be added to the playing rounds")
    while True:
        try:
            await tick(ctx, _now_ms())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the round clocks' tick failed; the next one tries again")
        await asyncio.sleep(interval)
