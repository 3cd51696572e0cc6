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
from collections import defaultdict
from collections.abc import Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy import (
    URL,
    BindParameter,
    ColumnElement,
    Engine,
    Select,
    Table,
    and_,
    bindparam,
    delete,
    insert,
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
    GameTable,
    PlayerRating,
    RatedGame,
    RatingChange,
    RoomSettings,
    User,
)
from app.ratings import GameForRating, Rating, initial_rating, rate_pulya
from app.server.storage.schema import DEALS, SEATS, TABLES
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
    params: dict[str, object] = {}
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
    + " AND finished_at IS NOT NULL"
    " AND NOT EXISTS (SELECT 1 FROM rated_games WHERE rated_games.table_id = game_tables.id)"
    " ORDER BY finished_at, id"
)


def _last_taken(session: Session) -> tuple[float, int] | None:
    row = session.execute(_LAST_TAKEN).first()
    return None if row is None else (float(row[0]), int(row[1]))


# A game as rating sees it, and each of its players' robot level (None for a person).
Rateable = tuple[GameForRating, dict[int, str | None]]


def _rateable(session: Session, table_ids: list[int]) -> dict[int, Rateable]:
    """Of these games, those that can count, as rating sees each, with each player's robot level (None for
    a person): a deal played, every seat held, an index for each (the others are missing). Three reads for
    all of them."""
    ids = {"ids": table_ids}
    played = {int(t) for t in session.execute(_PLAYED, ids).scalars()}
    seated: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for table_id, user_id, name in session.execute(_SEATED, ids).all():
        seated[int(table_id)].append((int(user_id), name))
    out: dict[int, Rateable] = {}
    for table_id, seats, settlement, conventions in session.execute(_GAMES, ids).all():
        if settlement is None or "exact" not in settlement or table_id not in played:
            continue
        players = seated.get(int(table_id), [])
        indices = [Fraction(v) for v in settlement["exact"]]
        if len(players) != seats or len(indices) != seats:
            continue
        levels = {user: robot_level(name) for user, name in players}
        frozen = frozenset(u for u, level in levels.items() if level is not None)
        pool = int(conventions.get("pool_size", 10))
        rated = GameForRating(tuple(user for user, _ in players), tuple(indices), pool, frozen)
        out[int(table_id)] = (rated, levels)
    return out


def _rooms_rated(session: Session, room_ids: set[int]) -> dict[int, bool]:
    """Whether each room's games count (a room without settings: they do)."""
    if not room_ids:
        return {}
    rows = session.execute(_ROOMS, {"ids": sorted(room_ids)}).all()
    found = {int(room): rated is None or bool(rated) for room, rated in rows}
    return {room: found.get(room, True) for room in room_ids}


# A pass's statements, built once (built per pass, their construction was a fifth of a pass's CPU), on
# the tables themselves (Core: no ORM context per statement).
_USERS: Table = User.__table__  # type: ignore[assignment]
_ROOM_SETTINGS: Table = RoomSettings.__table__  # type: ignore[assignment]
_RATINGS: Table = PlayerRating.__table__  # type: ignore[assignment]
_HISTORY: Table = RatingChange.__table__  # type: ignore[assignment]
_RATED: Table = RatedGame.__table__  # type: ignore[assignment]
_IDS: BindParameter[list[int]] = bindparam("ids", expanding=True)
_PLAYED = select(DEALS.c.table_id).where(DEALS.c.table_id.in_(_IDS)).distinct()
_SEATED = (
    select(SEATS.c.table_id, SEATS.c.user_id, _USERS.c.name)
    .join(_USERS, _USERS.c.id == SEATS.c.user_id)
    .where(SEATS.c.table_id.in_(_IDS))
    .order_by(SEATS.c.table_id, SEATS.c.seat)
)
_GAMES = select(TABLES.c.id, TABLES.c.seats, TABLES.c.settlement, TABLES.c.conventions).where(
    TABLES.c.id.in_(_IDS)
)
_ROOMS = select(_ROOM_SETTINGS.c.room_id, _ROOM_SETTINGS.c.rated).where(_ROOM_SETTINGS.c.room_id.in_(_IDS))
_RATINGS_OF = select(_RATINGS.c.user_id, _RATINGS.c.mu, _RATINGS.c.sigma, _RATINGS.c.games).where(
    _RATINGS.c.ladder == bindparam("ladder"), _RATINGS.c.user_id.in_(bindparam("users", expanding=True))
)
_LAST_TAKEN = (
    select(_RATED.c.finished_at, _RATED.c.table_id)
    .order_by(_RATED.c.finished_at.desc(), _RATED.c.table_id.desc())
    .limit(1)
)
_RATING_MOVED = (
    update(_RATINGS)
    .where(_RATINGS.c.ladder == bindparam("l"), _RATINGS.c.user_id == bindparam("u"))
    .values(mu=bindparam("m"), sigma=bindparam("s"), games=bindparam("g"), updated_at=bindparam("a"))
)
_HISTORY_ADDED = insert(_HISTORY)
_RATING_ADDED = insert(_RATINGS)
_TAKEN_IN = insert(_RATED)
_MARKED = update(TABLES).where(TABLES.c.id.in_(_IDS)).values(in_ratings=bindparam("in_ratings"))


Key = tuple[int, int]  # (ladder, user)


class _Ladders:
    """The ratings a take-in reads and moves: each (ladder, player) read once, moved in memory (a game
    sees what the games before it left), its history rows and the final ratings written in a few
    statements."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.now: dict[Key, Rating] = {}
        self.stored: set[Key] = set()  # rows in the table before this take-in
        self.read: set[Key] = set()
        self.moved: dict[Key, tuple[float, bool]] = {}  # key -> (updated_at, robot: a new row's flag)
        self.history: list[dict[str, object]] = []

    def load(self, keys: set[Key]) -> None:
        wanted: dict[int, set[int]] = defaultdict(set)
        for ladder, user in keys - self.read:
            wanted[ladder].add(user)
        for ladder, users in wanted.items():
            ordered = sorted(users)
            for first in range(0, len(ordered), _IDS_PER_STATEMENT):
                some = {"ladder": ladder, "users": ordered[first : first + _IDS_PER_STATEMENT]}
                for row in self.session.execute(_RATINGS_OF, some).all():
                    key = (ladder, int(row[0]))
                    self.now[key] = Rating(float(row[1]), float(row[2]), int(row[3]))
                    self.stored.add(key)
            self.read |= {(ladder, user) for user in users}

    def rate(self, ladder: int, game: Rateable, settled: _Settled) -> None:
        rated, levels = game
        before: dict[Hashable, Rating] = {
            user: self.now[(ladder, user)] if (ladder, user) in self.now else initial_rating(level)
            for user, level in levels.items()
        }
        after = rate_pulya(before, rated)
        for user, level in levels.items():
            key, new = (ladder, user), after[user]
            self.now[key] = new
            robot = self.moved[key][1] if key in self.moved else level is not None
            self.moved[key] = (settled.finished_at, robot)
            self.history.append({"ladder": ladder, "user_id": user, "table_id": settled.table_id,
                                 "mu": new.mu, "sigma": new.sigma, "games": new.games,
                                 "at": settled.finished_at})  # fmt: skip

    def write_history(self) -> None:
        if self.history:
            self.session.execute(_HISTORY_ADDED, self.history)
            self.history = []

    def write_ratings(self) -> None:
        made, kept = [], []
        for (ladder, user), (at, robot) in self.moved.items():
            rating = self.now[(ladder, user)]
            if (ladder, user) in self.stored:
                kept.append(
                    {"l": ladder, "u": user, "m": rating.mu, "s": rating.sigma, "g": rating.games, "a": at}
                )
            else:
                made.append({"ladder": ladder, "user_id": user, "mu": rating.mu, "sigma": rating.sigma,
                             "games": rating.games, "robot": robot, "updated_at": at})  # fmt: skip
        if made:
            self.session.execute(_RATING_ADDED, made)
        if kept:
            self.session.execute(_RATING_MOVED, kept)
        self.stored |= set(self.moved)
        self.moved = {}


def _take_in(session: Session, games: list[_Settled], decided: dict[int, bool]) -> int:
    """Rate ``games``, in the order given, on their rooms' ladders and the site's, and record each as taken
    in (`RatedGame`, `GameTable.in_ratings`). ``decided`` repeats an earlier decision about a game (a
    rebuild's, a replay's: counted or not); the others are decided now (`_rateable`, `_rooms_rated`).
    Returns how many counted. Read and written `_IDS_PER_STATEMENT` games at a time, a few statements
    each: the same code for a pass, a replay and a rebuild, so their ladders are equal by construction."""
    ladders = _Ladders(session)
    counted = 0
    for first in range(0, len(games), _IDS_PER_STATEMENT):
        chunk = games[first : first + _IDS_PER_STATEMENT]
        asked = [g for g in chunk if decided.get(g.table_id) is not False]
        rateable = _rateable(session, [g.table_id for g in asked]) if asked else {}
        rooms = _rooms_rated(session, {g.room_id for g in asked if g.table_id not in decided})
        ladders.load({(ladder, user) for g in asked if g.table_id in rateable
                      for ladder in (g.room_id, SITE) for user in rateable[g.table_id][1]})  # fmt: skip
        taken: list[dict[str, object]] = []
        now = time.time()
        for settled in chunk:
            known = decided.get(settled.table_id)
            game = rateable.get(settled.table_id) if known is not False else None
            counts = rooms.get(settled.room_id, True) if known is None else known
            if counts and game is not None:
                for ladder in (settled.room_id, SITE):
                    ladders.rate(ladder, game, settled)
                counted += 1
            else:
                counts = False
            taken.append({"table_id": settled.table_id, "finished_at": settled.finished_at,
                          "counted": counts, "rated_at": now})  # fmt: skip
        ladders.write_history()
        session.execute(_TAKEN_IN, taken)
        _taken(session, [settled.table_id for settled in chunk], True)
    ladders.write_ratings()
    return counted


def _taken(session: Session, table_ids: list[int], taken: bool) -> None:
    """Mark games taken in (their `RatedGame` rows added) or no longer (the rows deleted for a replay):
    `GameTable.in_ratings`, which keeps them out of the index of the games a pass looks for."""
    for first in range(0, len(table_ids), _IDS_PER_STATEMENT):
        chunk = table_ids[first : first + _IDS_PER_STATEMENT]
        session.execute(_MARKED, {"ids": chunk, "in_ratings": True if taken else None})


_IDS_PER_STATEMENT = 500  # ids in one statement: SQLite's older builds take at most 999 parameters


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
    games = [_Settled(int(t), int(r), float(f or 0.0)) for t, r, f in rows.all()]
    return _take_in(session, games, decided)


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
            # Read afresh: the ratings are written through Core, so one this session held may be stale.
            row = session.get(PlayerRating, (ladder, user_id), populate_existing=True)
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
    _take_in(session, [_Settled(int(t), int(r), float(f or 0.0)) for t, r, f in rows.all()], decided)
    return decided


def _rate_settled(session: Session, limit: int | None = None) -> int:
    """Take in the games settled since the last call, in order (a replay from the earliest of them when
    it is late, see the module's docstring), the ``limit`` earliest of them if given (a replay takes in every
    game after the late one: it is rare, and a ladder must not be left half replayed); the caller commits.
    Returns how many games were taken in (a replay: the pending ones it was started with)."""
    session.flush()  # the reads below are Core: they see what the caller's session holds unflushed
    pending = _pending(session, limit)
    if not pending:
        return 0
    last = _last_taken(session)
    if last is not None and (pending[0].finished_at, pending[0].table_id) < last:
        log.info("ratings: game %d settled out of order; replaying the ladders from it", pending[0].table_id)
        _replay_from(session, pending[0])
        return len(pending)
    # Read and computed first, then written in a few statements: on SQLite the one write lock is held for
    # those alone, not across every game's reads.
    _take_in(session, pending, {})
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
