"""``python -m app serve --workers 2`` (issue 14 §6): two worker processes share the tables.

Tables are placed on both workers; players reach each table's owner however they land (the ticket names
the owner; a socket at the wrong worker is closed with 4307 and the owner's URL; table REST calls are
forwarded); every seat of a table sees the same game (one process runs it); kill -9 of a worker: the
supervisor starts it again in its slot, it takes its predecessor's tables and they play on to the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import select

from app.bots.client import Api, ApiError, TableClient, play_table, random_chooser
from app.db.engine import make_engine
from app.db.models import GameTable
from tests.conftest import database_for
from tests.server.conftest import Workers, new_player, run_workers
from tests.server.helpers import Table, fresh_snapshot, open_table, play_out
from tests.server.test_hidden_information import card_texts_in

TABLES = 4
OVERRIDES = {"pool_size": 2, "deal_time": 60, "reserve_time": 60}
LEASE = 5.0


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workers]:
    yield from run_workers(database_for(request, tmp_path), tmp_path)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def short_lease_workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workers]:
    """Workers presumed dead 5 s after their last heartbeat (the hung-worker test waits for that)."""
    yield from run_workers(database_for(request, tmp_path), tmp_path, lease=LEASE)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def limited_workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workers]:
    """Workers whose login limit per name refills no attempt within a test (5 at once, then 1 an hour),
    so what the test counts does not depend on how long the password hashes take."""
    env = {"PREFERANS_AUTH_NAME_PER_MINUTE": str(1 / 60)}
    yield from run_workers(database_for(request, tmp_path), tmp_path, extra_env=env)


async def _owners(database_url: str) -> dict[int, str | None]:
    engine = make_engine(database_url)
    try:
        async with engine.connect() as conn:
            return dict((await conn.execute(select(GameTable.id, GameTable.owner))).all())
    finally:
        await engine.dispose()


async def _play_some(tables: list[Table], steps: int) -> None:
    """Bots play every table until its version has grown by ``steps`` (each socket at its owner)."""
    rng = random.Random(5)
    done = asyncio.Event()
    start = {t.id: t.clients[0].version or 0 for t in tables}

    def chooser(table: Table, client: TableClient) -> Any:
        pick = random_chooser(random.Random(rng.random()))

        def choose(legal: list[dict[str, Any]]) -> dict[str, Any] | None:
            if (client.version or 0) >= start[table.id] + steps:
                return None
            return pick(legal)

        return choose

    tasks = [
        asyncio.create_task(play_table(c, chooser(t, c), idle_timeout=60)) for t in tables for c in t.clients
    ]

    async def progress() -> None:
        while not all((t.clients[0].version or 0) >= start[t.id] + steps for t in tables):
            await asyncio.sleep(0.1)
        done.set()

    watcher = asyncio.create_task(progress())
    await asyncio.wait_for(done.wait(), 120)
    async with asyncio.timeout(30):  # the last updates reach every seat
        while any(len({c.version for c in t.clients}) > 1 for t in tables):
            await asyncio.sleep(0.05)
    for task in [*tasks, watcher]:
        task.cancel()
    await asyncio.gather(*tasks, watcher, return_exceptions=True)


async def _scenario(cluster: Workers) -> None:
    server = cluster.server
    boots = {cluster.health(slot)["boot"]: slot for slot in range(2)}
    tables = [await open_table(server, 3, OVERRIDES) for _ in range(TABLES)]
    try:
        owners = await _owners(server.database_url)
        # New tables go to the live worker with the fewest: both run some.
        assert {owners[t.id] for t in tables} == set(boots), owners
        for table in tables:
            owner_port = cluster.ports[boots[owners[table.id] or ""]]
            # Every seat's socket reached the owner, wherever the ticket request landed.
            assert {c.ws.remote_address[1] for c in table.clients} == {owner_port}

        await _play_some(tables, 8)
        for table in tables:
            # One process runs the table: every seat sees the same version.
            assert len({c.version for c in table.clients}) == 1, [c.version for c in table.clients]

        # A socket opened at the other worker's own port is sent to the owner, with the ticket unused.
        table = tables[0]
        owner_slot = boots[owners[table.id] or ""]
        other_port = cluster.ports[1 - owner_slot]
        api = table.players[0]
        ticket = (await api.call("POST", "/api/auth/ws-ticket"))["ticket"]
        async with websockets.connect(
            f"ws://127.0.0.1:{other_port}/ws/tables/{table.id}?ticket={ticket}"
        ) as ws:
            first = await ws.recv()
            assert '"moved"' in str(first)
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4307
        moved = closed.value.rcvd.reason
        assert moved == f"ws://127.0.0.1:{cluster.ports[owner_slot]}/ws/tables/{table.id}"
        async with websockets.connect(f"{moved}?ticket={ticket}") as ws:
            first = await asyncio.wait_for(ws.recv(), 30)
            assert '"snapshot"' in str(first)
        # Single use: the ticket redeemed at the owner is refused there again (the other worker sends any
        # socket of this table on to the owner before it looks at the ticket, so only the owner can say).
        async with websockets.connect(f"{moved}?ticket={ticket}") as ws:
            with pytest.raises(websockets.ConnectionClosed) as again:
                async with asyncio.timeout(30):  # a ticket wrongly taken again gets a snapshot, then waits
                    while True:
                        await ws.recv()
        assert again.value.rcvd is not None and again.value.rcvd.code == 4401

        # A table request at the worker that does not run the table is forwarded to the one that does
        # (only the owner knows who is connected).
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{other_port}") as http:
            got = await http.get(
                f"/api/tables/{table.id}", headers={"Authorization": f"Bearer {api.token}"}, timeout=30
            )
        assert got.status_code == 200, got.text
        assert [p["connected"] for p in got.json()["players"]] == [True, True, True]

        versions = {t.id: t.clients[0].version for t in tables}
        for t in tables:
            for client in t.clients:
                await client.close()

        # kill -9 the worker that owns the first table: the supervisor starts it again in its slot and
        # it takes its predecessor's tables; the other worker's tables are not touched.
        victim = cluster.health(owner_slot)
        os.kill(int(victim["pid"]), signal.SIGKILL)
        fresh = await asyncio.to_thread(cluster.wait_up, owner_slot, victim["boot"])
        after = await _owners(server.database_url)
        for t in tables:
            expected = fresh["boot"] if owners[t.id] == victim["boot"] else owners[t.id]
            assert after[t.id] == expected, (t.id, owners[t.id], after[t.id])

        # Every table resumes where it stopped (nothing acknowledged was lost) and plays to the end.
        for t in tables:
            snapshot, port = await fresh_snapshot(t.players[0], t.id)
            assert snapshot["v"] == versions[t.id]
            assert port == cluster.ports[boots.get(after[t.id] or "", owner_slot)]
            t.clients = [t.players[seat].table(t.id) for seat in range(3)]
            for client in t.clients:
                await client.connect()
        finals = await asyncio.gather(*(play_out(t, seed=t.id, timeout=120) for t in tables))
        for table_finals in finals:
            assert {f["status"] for f in table_finals} == {"finished"}
            assert len({f["v"] for f in table_finals}) == 1
    finally:
        for t in tables:
            await t.close()


def test_two_workers_share_the_tables_and_survive_a_kill(workers: Workers) -> None:
    asyncio.run(_scenario(workers))


def test_a_player_sits_through_either_worker(workers: Workers) -> None:
    async def scenario() -> None:
        operator = Api(workers.server.url)
        await operator.login("operator1", "operator-password")
        room = await operator.create_room("r", OVERRIDES)
        ids = [(await operator.open_table(room["id"], 3))["id"] for _ in range(2)]
        player = await new_player(workers.server)
        try:
            for table_id in ids:  # one of them is owned by each worker; sit through the other one
                for port in workers.ports:
                    direct = Api(f"http://127.0.0.1:{port}", player.token)
                    try:
                        assert await direct.sit(table_id) == 0
                        await direct.call("POST", f"/api/tables/{table_id}/leave")
                        # Unknown and out-of-range ids are refused as with one process, not forwarded.
                        for bad, status in ((999_999, 404), (2**31, 422), (10**12, 422)):
                            with pytest.raises(ApiError) as refused:
                                await direct.call("POST", f"/api/tables/{bad}/sit", {"seat": None})
                            assert refused.value.status == status, refused.value.body
                    finally:
                        await direct.close()
        finally:
            await player.close()
            await operator.close()

    asyncio.run(scenario())


def test_a_hung_worker_is_replaced_and_its_players_go_on(short_lease_workers: Workers) -> None:
    """SIGSTOP a worker (alive, not answering, its heartbeat stale): within the lease its table is taken
    over (by the other worker, or by its successor in its slot); the supervisor sees its heartbeat older
    than the lease and its own port silent, kills it and starts a new process in its slot, so the public
    port, part of which the hung process held, answers every new connection again; the socket it kept is
    gone, and the players reconnect through the public port and play the game to its end."""
    workers = short_lease_workers

    async def scenario() -> None:
        server = workers.server
        boots = {workers.health(slot)["boot"]: slot for slot in range(2)}
        tables = [await open_table(server, 3, OVERRIDES) for _ in range(2)]
        apis: list[Api] = []
        try:
            owners = await _owners(server.database_url)
            table = next(t for t in tables if boots[owners[t.id] or ""] == 0)
            hung = workers.health(0)
            await _play_some([table], 4)
            # A socket the hung worker keeps: without the client's keepalive, which would itself give up
            # on a worker that cannot answer its pings for the whole hang.
            await table.clients[0].close()
            url = await table.players[0].ws_url(table.id)
            stale = await websockets.connect(url, ping_interval=None, open_timeout=30)
            assert stale.remote_address[1] == workers.ports[0]
            pid = int(hung["pid"])
            os.kill(pid, signal.SIGSTOP)
            stopped = time.monotonic()
            try:
                deadline = stopped + 60
                while (await _owners(server.database_url))[table.id] == hung["boot"]:
                    assert time.monotonic() < deadline, "the table was not taken over"
                    await asyncio.sleep(0.25)
                moved_after = time.monotonic() - stopped
                successor = await asyncio.to_thread(workers.wait_up, 0, hung["boot"], 60)
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
            # The lease (5 s) and the tick that notices it; not the 60 s the wait above allows.
            assert moved_after < LEASE + 10, f"taken over {moved_after:.1f} s after the hang"
            with pytest.raises(ProcessLookupError):  # killed and reaped by the supervisor
                os.kill(pid, 0)
            assert successor["pid"] != hung["pid"]
            live = {successor["boot"], workers.health(1)["boot"]}
            assert (await _owners(server.database_url))[table.id] in live
            # The socket the hung worker held is closed (no 4307: its process is gone).
            with pytest.raises(websockets.ConnectionClosed):
                async with asyncio.timeout(20):
                    while True:
                        await stale.recv()
            # Every new connection to the public port is answered (none waits in a hung queue).
            answered = set()
            async with asyncio.timeout(60):
                for _ in range(20):
                    async with httpx.AsyncClient(timeout=10) as fresh:
                        answered.add((await fresh.get(f"{server.url}/api/health")).json()["boot"])
            assert answered <= live
            # The players go on through the public port: each socket is sent to the table's owner.
            apis = [Api(server.url, p.token) for p in table.players[:3]]
            for client in table.clients:
                await client.close()
            table.clients = [api.table(table.id) for api in apis]
            for client in table.clients:
                await client.connect()
            before = await _play_versions(table, 4)
            finals = await play_out(table, seed=9, timeout=120)
            assert {f["status"] for f in finals} == {"finished"} and finals[0]["v"] > before
        finally:
            for api in apis:
                await api.close()
            for t in tables:
                await t.close()

    asyncio.run(scenario())


async def _play_versions(table: Table, steps: int) -> int:
    await _play_some([table], steps)
    assert len({c.version for c in table.clients}) == 1
    return int(table.clients[0].version or 0)


def test_a_room_closed_to_spectators_at_one_worker_closes_them_at_the_other(workers: Workers) -> None:
    async def scenario() -> None:
        server = workers.server
        boots = {workers.health(slot)["boot"]: slot for slot in range(2)}
        operator = Api(server.url)
        await operator.login("operator1", "operator-password")
        room = await operator.create_room("watched", OVERRIDES)
        table_id = (await operator.open_table(room["id"], 3))["id"]
        owner_slot = boots[(await _owners(server.database_url))[table_id] or ""]
        viewer = await new_player(server, "spec")
        watcher = viewer.table(table_id)
        try:
            await watcher.connect()
            assert watcher.ws.remote_address[1] == workers.ports[owner_slot]
            assert (await watcher.receive(timeout=30))["type"] == "snapshot"
            # The operator's change lands on the worker that does not run the table.
            other = Api(f"http://127.0.0.1:{workers.ports[1 - owner_slot]}", operator.token)
            try:
                await other.call(
                    "PATCH", f"/api/operator/rooms/{room['id']}", {"private": True, "spectators": False}
                )
            finally:
                await other.close()
            with pytest.raises(websockets.ConnectionClosed) as closed:
                async with asyncio.timeout(20):
                    while True:
                        await watcher.ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        finally:
            await watcher.close()
            await viewer.close()
            await operator.close()

    asyncio.run(scenario())


def test_login_attempts_counted_at_one_worker_are_refused_at_the_other(limited_workers: Workers) -> None:
    """The login limit per name (5 attempts at once) is one budget for every worker: the
    attempts spent at worker 0's own port leave none at worker 1's, which answers 429 with Retry-After;
    another name still gets its own budget there."""
    workers = limited_workers

    async def scenario() -> None:
        name = f"target{os.getpid()}"
        first = Api(f"http://127.0.0.1:{workers.ports[0]}")
        second = Api(f"http://127.0.0.1:{workers.ports[1]}")
        try:
            await first.register(name, "player-password")
            for _ in range(5):
                with pytest.raises(ApiError) as wrong:
                    await first.login(name, "not-the-password")
                assert wrong.value.status == 401
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{workers.ports[1]}") as raw:
                refused = await raw.post(
                    "/api/auth/login", json={"name": name.upper(), "password": "player-password"}
                )
            assert refused.status_code == 429, refused.text
            assert int(refused.headers["retry-after"]) >= 1
            assert workers.health(1)["worker"] == 1  # the refusal came from the other worker
            other = f"other{os.getpid()}"
            await second.register(other, "player-password")
            assert (await second.login(other, "player-password"))["name"] == other
        finally:
            await first.close()
            await second.close()

    asyncio.run(scenario())


def test_lists_and_metrics_at_either_worker_describe_every_workers_tables(workers: Workers) -> None:
    """Asked at one worker's own port, the lobby's table list and the operator's live list show the
    connections, deal and clocks of the tables the other worker runs (not only the stored seats), and
    ``/metrics`` counts both workers' tables and actions, each series labelled with its worker."""

    async def scenario() -> None:
        server = workers.server
        boots = {workers.health(slot)["boot"]: slot for slot in range(2)}
        tables = [await open_table(server, 3, OVERRIDES) for _ in range(TABLES)]
        try:
            owners = await _owners(server.database_url)
            by_slot = {boots[owners[t.id] or ""]: t for t in tables}
            assert set(by_slot) == {0, 1}, owners
            await _play_some(list(by_slot.values()), 1)  # every client has its table's version
            await _play_some(list(by_slot.values()), 3)  # and the players act at both workers
            for slot, table in by_slot.items():
                other = workers.ports[1 - slot]  # asked where the table does not run
                operator = Api(f"http://127.0.0.1:{other}", table.operator.token)
                try:
                    room_id = (await operator.call("GET", f"/api/tables/{table.id}"))["room_id"]
                    listed = await operator.call("GET", f"/api/rooms/{room_id}/tables")
                    live = await operator.call("GET", f"/api/operator/rooms/{room_id}/live")
                finally:
                    await operator.close()
                # Lists, not hands: no card of the game in progress (RULES.md §12).
                assert card_texts_in(listed) == set() and card_texts_in(live) == set()
                (row,) = [r for r in listed if r["id"] == table.id]
                assert row["status"] == "playing"
                assert [p["connected"] for p in row["players"]] == [True, True, True]
                (row,) = [r for r in live if r["id"] == table.id]
                assert [p["connected"] for p in row["players"]] == [True, True, True]
                assert row["deal"] >= 1 and row["pools"]["target"] == 3 * OVERRIDES["pool_size"]
                assert len(row["clock"]["seats"]) == 3
            async with httpx.AsyncClient(timeout=30) as http:
                text = (await http.get(f"http://127.0.0.1:{workers.ports[1]}/metrics")).text
                refused = await http.get(f"http://127.0.0.1:{workers.ports[0]}/internal/tables?ids=1")
            assert refused.status_code == 403  # the workers' own route, not a client's
            samples = {
                (s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(text)
                for s in family.samples
            }
            for worker in ("0", "1"):
                assert samples[("preferans_worker_up", (("worker", worker),))] == 1.0
                assert samples[("preferans_live_tables", (("status", "playing"), ("worker", worker)))] >= 1
                accepted = (
                    "preferans_actions_total",
                    (("code", ""), ("outcome", "accepted"), ("worker", worker)),
                )
                assert samples.get(accepted, 0) >= 1, text
            # A fact of the database is given once, not once per worker.
            assert [k for k in samples if k[0] == "preferans_interrupted_awaiting_award"] == [
                ("preferans_interrupted_awaiting_award", ())
            ]
        finally:
            for t in tables:
                await t.close()


def test_a_non_ascii_signed_ticket_is_refused_not_a_server_error(workers: Workers) -> None:
    """Issue 25: with several workers a ticket is verified by its signature, and `hmac.compare_digest`
    raised TypeError on non-ASCII text: the handshake failed with a 500 and no login was needed for it."""

    async def scenario() -> None:
        for port in (workers.server.port, *workers.ports):
            url = f"ws://127.0.0.1:{port}/ws/tables/999999?ticket=s1.%C3%A9t%C3%A9.%E2%82%AC"
            async with websockets.connect(url) as ws:
                frame = json.loads(await ws.recv())
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await ws.recv()
            assert frame["code"] == "unauthorized", frame
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401

    asyncio.run(scenario())
