"""The event loop's CPU per move, in-process: table actors on a store that commits at once, sockets that
take every frame without writing it (issue 24 §3).

What `bench/load.py` measures from outside mixes this with the sockets' reads and writes, the writer's
thread and the client on the same cores; this leaves out all three, so a change to the actor's step, its
views or their encoding shows here with the same work in every run (the CPU time of one thread). The
machine still moves it: on 2026-12-04 the runs of one invocation spread by up to a fifth, so compare old
and new code alternating, several invocations each, and by their least figures.

Run: ``.venv/bin/python bench/step_cost.py [--tables 200] [--moves 20000] [--runs 3]``. Prints one JSON
line: CPU µs per move (each run, min–max), frames and bytes per move; every move acknowledged.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import statistics
import time
from typing import Any

from app.clock import ReserveClock
from app.engine import shuffle_action
from app.engine.conventions import Conventions
from app.server.connections.connection import TRANSPORT_EXTENSION, Connection
from app.server.storage import StepWrite, StoredTable
from app.server.tables.actor import TableActor
from app.server.tables.commands import Act, Connect, Sit
from app.server.timebase import MonoMs


class _Store:
    """`StepStore` without a database: every commit succeeds at once."""

    failing_since: MonoMs | None = None

    async def commit(self, table_id: int, version: int | None, write: StepWrite) -> None:
        return None

    async def stored_version(self, table_id: int) -> int | None:
        return 0

    async def read(self, table_id: int) -> StoredTable | None:
        return None

    async def next_award_revision(self, deal_id: int) -> int:
        return 1

    def clock_record(self, clock: ReserveClock, now: MonoMs) -> dict[str, Any]:
        return clock.to_json()


class _Socket:
    """A websocket protocol's fast path (`WebSocketProtocol.send_text_now`) that keeps only the count of
    frames and bytes, and wakes the seat's driver at its ack."""

    def __init__(self) -> None:
        self.frames = 0
        self.bytes = 0
        self.acked: asyncio.Event = asyncio.Event()

    def get_protocol(self) -> _Socket:
        return self

    def send_text_now(self, text: str) -> bool:
        self.frames += 1
        self.bytes += len(text)
        if text.startswith('{"type":"ack"'):
            self.acked.set()
        return True

    def send_texts_now(self, texts: list[str]) -> bool:
        for text in texts:
            self.send_text_now(text)
        return True

    def abort(self) -> None:
        return None

    def get_write_buffer_size(self) -> int:
        return 0


class _WebSocket:
    def __init__(self, socket: _Socket) -> None:
        self.scope = {"extensions": {TRANSPORT_EXTENSION: socket}}


async def _table(table_id: int, rng: random.Random) -> tuple[TableActor, list[_Socket]]:
    # Deals from the bench's own seeded generator: the same moves in every run of the same seed.
    actor = TableActor(
        _Store(), table_id, 3, Conventions(), first_dealer=0, shuffle=lambda: shuffle_action(rng)
    )
    actor.start()
    sockets = []
    for seat in range(3):
        user = table_id * 10 + seat
        reply: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        actor.submit(Sit(user, f"u{user}", seat, reply))
        await reply
        socket = _Socket()
        conn = Connection(_WebSocket(socket), user, f"u{user}", 1000)  # type: ignore[arg-type]
        conn.start()
        actor.submit(Connect(conn))
        sockets.append(socket)
    return actor, sockets


async def _drive(actor: TableActor, sockets: list[_Socket], moves: int, rng: random.Random) -> int:
    """``moves`` random legal moves, each waited for until acknowledged; the moves made."""
    seqs = [0, 0, 0]
    conns = {conn.seat: conn for conn in actor.connections}
    made = 0
    while made < moves:
        game = actor.game
        if game is None or game.is_over:
            return made
        seat = game.to_act()
        legal = game.legal(seat)
        if seat is None or not legal:
            return made
        action = rng.choice(legal).to_json()
        seqs[seat] += 1
        socket = sockets[seat]
        socket.acked.clear()
        actor.submit(Act(conns[seat], seqs[seat], action))
        await socket.acked.wait()
        made += 1
    return made


async def one_run(tables: int, moves: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    built = [await _table(t + 1, rng) for t in range(tables)]
    await asyncio.sleep(0.1)  # the snapshots of the connects are out
    gc.collect()
    frames0 = sum(s.frames for _, sockets in built for s in sockets)
    bytes0 = sum(s.bytes for _, sockets in built for s in sockets)
    per_table = max(1, moves // tables)
    started = time.process_time()
    made = await asyncio.gather(*(_drive(actor, sockets, per_table, rng) for actor, sockets in built))
    cpu = time.process_time() - started
    total = sum(made)
    frames = sum(s.frames for _, sockets in built for s in sockets) - frames0
    sent = sum(s.bytes for _, sockets in built for s in sockets) - bytes0
    for actor, _ in built:
        await actor.stop()
    return {"moves": total, "cpu_us_per_move": 1e6 * cpu / total, "frames_per_move": frames / total,
            "bytes_per_move": sent / total}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--moves", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    # Every run plays the same deals and moves (one seed): what differs between runs is the machine.
    runs = [asyncio.run(one_run(args.tables, args.moves, args.seed)) for _ in range(args.runs)]
    cost = [r["cpu_us_per_move"] for r in runs]
    print(json.dumps({
        "bench": "step_cost", "tables": args.tables, "moves": [r["moves"] for r in runs],
        "cpu_us_per_move": [round(c, 1) for c in cost], "median": round(statistics.median(cost), 1),
        "spread_pct": round(100 * (max(cost) - min(cost)) / statistics.median(cost), 1),
        "frames_per_move": round(statistics.mean(r["frames_per_move"] for r in runs), 2),
        "bytes_per_move": round(statistics.mean(r["bytes_per_move"] for r in runs)),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
