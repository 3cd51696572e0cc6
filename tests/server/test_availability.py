"""Availability under attack (issue 13): while reference bot tables play, one client's resync flood, login
flood, chunked bodies and half-open sockets do not stall them — the tables' ack latency stays bounded
(generous: p99 < 2 s, on a machine that also runs other test workers and a browser; before the fixes these
attacks stalled every table for 18 s and more) and the server's memory stays flat."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.bots.client import Api, TableClient
from tests.server.conftest import OPERATOR, ServerProcess, _server, login, new_player
from tests.server.test_input_limits import chunked_post, rss_bytes

ATTACK_SECONDS = 15.0
FINAL = ("finished", "awaiting_adjudication")
MIN_INTERVAL_S = 0.025  # 40 actions a second per seat at most: under the server's 50 frames/s


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    # Room for the test's own dozen accounts on top of the flood (all from 127.0.0.1).
    env = {"PREFERANS_AUTH_ADDRESS_BURST": "40"}
    yield from _server(f"sqlite+aiosqlite:///{tmp_path / 'a.db'}", tmp_path, env)


async def reference_player(
    client: TableClient, rng: random.Random, latencies: list[float], stop: asyncio.Event
) -> None:
    """Plays random legal actions as fast as the table allows and the rate limit lets a well-behaved client
    (50 frames/s a connection; on a fast machine one seat's turns come faster), timing each ack."""
    pending: int | None = None
    sent_at = 0.0
    acted_on: int | None = None
    while not stop.is_set():
        current = client.last
        if current is not None and current["status"] in FINAL:
            return
        if current is not None and pending is None and current["legal"] and acted_on != client.version:
            acted_on = client.version
            await asyncio.sleep(max(0.0, sent_at + MIN_INTERVAL_S - time.perf_counter()))
            sent_at = time.perf_counter()
            pending = await client.act(rng.choice(current["legal"]))
        try:
            message = await client.receive(timeout=0.5)
        except TimeoutError:
            continue
        if message["type"] == "ack" and message["seq"] == pending:
            latencies.append(time.perf_counter() - sent_at)
            pending = None
        elif message["type"] == "error" and (
            message.get("seq") == pending or message["code"] == "not_your_turn"
        ):
            pending, acted_on = None, None


async def resync_flood(api: Api, table_id: int, stop: asyncio.Event) -> int:
    """Four connections of one user, 45 resyncs a second each (within the 50 frames/s allowed)."""
    clients = [api.table(table_id) for _ in range(4)]
    for client in clients:
        await client.connect()

    async def drain(client: TableClient) -> None:
        with contextlib.suppress(Exception):
            while True:
                await client.ws.recv()

    drains = [asyncio.create_task(drain(c)) for c in clients]
    sent = 0
    try:
        while not stop.is_set():
            for client in clients:
                await client.send({"type": "resync"})
                sent += 1
            await asyncio.sleep(1 / 45)
    finally:
        for task in drains:
            task.cancel()
        for client in clients:
            await client.close()
    return sent


async def login_flood(server: ServerProcess, stop: asyncio.Event) -> int:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        tries = 0
        while not stop.is_set():
            await http.post("/api/auth/login", json={"name": OPERATOR, "password": f"wrong-{tries}"})
            tries += 1
        return tries


async def chunked_flood(server: ServerProcess, stop: asyncio.Event) -> int:
    posts = 0
    while not stop.is_set():
        reply = await asyncio.to_thread(chunked_post, server, "/api/auth/login", 8 << 20)
        assert reply.startswith(b"HTTP/1.1 413"), reply[:100]
        posts += 1
        await asyncio.sleep(0.05)  # a flood (~20 bodies/s), not a busy loop of this test's own CPU
    return posts


def half_open(server: ServerProcess, count: int) -> list[socket.socket]:
    socks = []
    for i in range(count):
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        if i % 2:
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")  # a head that never ends
        socks.append(sock)
    return socks


async def health_latency(server: ServerProcess, stop: asyncio.Event) -> list[float]:
    times = []
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        while not stop.is_set():
            started = time.perf_counter()
            assert (await http.get("/api/health")).status_code == 200
            times.append(time.perf_counter() - started)
            await asyncio.sleep(0.2)
    return times


BOUND_S = 2.0


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] if len(values) >= 2 else max(values)


async def test_attacks_do_not_stall_the_reference_tables(server: ServerProcess) -> None:
    operator = await login(server, OPERATOR)
    # A pulya long enough to outlast the baseline and the attack on a fast machine (200 could end first).
    room = await operator.create_room("reference", {"pool_size": 1000, "deal_time": 60, "reserve_time": 60})
    tables, players, clients = [], [], []
    for _ in range(2):
        table_id = (await operator.open_table(room["id"], 3))["id"]
        tables.append(table_id)
        for seat in range(3):
            api = await new_player(server)
            client = api.table(table_id)
            await client.connect()
            await api.sit(table_id, seat)
            players.append(api)
            clients.append(client)
    attacker = await new_player(server, "attacker")
    stop_play = asyncio.Event()
    rng = random.Random(7)
    baseline: list[float] = []
    loaded: list[float] = []
    sink = [baseline]

    async def play(client: TableClient) -> None:
        # Latencies go to whichever list is current: the baseline, then the attack window.
        local: list[float] = []
        task = asyncio.create_task(reference_player(client, random.Random(rng.random()), local, stop_play))
        seen = 0
        while not task.done():
            await asyncio.sleep(0.05)
            sink[0].extend(local[seen:])
            seen = len(local)
        sink[0].extend(local[seen:])
        await task

    players_done = [asyncio.create_task(play(c)) for c in clients]
    sockets: list[socket.socket] = []
    try:
        await asyncio.sleep(3)
        rss_before = rss_bytes(server)
        sink[0] = loaded
        stop_attack = asyncio.Event()
        sockets = await asyncio.to_thread(half_open, server, 150)
        attacks = [
            asyncio.create_task(resync_flood(attacker, tables[0], stop_attack)),
            *(asyncio.create_task(login_flood(server, stop_attack)) for _ in range(4)),
            asyncio.create_task(chunked_flood(server, stop_attack)),
        ]
        health = asyncio.create_task(health_latency(server, stop_attack))
        await asyncio.sleep(ATTACK_SECONDS)
        stop_attack.set()
        resyncs, *logins, chunked = await asyncio.gather(*attacks)
        health_times = await health
        rss_after = rss_bytes(server)
    finally:
        stop_play.set()
        for sock in sockets:
            sock.close()
        for task in players_done:
            with contextlib.suppress(Exception):
                await task
        for client in clients:
            await client.close()
        for api in [*players, attacker, operator]:
            await api.close()

    summary: dict[str, Any] = {
        "baseline_acks": len(baseline),
        "attack_acks": len(loaded),
        "attack_p99": p99(loaded) if loaded else None,
        "resyncs_sent": resyncs,
        "logins_tried": sum(logins),
        "chunked_posts": chunked,
        "health_p99": p99(health_times),
        "rss_growth_mb": (rss_after - rss_before) / 2**20,
    }
    print(summary)
    assert resyncs > 1000 and sum(logins) > 50 and chunked >= 2, summary
    # The tables kept playing through the attack, each action acknowledged promptly.
    assert len(loaded) >= 100, summary
    assert summary["attack_p99"] < BOUND_S, summary
    assert summary["health_p99"] < BOUND_S, summary
    assert summary["rss_growth_mb"] < 64, summary
