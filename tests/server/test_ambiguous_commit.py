"""A commit stored but never answered, over the wire (issue 13 item 11, third point): the server talks to
its own PostgreSQL through a relay (`tests.server.pg_proxy`) that loses the reply to one COMMIT of the
action log, so the server hears "connection closed" about a step the database holds. The tables reread
themselves (every client gets a snapshot), go on, and every acknowledged action is in the log once.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bots.client import TableClient, play_table, random_chooser
from tests.server import test_database_outage as outage
from tests.server.conftest import OPERATOR, ServerProcess, _server, login, new_player
from tests.server.pg_cluster import PgCluster, cluster_or_fail
from tests.server.pg_proxy import PgProxy

TABLES = 2


@pytest.fixture
def cluster() -> Iterator[PgCluster]:
    yield from cluster_or_fail()


@pytest.fixture
def proxy(cluster: PgCluster) -> Iterator[PgProxy]:
    relay = PgProxy(cluster.port)
    relay.start()
    try:
        yield relay
    finally:
        relay.close()


@pytest.fixture
def outage_server(proxy: PgProxy, tmp_path: Path) -> Iterator[ServerProcess]:
    yield from _server(f"postgresql+asyncpg://postgres@127.0.0.1:{proxy.port}/postgres", tmp_path)


async def test_a_commit_whose_reply_is_lost_is_read_back_and_the_tables_go_on(
    proxy: PgProxy, outage_server: ServerProcess
) -> None:
    server = outage_server
    players = [await new_player(server) for _ in range(3)]
    user_ids = [(await api.call("GET", "/api/auth/me"))["id"] for api in players]
    clients: list[list[TableClient]] = []
    tasks: list[asyncio.Task[object]] = []
    try:
        operator = await login(server, OPERATOR)
        room = await operator.create_room("ambiguous", outage.CONVENTIONS)
        tables = [(await operator.open_table(room["id"], 3))["id"] for _ in range(TABLES)]
        await operator.close()
        clients = await outage.seat_and_connect(players, tables)
        logs = [outage.TableLog() for _ in tables]
        rng = random.Random(11)
        choosers = [[random_chooser(random.Random(rng.random())) for _ in range(3)] for _ in tables]
        tasks = [
            asyncio.create_task(
                play_table(client, choosers[t][seat], observe=outage._observer(seat, logs[t]))
            )
            for t, row in enumerate(clients)
            for seat, client in enumerate(row)
        ]
        await asyncio.sleep(2.0)
        assert all(log.newest_v() > 10 for log in logs), "the bots did not play"

        proxy.cut_next_commit.set()
        assert await asyncio.to_thread(proxy.cut.wait, 10), "no commit of the action log was cut"
        cut_at = time.monotonic()
        versions = [log.newest_v() for log in logs]
        await asyncio.sleep(4.0)

        # The table that lost the reply read itself back and told its clients (a snapshot each).
        assert any(o.kind == "snapshot" and o.at > cut_at for log in logs for o in log.seen)
        for t, log in enumerate(logs):
            assert log.newest_v() >= versions[t] + 10, f"table {tables[t]} did not go on after the lost reply"

        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await outage.assert_acked_stored_once(server, tables, user_ids, logs)
    finally:
        await outage.close_all(tasks, clients, players)
