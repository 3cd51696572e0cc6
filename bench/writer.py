"""The group-commit writer alone (issue 14 §1): ``.venv/bin/python bench/writer.py [DATABASE_URL]``.

200 tables each store 30 steps (one action row with its clocks, the seat's client seq, the table's version
and clock — what a player's action writes) through one `GroupWriter`, as fast as it commits them; prints
writes/s, batches and ms per batch. Default: a temporary SQLite file (WAL, synchronous=FULL).

``--paced``: instead, 1,000 tables each store one step a second for 10 s (the load bench's paced load),
once with each of ``--intervals`` (the writer's least time between batches under load, ms, in turn, three
rounds): CPU per write of the whole process, batches, and each step's wait for its commit (p50, p99).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import Table, insert

from app.db.engine import make_writer_engine
from app.db.migrate import upgrade
from app.db.models import GameTable, Room, TableSeat, User
from app.server.storage import GroupWriter, StepWrite

TABLES, STEPS = 200, 30


def _table(model: type[Any]) -> Table:
    """A model's table, typed as the Core table it is (insert() accepts it so)."""
    return cast(Table, model.__table__)


CLOCK = {
    "version": 1, "deal_ms": 600000, "reserve_ms": 600000, "misere_bonus_ms": 300000,
    "lag": {"cap": 500, "initial": 2000, "gain": 100, "max": 2000}, "seats": [[600000, 600000, 2000]] * 3,
    "running": 1, "since": 123456, "frozen": False, "resume": None, "flagged": [],
    "misere_bonus_given": False, "wall": {"boot": "bench", "since_ms": 1},
}  # fmt: skip


async def _populate(url: str, tables: int) -> None:
    engine = make_writer_engine(url)
    async with engine.begin() as conn:
        user = {"id": 1, "name": "w", "name_key": "w", "password_hash": "-", "role": "player",
                "created_at": 0.0}  # fmt: skip
        await conn.execute(insert(_table(User)), [user])
        room = {"id": 1, "name": "w", "operator_id": 1, "preset": "p", "overrides": {}, "conventions": {},
                "created_at": 0.0}  # fmt: skip
        await conn.execute(insert(_table(Room)), [room])
        await conn.execute(insert(_table(GameTable)), [
            {"id": t, "room_id": 1, "seats": 3, "conventions": {}, "status": "playing", "created_at": 0.0}
            for t in range(1, tables + 1)
        ])  # fmt: skip
        await conn.execute(insert(_table(TableSeat)), [
            {"table_id": t, "seat": s, "user_id": 1} for t in range(1, tables + 1) for s in range(3)
        ])  # fmt: skip
    await engine.dispose()


def _step(table_id: int, i: int) -> StepWrite:
    action = {"table_id": table_id, "seq": i + 1, "action": {"type": "pass", "seat": 1}, "user_id": 1,
              "client_seq": i + 1, "by_server": False, "at": time.time(), "clock": CLOCK}  # fmt: skip
    return StepWrite(actions=[action], table={"clock": CLOCK}, seat_seq=(1, i + 1))


async def main(url: str) -> dict[str, float]:
    await _populate(url, TABLES)
    engine = make_writer_engine(url)
    writer = GroupWriter(engine)
    await writer.start()

    async def table(table_id: int) -> None:
        for i in range(STEPS):
            await writer.commit(table_id, i + 1, _step(table_id, i))

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(table(t) for t in range(1, TABLES + 1)))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    result = {
        "writes": writer.committed,
        "batches": writer.batches,
        "writes_per_s": round(writer.committed / wall),
        "ms_per_batch": round(1000 * wall / writer.batches, 1),
        "cpu_ms_per_write": round(1000 * cpu / writer.committed, 3),
    }
    await writer.close()
    await engine.dispose()
    return result


PACED_TABLES, PACED_SECONDS = 1000, 10


async def paced(url: str, interval_ms: float, first: int) -> dict[str, float]:
    """Each table stores one step a second, at its own phase; ``first``: the steps' first seq number (the
    rounds go on in the same database)."""
    engine = make_writer_engine(url)
    writer = GroupWriter(engine, interval_ms=interval_ms)
    await writer.start()
    waits: list[float] = []
    rng = random.Random(1)

    async def table(table_id: int) -> None:
        await asyncio.sleep(rng.random())
        for i in range(first, first + PACED_SECONDS):
            sent = time.perf_counter()
            await writer.commit(table_id, i + 1, _step(table_id, i))
            waits.append(time.perf_counter() - sent)
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - sent)))

    cpu = time.process_time()
    await asyncio.gather(*(table(t) for t in range(1, PACED_TABLES + 1)))
    cpu = time.process_time() - cpu
    waits.sort()
    result = {
        "interval_ms": interval_ms,
        "writes": writer.committed,
        "batches": writer.batches,
        "cpu_us_per_write": round(1e6 * cpu / writer.committed),
        "wait_p50_ms": round(1000 * waits[len(waits) // 2], 1),
        "wait_p99_ms": round(1000 * waits[int(len(waits) * 0.99)], 1),
    }
    await writer.close()
    await engine.dispose()
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("url", nargs="?", help="DATABASE_URL (default: a temporary SQLite file)")
    parser.add_argument("--paced", action="store_true")
    parser.add_argument("--intervals", default="5,10", help="comma-separated, ms (with --paced)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite+aiosqlite:///{tmp}/writer.db"
        upgrade(url)
        database = url.split(":", 1)[0]
        if not args.paced:
            print(json.dumps({"database": database, **asyncio.run(main(url))}))
        else:
            asyncio.run(_populate(url, PACED_TABLES))
            first = 0
            for _ in range(3):
                for interval in (float(x) for x in args.intervals.split(",")):
                    print(json.dumps({"database": database, **asyncio.run(paced(url, interval, first))}))
                    first += PACED_SECONDS
