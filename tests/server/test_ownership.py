"""Table ownership between worker processes (cluster.ownership): the claim is one compare-and-set, so
two processes racing for the same tables never both win; a live owner's tables are not claimable, a dead
one's (heartbeat older than the lease) are; signed tickets verify anywhere and redeem once."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import insert, select, update

from app.db.engine import is_sqlite, make_engine, make_sessionmaker
from app.db.models import GameTable, Room, ServerState, User, WorkerSlot
from app.server.accounts.sessions import SignedTickets, redeem_signed
from app.server.cluster.ownership import PLACING_S, Cluster
from app.server.storage import HEARTBEAT_PREFIX
from app.server.timebase import wall_ms

N = 40


@pytest.fixture
def database(migrated_database: str) -> str:
    return migrated_database


def _ctx(url: str) -> Any:
    """What ownership reads of the server's context, made as the app makes it for several workers."""
    engine = make_engine(url)
    autocommit = make_engine(url, 2, 2, autocommit=True) if is_sqlite(url) else None
    return SimpleNamespace(sessions=make_sessionmaker(engine), engine=engine, autocommit=autocommit,
                           writer=SimpleNamespace(engine=engine), heartbeats={}, tables={})  # fmt: skip


async def _close(ctx: Any) -> None:
    await ctx.engine.dispose()
    if ctx.autocommit is not None:
        await ctx.autocommit.dispose()


def _cluster(slot: int, boot: str) -> Cluster:
    return Cluster(
        slot=slot, workers=2, boot=boot, address=f"127.0.0.1:{9000 + slot}", lease_ms=60_000, interval=1
    )


async def _setup(ctx: Any, owners: dict[str, int]) -> None:
    """Tables owned by the given boots (a heartbeat age in ms each; -1: no owner)."""
    async with ctx.sessions() as session, session.begin():
        session.add(User(id=1, name="op", name_key="op", password_hash="x", role="operator", created_at=0.0))
    async with ctx.sessions() as session, session.begin():
        session.add(
            Room(id=1, name="r", operator_id=1, preset="p", overrides={}, conventions={}, created_at=0.0)
        )
    async with ctx.sessions() as session, session.begin():
        table_id = 0
        for boot, age in owners.items():
            if age >= 0:
                await session.execute(
                    insert(ServerState).values(key=HEARTBEAT_PREFIX + boot, value=str(wall_ms() - age))
                )
            for _ in range(N):
                table_id += 1
                session.add(GameTable(id=table_id, room_id=1, seats=3, conventions={}, first_dealer=0,
                                      status="waiting", version=0, created_at=0.0,
                                      owner=boot if age != -1 else None))  # fmt: skip


async def _owners(ctx: Any) -> dict[int, str | None]:
    async with ctx.sessions() as session:
        return dict((await session.execute(select(GameTable.id, GameTable.owner))).all())


def test_two_processes_racing_for_tables_never_both_win(database: str) -> None:
    async def scenario() -> None:
        ctx_a, ctx_b = _ctx(database), _ctx(database)
        try:
            # 40 tables of a dead worker (last beat ten minutes ago; the lease is a minute), 40 of a live one.
            await _setup(ctx_a, {"dead": 600_000, "alive": 100})
            a, b = _cluster(0, "boot-a"), _cluster(1, "boot-b")
            await _beat(ctx_a, "boot-a")  # both racers are alive (real workers beat every second)
            await _beat(ctx_a, "boot-b")
            ids = list(range(1, 2 * N + 1))
            results_a, results_b = await asyncio.gather(
                asyncio.gather(*(a.claim(ctx_a, t) for t in ids)),
                asyncio.gather(*(b.claim(ctx_b, t) for t in ids)),
            )
            owners = await _owners(ctx_a)
            for table_id, won_a, won_b in zip(ids, results_a, results_b, strict=True):
                if table_id <= N:  # the dead worker's: exactly one of the two took each
                    assert won_a != won_b, table_id
                    assert owners[table_id] == ("boot-a" if won_a else "boot-b")
                else:  # the live worker's: nobody may take them
                    assert not won_a and not won_b
                    assert owners[table_id] == "alive"
            # The owner claims its own again freely; the loser cannot take it from a live winner.
            winner = a if results_a[0] else b
            loser, loser_ctx = (b, ctx_b) if winner is a else (a, ctx_a)
            assert await winner.claim(ctx_a, 1)
            assert not await loser.claim(loser_ctx, 1)
        finally:
            await _close(ctx_a)
            await _close(ctx_b)

    asyncio.run(scenario())


async def _beat(ctx: Any, boot: str) -> None:
    async with ctx.sessions() as session, session.begin():
        await session.execute(insert(ServerState).values(key=HEARTBEAT_PREFIX + boot, value=str(wall_ms())))


def test_new_tables_go_to_the_least_busy_live_worker(database: str) -> None:
    async def scenario() -> None:
        ctx = _ctx(database)
        try:
            await _setup(ctx, {"nobody": -1})
            a, b = _cluster(0, "boot-a"), _cluster(1, "boot-b")
            await _beat(ctx, "boot-a")
            await _beat(ctx, "boot-b")
            async with ctx.sessions() as session, session.begin():
                for slot, boot in ((0, "boot-a"), (1, "boot-b")):
                    await session.execute(
                        insert(WorkerSlot).values(
                            slot=slot, boot=boot, address=f"127.0.0.1:{9000 + slot}", started_at=time.time()
                        )
                    )
            placed = [await (a if t % 3 else b).place(ctx, t) for t in range(1, 11)]
            # Whoever places it, each new table goes to the one with fewer: they alternate.
            assert placed.count("boot-a") == 5 and placed.count("boot-b") == 5
            # A placed table is not placed again (the compare-and-set sees an owner).
            assert await b.place(ctx, 1) == placed[0]
        finally:
            await _close(ctx)

    asyncio.run(scenario())


def test_a_table_being_placed_is_left_to_its_placement_by_every_tick(database: str) -> None:
    """A new table is nobody's between its insert and `Cluster.place`: no worker's tick adopts it then (its
    slot's worker took it, and two new tables could both end on one worker); one nobody took for longer is
    adopted by its slot's worker as before."""

    async def scenario() -> None:
        ctx = _ctx(database)
        try:
            await _setup(ctx, {"nobody": -1})  # ids 1-40, created long ago
            # 41 and 42 being placed now; 43 nobody took for just over PLACING_S.
            created = {41: time.time(), 42: time.time(), 43: time.time() - PLACING_S - 1}
            async with ctx.sessions() as session, session.begin():
                session.add_all(GameTable(id=t, room_id=1, seats=3, conventions={}, first_dealer=0,
                                          status="waiting", version=0, created_at=at, owner=None)
                                for t, at in created.items())  # fmt: skip
            a, b = _cluster(0, "boot-a"), _cluster(1, "boot-b")
            for cluster in (a, b):
                await _beat(ctx, cluster.boot)
                await cluster.refresh(ctx)
            assert await a.orphans(ctx) == list(range(2, 41, 2))
            assert await b.orphans(ctx) == [*range(1, 41, 2), 43]
            # A worker starting in slot 0 takes its share of the old ones, not the one being placed.
            await a.register(ctx)
            owners = await _owners(ctx)
            assert owners[42] is None and all(owners[t] == "boot-a" for t in range(2, 41, 2))
            # Its placement takes it.
            assert await a.place(ctx, 41) == "boot-a"
        finally:
            await _close(ctx)

    asyncio.run(scenario())


class _Loaded:
    def __init__(self) -> None:
        self.stopped = False

    async def stop(self) -> None:
        self.stopped = True


def test_the_fence_unloads_exactly_the_tables_another_worker_owns(database: str) -> None:
    """Loaded here: tables of this worker, live and finished (a finished one is still watched), and tables
    another worker took over or nobody owns; a tick's fence keeps the first two kinds and unloads the rest,
    however many there are (more than one slice of ids)."""

    async def scenario() -> None:
        ctx = _ctx(database)
        try:
            await _setup(ctx, {"boot-a": 100, "boot-b": 100, "nobody": -1})  # ids 1-40, 41-80, 81-120
            async with ctx.sessions() as session, session.begin():
                await session.execute(
                    update(GameTable).where(GameTable.id % 4 == 0).values(status="finished")
                )
                session.add_all(GameTable(id=t, room_id=1, seats=3, conventions={}, first_dealer=0,
                                          status="playing", version=0, created_at=0.0, owner="boot-b")
                                for t in range(121, 421))  # fmt: skip
            ctx.table_connections = {}
            ctx.tables = {t: _Loaded() for t in range(1, 421)}
            loaded = dict(ctx.tables)
            await _cluster(0, "boot-a").fence(ctx)
            assert sorted(ctx.tables) == list(range(1, N + 1))
            assert [t for t, actor in loaded.items() if actor.stopped] == list(range(N + 1, 421))
        finally:
            await _close(ctx)

    asyncio.run(scenario())


def test_signed_tickets_verify_anywhere_and_redeem_once(database: str) -> None:
    async def scenario() -> None:
        ctx_a, ctx_b = _ctx(database), _ctx(database)
        try:
            issuer, other = SignedTickets("s" * 40, 30), SignedTickets("s" * 40, 30)
            ticket, ttl = issuer.issue(7, 3, time.time() + 3600, 0.0)
            assert ttl == 30
            forged = ticket[:-2] + ("A" if ticket[-2] != "A" else "B") + ticket[-1]
            assert other.verify(forged) is None
            assert SignedTickets("t" * 40, 30).verify(ticket) is None  # another secret
            # Issue 25: non-ASCII text is refused, not a TypeError in compare_digest (a 500).
            for garbled in (ticket[:-1] + "é", "s1.été.€", ticket.replace(".", "\u2024"), "s1.\udc80.x"):
                assert other.verify(garbled) is None
            both = await asyncio.gather(
                redeem_signed(ctx_a, issuer, ticket), redeem_signed(ctx_b, other, ticket)
            )
            redeemed = [t for t in both if t is not None]
            assert len(redeemed) == 1 and redeemed[0].user_id == 7 and redeemed[0].generation == 3
            assert await redeem_signed(ctx_a, issuer, ticket) is None
            expired = SignedTickets("s" * 40, 0.01)
            late, _ = expired.issue(7, 3, time.time() + 3600, 0.0)
            await asyncio.sleep(0.05)
            assert await redeem_signed(ctx_a, expired, late) is None
        finally:
            await _close(ctx_a)
            await _close(ctx_b)

    asyncio.run(scenario())


def test_a_socket_is_sent_to_a_live_owner_and_kept_from_a_dead_ones(database: str) -> None:
    """`locate` (a socket at the wrong worker) and `address_of` (a ticket's URL) read the table's owner
    with its heartbeat as stored now, not as the tick last saw it: a live owner's address, none for a
    dead one's table (this worker will claim it), nor for its own or nobody's."""

    async def scenario() -> None:
        ctx = _ctx(database)
        try:
            await _setup(ctx, {"alive": 100, "dead": 600_000, "nobody": -1})  # tables 1-40, 41-80, 81-120
            here = _cluster(0, "boot-a")
            # The tick's cache knows both others, the dead one as alive (it died since the last tick).
            here.addresses = {"alive": "127.0.0.1:9001", "dead": "127.0.0.1:9002"}
            assert await here.locate(ctx, 1) == "127.0.0.1:9001"
            assert await here.address_of(ctx, 1) == "127.0.0.1:9001"
            assert await here.locate(ctx, N + 1) is None
            assert await here.address_of(ctx, N + 1) is None
            assert await here.locate(ctx, 2 * N + 1) is None  # nobody's: this worker claims it
            assert await here.claim(ctx, 2 * N + 1) and await here.address_of(ctx, 2 * N + 1) == here.address
            assert await here.locate(ctx, 9999) is None  # no such table
            # The alive owner stops beating: its table is this worker's to take, at once.
            async with ctx.sessions() as session, session.begin():
                await session.execute(
                    update(ServerState)
                    .where(ServerState.key == HEARTBEAT_PREFIX + "alive")
                    .values(value=str(wall_ms() - 600_000))
                )
            assert await here.locate(ctx, 1) is None
            assert await here.claim(ctx, 1)
        finally:
            await _close(ctx)

    asyncio.run(scenario())
