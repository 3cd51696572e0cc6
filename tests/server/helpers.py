"""Helpers shared by the end-to-end tests: seat bots at a fresh table and play it out."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from app.bots.client import Api, Chooser, TableClient, play_table, random_chooser
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player


class CollectingConnection:
    """A viewer's connection for the publishing functions: its seat, and the frames it is sent."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.resync_pending = True
        self.closed = asyncio.Event()
        self.frames: list[str] = []

    def send(self, text: str) -> None:
        self.frames.append(text)


async def until(predicate: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Waits for ``predicate`` on the running loop (fails naming ``what`` after ``timeout`` seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, what
        await asyncio.sleep(0.02)


T = TypeVar("T")


async def poll_until(check: Callable[[], Awaitable[T | None]], what: str, timeout: float = 60.0) -> T:
    """Asks ``check`` (which may query the server) every 0.2 s until it answers something other than None,
    and returns that (fails naming ``what`` after ``timeout`` seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (value := await check()) is None:
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.2)
    return value


@dataclass
class Table:
    id: int
    players: list[Api]
    clients: list[TableClient]
    spectator: TableClient | None
    operator: Api

    async def close(self) -> None:
        for client in [*self.clients, *([self.spectator] if self.spectator else [])]:
            await client.close()
        for api in [*self.players, self.operator]:
            await api.close()


async def open_table(
    server: ServerProcess,
    seats: int,
    overrides: dict[str, Any],
    *,
    record: bool = False,
    spectator: bool = False,
) -> Table:
    operator = await login(server, OPERATOR)
    room = await operator.create_room("test room", overrides)
    table = await operator.open_table(room["id"], seats)
    players = [await new_player(server) for _ in range(seats)]
    clients = []
    watcher = None
    if spectator:
        watcher_api = await new_player(server, "spec")
        watcher = watcher_api.table(table["id"], record=record)
        await watcher.connect()
        players.append(watcher_api)
    for seat in range(seats):
        client = players[seat].table(table["id"], record=record)
        await client.connect()
        clients.append(client)
        await players[seat].sit(table["id"], seat)
    return Table(table["id"], players, clients, watcher, operator)


async def fresh_snapshot(api: Api, table_id: int) -> tuple[dict[str, Any], int]:
    """The snapshot a new socket of ``api``'s user gets, and the port that served it."""
    client = api.table(table_id)
    await client.connect()
    try:
        while True:
            message = await client.receive(timeout=30)
            if message["type"] == "snapshot":
                return message, client.ws.remote_address[1]
    finally:
        await client.close()


async def snapshot(api: Api, table_id: int) -> dict[str, Any]:
    """The table's snapshot as ``api``'s user sees it now."""
    return (await fresh_snapshot(api, table_id))[0]


async def snapshot_until(api: Api, table_id: int, done: Any, timeout: float = 120) -> dict[str, Any]:
    """Polls the table's snapshot until ``done(snapshot)`` (a condition, not a time: ``timeout`` only
    bounds a test that would otherwise hang)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        snap = await snapshot(api, table_id)
        if done(snap):
            return snap
        assert loop.time() < deadline, f"condition not met: {snap['status']} {snap.get('life')}"
        await asyncio.sleep(0.3)


async def play_until(
    clients: list[TableClient], api: Api, table_id: int, done: Any, seed: int
) -> dict[str, Any]:
    """``clients`` play random legal actions (seeded) until the table's snapshot as ``api`` sees it satisfies
    ``done``; then they close and stop."""
    rng = random.Random(seed)
    tasks = [
        asyncio.create_task(play_table(c, random_chooser(random.Random(rng.random())), idle_timeout=120))
        for c in clients
    ]
    try:
        return await snapshot_until(api, table_id, done)
    finally:
        for client in clients:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(client.close(), 5)
        for task in tasks:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


async def watch_to_end(client: TableClient, timeout: float = 300.0) -> dict[str, Any]:
    final: dict[str, Any] = await play_table(client, None, idle_timeout=timeout)
    return final


def claiming_chooser(client: TableClient, rng: random.Random, every: float = 0.3) -> Chooser:
    """Random legal actions; a declarer who may claim (the view's ``claims``, RULES §4.10) claims a random
    number of tricks ``every`` so often instead of playing a card."""
    choose = random_chooser(rng)

    def claim_or_choose(legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        view = (client.last or {}).get("view") or {}
        claims = view.get("claims")
        if claims and rng.random() < every:
            return {"type": "claim", "tricks": rng.choice(claims)}
        return choose(legal)

    return claim_or_choose


async def play_out(
    table: Table, seed: int = 0, idle_seat: int | None = None, timeout: float = 300.0, *, claims: bool = False
) -> list[dict[str, Any]]:
    rng = random.Random(seed)

    def chooser(client: TableClient) -> Chooser:
        seeded = random.Random(rng.random())
        return claiming_chooser(client, seeded) if claims else random_chooser(seeded)

    games = [
        play_table(client, None if seat == idle_seat else chooser(client), idle_timeout=timeout)
        for seat, client in enumerate(table.clients)
    ]
    if table.spectator is not None:
        games.append(watch_to_end(table.spectator, timeout))
    return list(await asyncio.wait_for(asyncio.gather(*games), timeout))


def seats_left_ms(clock: dict[str, Any]) -> list[int]:
    """Each seat's time left (deal time and reserve) in a frame's ``clock``."""
    return [int(s["deal_ms"]) + int(s["reserve_ms"]) for s in clock["seats"]]


async def sit_and_play(
    players: list[Api], table_id: int, seed: int, done: asyncio.Event | None = None
) -> None:
    """Each of ``players`` connects to the table and sits, then all play random legal actions (seeded) until
    their game ends; ``done`` is set when they stop, however they stop."""
    rng = random.Random(seed)
    clients = []
    for api in players:
        client = api.table(table_id)
        await client.connect()
        clients.append(client)
        await api.sit(table_id)
    try:
        await asyncio.wait_for(
            asyncio.gather(*(play_table(c, random_chooser(random.Random(rng.random()))) for c in clients)),
            300,
        )
    finally:
        if done is not None:
            done.set()
        for client in clients:
            await client.close()


async def team_round(operator: Api, players: list[Api]) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """A team tournament of ``players`` (six: two tables) with its first round started: its id and the
    round's two tables (``table_id``, ``players`` by seat)."""
    room = await operator.create_room("team room", {"deal_time": 600})
    body = {"room_id": room["id"], "name": "Teams", "rounds": 1, "round_minutes": 60, "teams": True}
    tid = int((await operator.call("POST", "/api/tournaments", body))["id"])
    for api in players:
        await api.call("POST", f"/api/tournaments/{tid}/register", {})
    first, second = (await operator.call("POST", f"/api/tournaments/{tid}/rounds"))["tables"]
    return tid, first, second
