"""The ladders in the database: each settled game taken in once, in (finished_at, table_id) order.

A game counts when it is settled: status ``finished`` with a settlement (a game awaiting an award is
provisional and waits; RULES §8.4), not ended by a server fault, with at least one deal played, in a
room whose games are rated (`RoomSettings.rated`). It moves its room's ladder and the site's (0).

Live and rebuilt ratings are equal by construction: both go through `_take_in` in the same order. A game
that settles after a later-finished one was already taken in (an award given late, or two commits landing
out of order) is out of that order, so `rate_settled` then replays the ladders from that game on
(`_replay_from`): the ratings as they stood just before it are read back from the rating history (each
`RatingChange` holds a player's rating after a game), the later games are undone and taken in again after
it; what was decided about each game before (counted or not) is kept. Only the games after the late one
are replayed, not every game since the site began: the single writer's lock (SQLite) is held that long.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy import (
    URL,
    ColumnElement,
    Engine,
    Select,
    and_,
    delete,
    exists,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.orm import Session

from app.db.engine import make_sessionmaker, make_sqlite_batch_engine, make_thread_engine
from app.db.models import (
    UNRATED,
    DealRecord,
    GameTable,
    PlayerRating,
    RatedGame,
    RatingChange,
    RoomSettings,
    TableSeat,
    User,
)
from app.ratings import GameForRating, Rating, initial_rating, rate_pulya
from app.server.tables.robot_levels import robot_level
from app.table import Termination

log = logging.getLogger(__name__)

SITE = 0  # the site-wide ladder's number; a room's ladder is its room id
GAMES_PER_PASS = 2  # the background loop's games per transaction (`run_ratings`)
# While games wait, a pass is followed by a rest this many times as long as it took (`run_ratings`).
REST_PER_PASS = 3.0


@dataclass(frozen=True, slots=True)
class _Settled:
    table_id: int
    room_id: int
    finished_at: float


def _settled_query() -> Select[int, int, float | None]:
    return select(GameTable.id, GameTable.room_id, GameTable.finished_at).where(
        GameTable.status == "finished",
        GameTable.finished_at.is_not(None),
        GameTable.settlement.is_not(None),
        GameTable.finish_reason != Termination.FAULT.value,
    )


def _pending(session: Session, limit: int | None = None) -> list[_Settled]:
    """The settled games not taken in yet, in (finished_at, table_id) order: `_settled_query`'s games read
    through the partial index of those not taken in (`UNRATED`), so a pass reads only them. Its flag goes
    with the `RatedGame` row (`_taken`); the row is checked too."""
    sql = pending_sql(session.get_bind().dialect.name)
    params: dict[str, object] = {"fault": Termination.FAULT.value}
    if limit is not None:
        sql += " LIMIT :limit"
        params["limit"] = limit
    rows = session.execute(text(sql), params)
    return [_Settled(r[0], r[1], float(r[2] or 0.0)) for r in rows.all()]


def pending_sql(dialect: str) -> str:
    """`_pending`'s statement on this database (no LIMIT)."""
    return _PENDING.format(indexed="INDEXED BY ix_game_tables_unrated" if dialect == "sqlite" else "")


# `_settled_query` less the games taken in. A query's text, not the expression: on SQLite it names the
# partial index (its planner, without statistics, takes the index of `status`, an equality, and reads
# every finished game: 0.15-0.25 s a pass at 100,000 of them), and the index's predicate is written as
# the index has it, so either database sees that the index applies.
_PENDING = (
    "SELECT id, room_id, finished_at FROM game_tables {indexed} WHERE "
    + UNRATED
    + " AND finished_at IS NOT NULL AND settlement IS NOT NULL AND finish_reason != :fault"
    " AND NOT EXISTS (SELECT 1 FROM rated_games WHERE rated_games.table_id = game_tables.id)"
    " ORDER BY finished_at, id"
)


def _last_taken(session: Session) -> tuple[float, int] | None:
    row = (
        session.execute(
            select(RatedGame.finished_at, RatedGame.table_id)
            .order_by(RatedGame.finished_at.desc(), RatedGame.table_id.desc())
            .limit(1)
        )
    ).first()
    return None if row is None else (float(row[0]), int(row[1]))


def _game(session: Session, settled: _Settled) -> tuple[GameForRating, dict[int, str | None]] | None:
    """The game as rating sees it and each player's robot level (None for a person); None if it cannot
    count (no deal played, a seat without a player, no indices)."""
    table = session.get(GameTable, settled.table_id)
    if table is None or table.settlement is None or "exact" not in table.settlement:
        return None
    played = session.scalar(select(exists().where(DealRecord.table_id == table.id)))
    if not played:
        return None
    seats = (
        session.execute(
            select(TableSeat.seat, TableSeat.user_id, User.name)
            .join(User, User.id == TableSeat.user_id)
            .where(TableSeat.table_id == table.id)
            .order_by(TableSeat.seat)
        )
    ).all()
    indices = [Fraction(v) for v in table.settlement["exact"]]
    if len(seats) != table.seats or len(indices) != table.seats:
        return None
    levels = {int(user_id): robot_level(name) for _, user_id, name in seats}
    players: tuple[Hashable, ...] = tuple(int(user_id) for _, user_id, _ in seats)
    frozen = frozenset(u for u, level in levels.items() if level is not None)
    pool = int(table.conventions.get("pool_size", 10))
    return GameForRating(players, tuple(indices), pool, frozen), levels


def _counts(session: Session, room_id: int) -> bool:
    rated = session.scalar(select(RoomSettings.rated).where(RoomSettings.room_id == room_id))
    return rated is None or bool(rated)


def _take_in(session: Session, settled: _Settled, counted: bool | None) -> bool:
    """Rate one settled game on its room's ladder and the site's; ``counted`` repeats an earlier decision
    (a rebuild) or is None to decide now. Returns whether it counted; records it as taken in."""
    game = _game(session, settled) if counted is not False else None
    if counted is None:
        counted = game is not None and _counts(session, settled.room_id)
    if counted and game is not None:
        rated_game, levels = game
        for ladder in (settled.room_id, SITE):
            _rate_on(session, ladder, rated_game, levels, settled)
    else:
        counted = False
    session.add(RatedGame(table_id=settled.table_id, finished_at=settled.finished_at, counted=counted,
                          rated_at=time.time()))  # fmt: skip
    return counted


def _taken(session: Session, table_ids: list[int], taken: bool) -> None:
    """Mark games taken in (their `RatedGame` rows added) or no longer (the rows deleted for a replay):
    `GameTable.in_ratings`, which keeps them out of the index of the games a pass looks for. Every caller
    of `_take_in` marks the games it took in, in one statement per `_MARK_CHUNK` games."""
    for first in range(0, len(table_ids), _MARK_CHUNK):
        session.execute(
            update(GameTable)
            .where(GameTable.id.in_(table_ids[first : first + _MARK_CHUNK]))
            .values(in_ratings=True if taken else None)
            .execution_options(synchronize_session=False)
        )


_MARK_CHUNK = 500  # ids in one statement: SQLite's older builds take at most 999 parameters


def _rate_on(
    session: Session, ladder: int, game: GameForRating, levels: dict[int, str | None], settled: _Settled
) -> None:
    rows = {
        r.user_id: r
        for r in (
            session.execute(
                select(PlayerRating).where(PlayerRating.ladder == ladder, PlayerRating.user_id.in_(levels))
            )
        ).scalars()
    }
    for made in session.new:  # a player's first rating, made by an earlier game of this pass, unflushed
        if isinstance(made, PlayerRating) and made.ladder == ladder and made.user_id in levels:
            rows.setdefault(made.user_id, made)
    before: dict[Hashable, Rating] = {
        user: Rating(rows[user].mu, rows[user].sigma, rows[user].games)
        if user in rows
        else initial_rating(level)
        for user, level in levels.items()
    }
    after = rate_pulya(before, game)
    for user, level in levels.items():
        new = after[user]
        row = rows.get(user)
        if row is None:
            row = PlayerRating(ladder=ladder, user_id=user, robot=level is not None)
            session.add(row)
        row.mu, row.sigma, row.games, row.updated_at = new.mu, new.sigma, new.games, settled.finished_at
        session.add(RatingChange(ladder=ladder, user_id=user, table_id=settled.table_id, mu=new.mu,
                                 sigma=new.sigma, games=new.games, at=settled.finished_at))  # fmt: skip


def _rebuild(session: Session) -> int:
    """Forget every rating and replay every settled game in (finished_at, table_id) order; the caller
    commits. Returns the number of games that counted."""
    decided = {
        int(t): bool(c) for t, c in (session.execute(select(RatedGame.table_id, RatedGame.counted))).all()
    }
    session.execute(delete(RatingChange))
    session.execute(delete(PlayerRating))
    session.execute(delete(RatedGame))
    session.execute(
        update(GameTable)
        .where(GameTable.in_ratings.is_not(None))
        .values(in_ratings=None)
        .execution_options(synchronize_session=False)
    )
    rows = session.execute(_settled_query().order_by(GameTable.finished_at, GameTable.id))
    counted = 0
    taken = []
    for table_id, room_id, finished_at in rows.all():
        settled = _Settled(int(table_id), int(room_id), float(finished_at or 0.0))
        counted += _take_in(session, settled, decided.get(settled.table_id))
        taken.append(settled.table_id)
    _taken(session, taken, True)
    return counted


def _after(first: _Settled) -> ColumnElement[bool]:
    """Rated games later than ``first`` in (finished_at, table_id) order."""
    return or_(
        RatedGame.finished_at > first.finished_at,
        and_(RatedGame.finished_at == first.finished_at, RatedGame.table_id > first.table_id),
    )


def _replay_from(session: Session, first: _Settled) -> dict[int, bool]:
    """Undo every game taken in after ``first`` and set each rating it touched back to the player's last
    rating before (from the history; no history: no rating, the initial one applies again), then take in
    ``first`` and every settled game after it in order. Returns the decisions kept of the undone games."""
    decided = {
        int(t): bool(c)
        for t, c in (session.execute(select(RatedGame.table_id, RatedGame.counted).where(_after(first))))
    }
    if decided:
        undone = list(decided)
        touched = (
            session.execute(
                select(RatingChange.ladder, RatingChange.user_id)
                .where(RatingChange.table_id.in_(undone))
                .distinct()
            )
        ).all()
        session.execute(delete(RatingChange).where(RatingChange.table_id.in_(undone)))
        session.execute(delete(RatedGame).where(RatedGame.table_id.in_(undone)))
        _taken(session, undone, False)
        for ladder, user_id in touched:
            row = session.get(PlayerRating, (ladder, user_id))
            last = (
                session.execute(
                    select(RatingChange)
                    .where(RatingChange.ladder == ladder, RatingChange.user_id == user_id)
                    .order_by(RatingChange.at.desc(), RatingChange.table_id.desc())
                    .limit(1)
                )
            ).scalar_one_or_none()
            if row is None:
                continue
            if last is None:
                session.delete(row)
            else:
                row.mu, row.sigma, row.games, row.updated_at = last.mu, last.sigma, last.games, last.at
        session.flush()
    rows = session.execute(
        _settled_query()
        .where(
            or_(
                GameTable.finished_at > first.finished_at,
                and_(GameTable.finished_at == first.finished_at, GameTable.id >= first.table_id),
            )
        )
        .order_by(GameTable.finished_at, GameTable.id)
    )
    taken = []
    for table_id, room_id, finished_at in rows.all():
        settled = _Settled(int(table_id), int(room_id), float(finished_at or 0.0))
        _take_in(session, settled, decided.get(settled.table_id))
        taken.append(settled.table_id)
    _taken(session, taken, True)
    return decided


def _rate_settled(session: Session, limit: int | None = None) -> int:
    """Take in the games settled since the last call, in order (a replay from the earliest of them when
    it is late, see the module's docstring), the ``limit`` earliest of them if given (a replay takes in every
    game after the late one: it is rare, and a ladder must not be left half replayed); the caller commits.
    Returns how many games were taken in (a replay: the pending ones it was started with)."""
    pending = _pending(session, limit)
    if not pending:
        return 0
    last = _last_taken(session)
    if last is not None and (pending[0].finished_at, pending[0].table_id) < last:
        log.info("ratings: game %d settled out of order; replaying the ladders from it", pending[0].table_id)
        _replay_from(session, pending[0])
        return len(pending)
    # Read and computed first, written at the commit in a few statements: on SQLite the one write lock
    # is then held for those alone, not across every game's reads.
    with session.no_autoflush:
        for settled in pending:
            _take_in(session, settled, None)
        _taken(session, [settled.table_id for settled in pending], True)
    return len(pending)


async def rate_settled(session: AsyncSession, limit: int | None = None) -> int:
    """`_rate_settled` on an async session; the caller commits."""
    return await session.run_sync(_rate_settled, limit)


async def rebuild(session: AsyncSession) -> int:
    """Forget every rating and replay every settled game in (finished_at, table_id) order; the caller
    commits. Returns the number of games that counted."""
    return await session.run_sync(_rebuild)


def _take_in_pass(engine: Engine, limit: int) -> int:
    """One pass of the background loop on SQLite, in its own thread: one short transaction."""
    with Session(engine) as session:
        taken = _rate_settled(session, limit)
        if taken:
            session.commit()
        return taken


async def _async_pass(sessions: async_sessionmaker[AsyncSession], limit: int) -> int:
    async with sessions() as session:
        taken = await rate_settled(session, limit)
        if taken:
            await session.commit()
        return taken


class _LoopOfItsOwn:
    """The passes on PostgreSQL, in the ratings thread: an event loop and an engine of that thread's own
    (asyncpg's connections belong to the loop that opened them), made at the first pass."""

    def __init__(self, url: URL) -> None:
        self.url = url
        self.loop: asyncio.AbstractEventLoop | None = None
        self.engine: AsyncEngine | None = None
        self.sessions: async_sessionmaker[AsyncSession] | None = None

    def take_in_pass(self, limit: int) -> int:
        if self.loop is None or self.sessions is None:
            loop = asyncio.new_event_loop()
            try:
                engine = make_thread_engine(self.url.render_as_string(hide_password=False))
            except BaseException:
                loop.close()
                raise
            self.loop, self.engine, self.sessions = loop, engine, make_sessionmaker(engine)
        return self.loop.run_until_complete(_async_pass(self.sessions, limit))

    def close(self) -> None:
        loop, engine = self.loop, self.engine
        if loop is None:
            return
        try:
            if engine is not None:
                loop.run_until_complete(engine.dispose())
        except Exception:
            log.warning("ratings: closing the thread's connection failed", exc_info=True)
        finally:
            loop.close()


async def run_ratings(
    sessions: async_sessionmaker[AsyncSession], interval: float, engine: AsyncEngine | None = None
) -> None:
    """The background loop: every ``interval`` seconds, take in the newly settled games (one process of
    the site runs it, so the ladders have one writer).

    Given the site's ``engine``, a pass runs in a thread of its own: on SQLite on a synchronous connection,
    on PostgreSQL on an event loop and a connection of that thread's own. Run on the server's event loop
    through the async ORM, a pass held the loop for its Python work (about 10 ms a game) and, on SQLite,
    the database's one write lock from its first row to its commit across a few dozen awaits, each a turn
    of a busy loop: seconds in which no table's step could be committed, so no action acknowledged (issue
    24: 30 games ending together held it 3.5 s). In a thread the loop gets the interpreter back within the
    switch interval (`PREFERANS_GIL_SWITCH_MS`). Without ``engine`` a pass runs on the loop.

    A pass takes in at most `GAMES_PER_PASS` games (a hundred games ending within seconds made passes of
    200 ms, each holding the interpreter that long), and while more wait the next follows after a rest of
    `REST_PER_PASS` times the pass's own time (never more than ``interval``). Back to back, the passes' thread
    had the interpreter half the time (the loop and it taking turns at each switch interval) for as long as a
    burst of games lasted: 60-100 idle tables' games ending within seconds of each other (a tournament round's
    end is such a burst) lifted the acks' p99 of 600 paced tables from about 40 ms to 130-190 ms for those
    seconds (`bench/load.py`, 2026-12-04). Rested, the thread has at most a quarter of it, and less when the
    loop is busy (a pass waiting for the interpreter takes longer, and so does its rest); a burst is taken in
    over a few seconds instead of one, and ratings are not urgent.
    """
    sync_engine = None if engine is None else make_sqlite_batch_engine(engine)
    own = None if engine is None or sync_engine is not None else _LoopOfItsOwn(engine.url)
    thread = None if engine is None else ThreadPoolExecutor(1, thread_name_prefix="ratings")
    loop = asyncio.get_running_loop()
    try:
        while True:
            started = loop.time()
            try:
                if thread is not None and sync_engine is not None:
                    taken = await loop.run_in_executor(thread, _take_in_pass, sync_engine, GAMES_PER_PASS)
                elif thread is not None and own is not None:
                    taken = await loop.run_in_executor(thread, own.take_in_pass, GAMES_PER_PASS)
                else:
                    taken = await _async_pass(sessions, GAMES_PER_PASS)
                if taken >= GAMES_PER_PASS:
                    # Never longer than the interval: a pass that took seconds (a replay, the write lock
                    # held elsewhere) must not hold back the games settled meanwhile.
                    await asyncio.sleep(min(interval, REST_PER_PASS * (loop.time() - started)))
                    continue
            except asyncio.CancelledError:
                raise
            except (OSError, SQLAlchemyError) as exc:  # the database away: the tables say so loudly enough
                log.warning("ratings: could not take in settled games (%s); retrying", type(exc).__name__)
            except Exception:
                log.exception("ratings: taking in settled games failed; retrying")
            await asyncio.sleep(interval)
    finally:
        if thread is not None:
            if own is not None:  # after the pass under way, in the thread that owns the loop
                thread.submit(own.close)
            thread.shutdown(wait=False)
        if sync_engine is not None:
            sync_engine.dispose()
