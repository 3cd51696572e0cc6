"""The round clock of every playing tournament round (RULES.md §9.3), durable across restarts.

A round's clock is stored with the round (`RoundClock` as JSON: its start, length, warning and the downtime
added so far). On start the server adds the time it was down — from the last heartbeat of the process
before it to now — to every playing round (`add_downtime`), so a restart neither loses nor shortens a
round. Then once a second `tick` looks at the playing rounds:

- from `RoundClock.warning_at` on, every live table of the round that has not answered the announcement
  (`app.table.EndRound`) gets it, at every tick: the table marks its last dealer on the sheet, tells its
  players and spectators ("after the current deal — 4 more deals") and ends after them; a table that
  cannot take it (its game not running) missed it; one that does not answer in time is asked again;
- once every other table has ended, a table that missed the announcement ends after its deal in progress
  (asked again at every tick until it takes it);
- a round none of whose tables is live is finished.

Every step is idempotent: each table's answer is committed as soon as it comes, and a table that already
ends after a marked deal answers a repeat with that same end (the step changes nothing), so a lost reply or
a crash anywhere only makes the next tick ask again. One process runs the clocks (several workers: slot 0)
**[ours]**; it reaches only the tables it runs itself (tournaments are for one worker process for now).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Final, Literal

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import GameTable, TournamentRound, TournamentTable
from app.protocol.codes import ErrorCode
from app.server.context import ServerContext
from app.server.errors import TableElsewhere
from app.server.tables.commands import RoundEnd, SeatError
from app.server.tables.registry import get_actor
from app.server.tournaments.answers import forget_tournament
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


REFUSED: Final = "refused"  # the table cannot take it (its game not running): it missed the announcement
NO_ANSWER: Final = "no_answer"  # no reply in time or not reachable now: asked again at the next tick
ANSWER_TIMEOUT_S = 30.0

Answer = dict[str, Any] | Literal["refused", "no_answer"]


# The refusals that mean the table's game is not running (so it misses the announcement, §9.3); any other
# refusal is a moment's failure to store, and the table is asked again at the next tick.
_NOT_RUNNING = frozenset(
    {ErrorCode.TOURNAMENT_STATE, ErrorCode.NOT_STARTED, ErrorCode.NOT_PLAYING, ErrorCode.GAME_OVER}
)


async def _send(ctx: ServerContext, table_id: int, *, straggler: bool) -> Answer:
    """The round's end to one table: its sheet as it now stands, `REFUSED` or `NO_ANSWER`."""
    try:
        actor = await get_actor(ctx, table_id)
    except TableElsewhere:  # another worker runs it: not reachable from here (docs/tournaments.md)
        log.warning("table %s runs on another worker: the round's end did not reach it", table_id)
        return NO_ANSWER
    except Exception:
        log.exception("table %s could not be loaded for the round's end; asked again later", table_id)
        return NO_ANSWER
    if actor is None:
        return REFUSED
    reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    actor.submit(RoundEnd(EndRound(straggler), reply))
    try:
        return await asyncio.wait_for(reply, timeout=ANSWER_TIMEOUT_S)
    except (SeatError, TableRefused) as exc:
        if exc.code in _NOT_RUNNING:
            log.info("table %s did not take the round's end: %s", table_id, exc)
            return REFUSED
        # A table that cannot store now (server_error, table_closed, busy) has not missed the announcement.
        log.warning("table %s could not take the round's end now (%s); asked again later", table_id, exc)
        return NO_ANSWER
    except TimeoutError:
        # The table may still take it; the step is idempotent, so asking again reads its end from its sheet.
        log.warning("table %s did not answer the round's end in time; asked again at the next tick", table_id)
        return NO_ANSWER


async def _announce(
    ctx: ServerContext, session: AsyncSession, seated: TournamentTable, table: GameTable
) -> bool:
    """The announcement to one table that has not answered it yet; its answer is committed at once, so a
    timeout or a crash at another table loses nothing of this one. Whether it answered."""
    answer = await _send(ctx, table.id, straggler=False)
    if answer == NO_ANSWER:
        return False
    end = TableEnd(table.seats, table.first_dealer)
    if answer == REFUSED:
        seated.end = end.miss().to_json()
    else:
        assert isinstance(answer, dict)
        sheet = answer["sheet"]
        seated.end = {
            **end.to_json(),
            "last_deal": sheet.get("last_deal"),
            "last_dealer": sheet.get("last_dealer"),
        }
    await session.commit()
    return True


async def _end_straggler(ctx: ServerContext, session: AsyncSession, seated: TournamentTable, table: GameTable,
                         now_ms: int) -> bool:  # fmt: skip
    """A straggler's end; a table that refuses it (e.g. adjourned) or does not answer is asked again.
    Whether it took it."""
    answer = await _send(ctx, table.id, straggler=True)
    if not isinstance(answer, dict):
        return False
    seated.end = {**(seated.end or {}), "straggler_sent": now_ms}
    await session.commit()
    return True


async def tick(ctx: ServerContext, now_ms: int) -> None:
    """One look at every playing round (module docstring). Each change committed forgets its tournament's
    shared answers at once (`answers.forget_tournament`): a tick may wait long for the tables' answers."""
    async with ctx.sessions() as session:
        rounds = await _playing_rounds(session)
        for rnd in rounds:
            rows = await session.execute(
                select(TournamentTable, GameTable)
                .join(GameTable, GameTable.id == TournamentTable.table_id)
                .where(TournamentTable.round_id == rnd.id)
                .order_by(TournamentTable.number)
            )
            tables = [(seated, table) for seated, table in rows]
            live = [(seated, table) for seated, table in tables if table.status in LIVE]
            if not live:
                rnd.status = "finished"
                await session.commit()
                forget_tournament(ctx, rnd.tournament_id)
                continue
            if rnd.clock is None or not RoundClock.from_json(rnd.clock).warning_due(now_ms):
                continue
            if rnd.clock.get("announced_ms") is None:
                rnd.clock = {**rnd.clock, "announced_ms": now_ms}  # when it was first made, for the record
                await session.commit()
                forget_tournament(ctx, rnd.tournament_id)
            # Every live table that has not answered yet hears it, at every tick until it answers.
            for seated, table in live:
                if seated.end is None and await _announce(ctx, session, seated, table):
                    forget_tournament(ctx, rnd.tournament_id)
            missed = [(s, t) for s, t in live if s.end is not None and s.end.get("missed")]
            if missed and len(missed) == len(live):
                for seated, table in missed:
                    if seated.end is not None and seated.end.get("straggler_sent"):
                        continue
                    if await _end_straggler(ctx, session, seated, table, now_ms):
                        forget_tournament(ctx, rnd.tournament_id)
        await session.commit()


async def add_downtime_on_start(ctx: ServerContext, last_alive_ms: int | None) -> None:
    """The start's step, awaited before the server serves: the first reply after a restart already shows
    the lengthened rounds (a task racing the first requests did not; CI saw one read 0 ms)."""
    try:
        added = await add_downtime(ctx, last_alive_ms, _now_ms())
        if added:
            log.info("the server's downtime was added to %d playing round(s)", added)
    except Exception:
        log.exception("the downtime could not be added to the playing rounds")


async def run_round_clocks(ctx: ServerContext, *, interval: float = 1.0) -> None:
    """The clocks' task: a `tick` every ``interval`` seconds until cancelled (the downtime is added before,
    by `add_downtime_on_start`)."""
    while True:
        try:
            await tick(ctx, _now_ms())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the round clocks' tick failed; the next one tries again")
        await asyncio.sleep(interval)
