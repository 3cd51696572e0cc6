"""The table's clock timer (issue 14): one timer a table, kept across steps that move the deadline later.
Such a timer fires before the deadline then current and is armed again: the seat on move still gets its
whole time, and the timeout comes when that time is up (RULES §8)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from app.bots.client import TableClient
from tests.server.conftest import ServerProcess
from tests.server.helpers import open_table

DEAL_S = 1.5
GRACE_S = 0.5  # the lag grace a seat that has not used it gets on top (LagPolicy)


async def _pump(client: TableClient, inbox: list[tuple[float, dict[str, Any]]]) -> None:
    with contextlib.suppress(Exception):
        while True:
            message = await client.receive()
            inbox.append((time.monotonic(), message))


def _on_move(clients: list[TableClient]) -> int | None:
    for seat, client in enumerate(clients):
        if client.last is not None and client.last.get("legal"):
            return seat
    return None


async def test_each_seat_gets_its_whole_time_when_the_deadline_moves_later(
    sqlite_server: ServerProcess,
) -> None:
    table = await open_table(sqlite_server, 3, {"pool_size": 2, "deal_time": DEAL_S, "reserve_time": 0})
    inboxes: list[list[tuple[float, dict[str, Any]]]] = [[] for _ in table.clients]
    pumps = [asyncio.create_task(_pump(c, inbox)) for c, inbox in zip(table.clients, inboxes, strict=True)]
    try:
        # Three turns, each taken after 0.6 of the seat's time: every step moves the deadline later than
        # the one the running timer was armed for.
        for _ in range(3):
            while (seat := _on_move(table.clients)) is None:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.6 * DEAL_S)
            last = table.clients[seat].last
            assert last is not None
            legal = last["legal"]
            seq = await table.clients[seat].act(legal[0])
            while not any(m.get("type") == "ack" and m.get("seq") == seq for _, m in inboxes[seat]):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)  # the next seat's update is in
        while (seat := _on_move(table.clients)) is None:
            await asyncio.sleep(0.01)
        turn_began, update = max(
            ((at, m) for at, m in inboxes[seat] if m.get("type") == "update"), key=lambda item: item[0]
        )
        clock = update["clock"]
        assert clock["running"] == seat
        # What this seat has left of its time for the deal (it may have used some in an earlier turn).
        left_s = (clock["seats"][seat]["deal_ms"] + clock["seats"][seat]["reserve_ms"]) / 1000
        # Nobody acts now: the seat on move times out once its time (and its grace) is up, not sooner.
        deadline = time.monotonic() + left_s + GRACE_S + 10
        timed_out: float | None = None
        while timed_out is None and time.monotonic() < deadline:
            for at, message in inboxes[0]:
                if at > turn_began and any(e["kind"] == "timeout" for e in message.get("events") or ()):
                    timed_out = at
                    break
            await asyncio.sleep(0.01)
        assert timed_out is not None, "no timeout came"
        waited = timed_out - turn_began
        assert left_s <= waited < left_s + GRACE_S + 1.0, (waited, left_s)
    finally:
        for pump in pumps:
            pump.cancel()
        await table.close()
