"""The ladders in the database (`app.server.ratings`): a provisional game (awaiting an award) changes no
rating until the award settles it; then the ladders are exactly a rebuild's, with the late game in its
place by finishing time."""

from __future__ import annotations

import asyncio
import itertools
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade
from app.db.models import DealRecord, GameTable, PlayerRating, RatedGame, RatingChange, Room, TableSeat, User
from app.server.ratings import SITE, ladder, rate_settled, rebuild, run_ratings
from app.server.ratings.ladder import GAMES_PER_PASS
from tests.conftest import database_for
from tests.server.helpers import poll_until


def _settlement(exact: list[int]) -> dict[str, Any]:
    texts = [str(v) for v in exact]
    return {"rounding": "none", "result": exact, "sum": 0, "variant1": exact, "variant2": exact,
            "exact": texts, "money": texts, "mountains": [0, 0, 0]}  # fmt: skip


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[tuple[AsyncEngine, async_sessionmaker[AsyncSession]]]:
    """A migrated SQLite database: its engine and sessions."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'l.db'}"
    await asyncio.to_thread(upgrade, url)
    engine = make_engine(url)
    try:
        yield engine, make_sessionmaker(engine)
    finally:
        await engine.dispose()


async def _game(
    session: AsyncSession, room: int, users: list[int], exact: list[int], *, at: float, status: str
) -> GameTable:
    table = GameTable(room_id=room, seats=3, conventions={"pool_size": 10}, status=status, created_at=at,
                      started_at=at, finished_at=at, finish_reason="pool_complete")  # fmt: skip
    table.settlement = _settlement(exact)
    session.add(table)
    await session.flush()
    for seat, user in enumerate(users):
        session.add(TableSeat(table_id=table.id, seat=seat, user_id=user))
    session.add(DealRecord(table_id=table.id, deal_number=1, result={"type": "allpass"}, record={}, at=at))
    await session.flush()
    return table


async def _four_players_and_a_room(session: AsyncSession) -> tuple[int, int, int, int, int]:
    """Players a, b, c, d and a room of an operator's: their ids and the room's."""
    now = time.time()
    users = []
    for name in ("a", "b", "c", "d"):
        user = User(name=name, name_key=name, password_hash="x", role="player", created_at=now)
        session.add(user)
        await session.flush()
        users.append(user.id)
    op = User(name="op", name_key="op", password_hash="x", role="operator", created_at=now)
    session.add(op)
    await session.flush()
    room = Room(name="r", operator_id=op.id, preset="p", overrides={}, conventions={}, created_at=now)
    session.add(room)
    await session.flush()
    a, b, c, d = users
    return a, b, c, d, room.id


async def _rated_games(sessions: async_sessionmaker[AsyncSession], count: int) -> None:
    """Waits until ``count`` games are taken into the ladders (by the background loop)."""

    async def taken() -> bool | None:
        async with sessions() as session:
            return True if len((await _ladders(session))[2]) == count else None

    await poll_until(taken, f"{count} games taken in", timeout=30)


async def _ladders(session: AsyncSession) -> tuple[list[Any], list[Any], list[Any]]:
    ratings = (
        await session.execute(select(PlayerRating).order_by(PlayerRating.ladder, PlayerRating.user_id))
    ).scalars()
    changes = (
        await session.execute(
            select(RatingChange).order_by(RatingChange.ladder, RatingChange.user_id, RatingChange.at)
        )
    ).scalars()
    games = (await session.execute(select(RatedGame).order_by(RatedGame.table_id))).scalars()
    return (
        [(r.ladder, r.user_id, r.mu, r.sigma, r.games, r.robot) for r in ratings],
        [(c.ladder, c.user_id, c.table_id, c.mu, c.sigma, c.games, c.at) for c in changes],
        [(g.table_id, g.finished_at, g.counted) for g in games],
    )


async def test_a_provisional_game_waits_for_its_award_and_then_the_ladders_equal_a_rebuild(
    database: tuple[AsyncEngine, async_sessionmaker[AsyncSession]],
) -> None:
    _, sessions = database
    async with sessions() as session:
        a, b, c, d, room_id = await _four_players_and_a_room(session)
        # Game 1 finished first but awaits an award; game 2 (a, b, d) is settled.
        first = await _game(
            session, room_id, [a, b, c], [30, 0, -30], at=10.0, status="awaiting_adjudication"
        )
        await _game(session, room_id, [a, b, d], [-20, 10, 10], at=20.0, status="finished")
        await session.commit()

        assert await rate_settled(session) == 1
        await session.commit()
        ratings, changes, _ = await _ladders(session)
        assert {r[1] for r in ratings} == {a, b, d}  # c played only the provisional game: no rating
        assert {ch[2] for ch in changes} == {first.id + 1}
        assert await rate_settled(session) == 0  # nothing new

        # The award settles game 1: it joins in its place (before game 2), by a replay of every ladder.
        first.status = "finished"
        await session.commit()
        assert await rate_settled(session) == 1
        await session.commit()
        live = await _ladders(session)
        assert {r[1] for r in live[0] if r[0] == SITE} == {a, b, c, d}
        a_site = [ch for ch in live[1] if ch[0] == SITE and ch[1] == a]
        assert [ch[2] for ch in a_site] == [first.id, first.id + 1]  # in finishing order

        await rebuild(session)
        await session.commit()
        assert await _ladders(session) == live


async def test_a_pass_reads_everything_before_its_first_write_and_equals_a_rebuild(
    database: tuple[AsyncEngine, async_sessionmaker[AsyncSession]],
) -> None:
    """Issue 24: on SQLite a pass that wrote a game's rows as it took it in held the database's one write
    lock across the rest of the pass, and no table's step could be stored meanwhile. A pass now reads and
    computes every game first — players meeting again in a later game of the same pass, their first
    ratings still unwritten, included — then writes in a few statements and commits; the ladders are a
    rebuild's."""
    engine, sessions = database
    statements: list[str] = []

    def on_execute(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement.lstrip().split(None, 1)[0].upper())

    async with sessions() as session:
        a, b, c, d, room_id = await _four_players_and_a_room(session)
        # Three games settled before the pass; a and b play all three, c and d first meet in them.
        await _game(session, room_id, [a, b, c], [30, 0, -30], at=10.0, status="finished")
        await _game(session, room_id, [a, b, d], [-20, 10, 10], at=20.0, status="finished")
        await _game(session, room_id, [c, b, a], [5, 5, -10], at=30.0, status="finished")
        await session.commit()

        event.listen(engine.sync_engine, "before_cursor_execute", on_execute)
        assert await rate_settled(session) == 3
        writes = [i for i, s in enumerate(statements) if s in ("INSERT", "UPDATE", "DELETE")]
        assert writes, statements
        # The write lock is taken at the first write: every read came before it, and the writes are few
        # (the history, the games taken in, their flags, the new ratings and the moved ones).
        assert all(s in ("INSERT", "UPDATE", "DELETE") for s in statements[writes[0] :]), statements
        assert len(writes) <= 5, statements
        await session.commit()
        event.remove(engine.sync_engine, "before_cursor_execute", on_execute)
        live = await _ladders(session)
        site = {r[1]: r[4] for r in live[0] if r[0] == SITE}
        assert site == {a: 3, b: 3, c: 2, d: 1}  # one rating row a player, each game counted once
        assert len(live[2]) == 3

        await rebuild(session)
        await session.commit()
        assert await _ladders(session) == live


async def test_passes_of_a_few_games_take_them_in_order_and_the_loop_takes_in_all(
    database: tuple[AsyncEngine, async_sessionmaker[AsyncSession]],
) -> None:
    """Issue 24: the background loop's pass takes in at most `GAMES_PER_PASS` games (a hundred games ending
    together made one pass of 200 ms); the next pass follows after a short rest, not the interval. Passes
    of two games take in the earliest first, and the ladders are a rebuild's; the loop itself takes in
    every game."""
    engine, sessions = database
    async with sessions() as session:
        a, b, c, d, room_id = await _four_players_and_a_room(session)
        # Made out of finishing order: passes go by finishing time, not by id.
        late = await _game(session, room_id, [c, b, a], [5, 5, -10], at=30.0, status="finished")
        first = await _game(session, room_id, [a, b, c], [30, 0, -30], at=10.0, status="finished")
        second = await _game(session, room_id, [a, b, d], [-20, 10, 10], at=20.0, status="finished")
        await session.commit()

        assert await rate_settled(session, 2) == 2
        await session.commit()
        assert [g[0] for g in (await _ladders(session))[2]] == sorted([first.id, second.id])
        assert await rate_settled(session, 2) == 1
        await session.commit()
        live = await _ladders(session)
        assert [g[0] for g in live[2]] == sorted([first.id, second.id, late.id])
        await rebuild(session)
        await session.commit()
        assert await _ladders(session) == live

        for n in range(3):  # three more games (six in all) for the loop: passes of two at most
            await _game(session, room_id, [d, c, b], [1, 0, -1], at=40.0 + n, status="finished")
        await session.commit()
    assert GAMES_PER_PASS < 3
    task = asyncio.create_task(run_ratings(sessions, 3600.0, engine))
    try:  # the interval is an hour: only passes that follow after their rest can do it
        await _rated_games(sessions, 6)
    finally:
        task.cancel()
        await asyncio.wait({task})


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def either_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated database on SQLite and on PostgreSQL."""
    url = database_for(request, tmp_path)
    upgrade(url)
    return url


async def test_the_background_passes_run_off_the_servers_loop_on_either_database(
    either_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 24: a pass's work (reading, rating, writing each game: about 10 ms a game) runs in the ratings
    thread, on PostgreSQL as on SQLite; on the loop it held every table's acks and timeouts behind it."""
    engine = make_engine(either_url)
    sessions = make_sessionmaker(engine)
    passes: list[int] = []

    def recorded(session: Any, limit: int | None = None) -> int:
        passes.append(threading.get_ident())
        return rate_settled_in(session, limit)

    rate_settled_in = ladder._rate_settled
    monkeypatch.setattr(ladder, "_rate_settled", recorded)
    async with sessions() as session:
        a, b, c, _, room_id = await _four_players_and_a_room(session)
        for n in range(3):
            await _game(session, room_id, [a, b, c], [n, 0, -n], at=10.0 + n, status="finished")
        await session.commit()
    task = asyncio.create_task(run_ratings(sessions, 3600.0, engine))
    try:  # the interval is an hour: the first pass and the one that follows after its rest
        await _rated_games(sessions, 3)
    finally:
        task.cancel()
        await asyncio.wait({task})
        await engine.dispose()
    assert len(passes) >= 2 and threading.get_ident() not in passes


async def _a_burst_taken_in(
    database: tuple[AsyncEngine, async_sessionmaker[AsyncSession]],
    monkeypatch: pytest.MonkeyPatch,
    interval: float,
    starts: list[float],
) -> None:
    """Three full passes' worth of settled games taken in by the background loop, each pass made to take
    at least 50 ms; ``starts`` gets each pass's start (monotonic)."""
    engine, sessions = database

    def slow(session: Any, limit: int | None = None) -> int:
        starts.append(time.monotonic())
        time.sleep(0.05)
        return rate_settled_in(session, limit)

    rate_settled_in = ladder._rate_settled
    monkeypatch.setattr(ladder, "_rate_settled", slow)
    async with sessions() as session:
        a, b, c, _, room_id = await _four_players_and_a_room(session)
        for n in range(3 * GAMES_PER_PASS):
            await _game(session, room_id, [a, b, c], [n, 0, -n], at=10.0 + n, status="finished")
        await session.commit()
    task = asyncio.create_task(run_ratings(sessions, interval, engine))
    try:
        await _rated_games(sessions, 3 * GAMES_PER_PASS)
    finally:
        task.cancel()
        await asyncio.wait({task})


async def test_while_games_wait_each_pass_is_followed_by_a_rest_three_times_as_long(
    database: tuple[AsyncEngine, async_sessionmaker[AsyncSession]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A burst of settled games is taken in with rests between the passes, so the passes' thread has at
    most a quarter of the interpreter meanwhile: each pass here takes at least 50 ms, so the next one starts
    at least 200 ms after it began (a busy machine only makes the gaps longer)."""
    starts: list[float] = []
    # Three full passes, then one that finds nothing more; the interval (an hour) is never waited.
    await _a_burst_taken_in(database, monkeypatch, 3600.0, starts)
    assert len(starts) >= 3
    assert all(later - earlier >= 0.2 for earlier, later in itertools.pairwise(starts))


async def test_a_rest_after_a_pass_is_never_longer_than_the_interval(
    database: tuple[AsyncEngine, async_sessionmaker[AsyncSession]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pass that took long (here at least 50 ms, so three times that is 150 ms) rests the interval
    (100 ms) at most: the games settled meanwhile are not held back longer than without the rests."""
    interval = 0.1
    rests: list[float] = []
    real_sleep = asyncio.sleep

    async def recorded(delay: float, result: Any = None) -> Any:
        if sys._getframe(1).f_globals.get("__name__") == ladder.__name__:
            rests.append(delay)
        return await real_sleep(delay, result)

    monkeypatch.setattr(asyncio, "sleep", recorded)
    await _a_burst_taken_in(database, monkeypatch, interval, [])
    assert len(rests) >= 2  # after the first two full passes at least (the third may be cancelled)
    assert max(rests) == interval, rests
