"""``python -m app serve --workers 2`` (issue 14 §6): two worker processes share the tables.

Tables are placed on both workers; players reach each table's owner however they land (the ticket names
the owner; a socket at the wrong worker is closed with 4307 and the owner's URL; table REST calls are
forwarded); every seat of a table sees the same game (one process runs it); kill -9 of a worker: the
supervisor starts it again in its slot, it takes its predecessor's tables and they play on to the end.
"""

from __future__ import annotations

import asyncio
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
from sqlalchemy import select

from app.bots.client import Api, ApiError, TableClient, play_table, random_chooser
from app.db.engine import make_engine
from app.db.models import GameTable
from tests.server.conftest import Workers, database_for, new_player, run_workers
from tests.server.helpers import Table, fresh_snapshot, open_table, play_out

TABLES = 4
OVERRIDES = {"pool_size": 2, "deal_time": 60, "reserve_time": 60}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workers]:
    yield from run_workers(database_for(request, tmp_path), tmp_path)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def short_lease_workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workers]:
    """Workers presumed dead 5 s after their last heartbeat (the hung-worker test waits for that)."""
    yield from run_workers(database_for(request, tmp_path), tmp_path, lease=5)


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


def test_a_hung_worker_loses_its_tables_and_lets_go_when_it_wakes(short_lease_workers: Workers) -> None:
    """SIGSTOP a worker (alive, not answering, its heartbeat stale): after the lease the other worker
    takes its table over and the game goes on there; when the hung one wakes it unloads the table (its
    row names another owner) and closes that table's sockets with 4307. The table is never run by two."""
    workers = short_lease_workers

    async def scenario() -> None:
        server = workers.server
        boots = {workers.health(slot)["boot"]: slot for slot in range(2)}
        tables = [await open_table(server, 3, OVERRIDES) for _ in range(2)]
        try:
            owners = await _owners(server.database_url)
            table = next(t for t in tables if boots[owners[t.id] or ""] == 0)
            hung = workers.health(0)
            live_port = workers.ports[1]
            await _play_some([table], 4)
            # A socket the hung worker keeps: without the client's keepalive, which would itself give up
            # on a worker that cannot answer its pings for the whole hang (20 to 40 s on a loaded machine).
            await table.clients[0].close()
            url = await table.players[0].ws_url(table.id)
            stale = await websockets.connect(url, ping_interval=None, open_timeout=30)
            assert stale.remote_address[1] == workers.ports[0]
            os.kill(int(hung["pid"]), signal.SIGSTOP)
            try:
                deadline = time.monotonic() + 60
                while (await _owners(server.database_url))[table.id] == hung["boot"]:
                    assert time.monotonic() < deadline, "the table was not taken over"
                    await asyncio.sleep(0.25)
                assert (await _owners(server.database_url))[table.id] == workers.health(1)["boot"]
                # The players carry on through the live worker (the public port may hand a new
                # connection to the hung one, whose queue waits: its own port does not).
                apis = [Api(f"http://127.0.0.1:{live_port}", p.token) for p in table.players[:3]]
                for client in table.clients:
                    await client.close()
                table.clients = [api.table(table.id) for api in apis]
                for client in table.clients:
                    await client.connect()
                    assert client.ws.remote_address[1] == live_port
                before = await _play_versions(table, 4)
            finally:
                os.kill(int(hung["pid"]), signal.SIGCONT)
            # Woken, the old owner lets go: the socket it still had is closed with 4307.
            with pytest.raises(websockets.ConnectionClosed) as closed:
                async with asyncio.timeout(20):
                    while True:
                        await stale.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4307
            assert (await _owners(server.database_url))[table.id] == workers.health(1)["boot"]
            finals = await play_out(table, seed=9, timeout=120)
            assert {f["status"] for f in finals} == {"finished"} and finals[0]["v"] > before
            assert workers.health(0)["boot"] == hung["boot"]  # alive all along, never restarted
            for api in apis:
                await api.close()
        finally:
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
