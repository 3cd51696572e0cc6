"""What a REST session's read costs the process on SQLite: SQLAlchemy's stock aiosqlite adapter against the
server's (`app.db.sqlite_async`, one hand-over to the connection's thread per statement), in one
invocation, alternating (issue 24).

Each session is what a request's is: opened, one user read by key through the ORM (as `live_user` does for
every authenticated request), closed. The figure is the process's CPU (the loop's and the connection
threads') per session; the machine moves both alike, so compare the ratio.

Run: ``.venv/bin/python bench/sqlite_reads.py [--sessions 2000] [--rounds 3]``. Prints one JSON line per
round and a summary (each adapter's µs per session, min–max, and the ratio one hop / stock of each round).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.engine import make_engine, make_sessionmaker
from app.db.models import Base, User


async def _cost(engine: AsyncEngine, sessions: int, users: int) -> float:
    """CPU µs per session that reads one user by key."""
    factory = make_sessionmaker(engine)
    started = time.process_time()
    for i in range(sessions):
        async with factory() as session:
            user = await session.get(User, 1 + i % users)
            assert user is not None
    return 1e6 * (time.process_time() - started) / sessions


async def _round(path: Path, sessions: int, stock_first: bool) -> dict[str, float]:
    url = f"sqlite+aiosqlite:///{path}"
    # The server's engine either way: only the adapter differs.
    engines = {"stock": make_engine(url, one_hop=False), "one_hop": make_engine(url)}
    try:
        costs: dict[str, float] = {}
        order = list(engines.items()) if stock_first else list(engines.items())[::-1]
        for name, engine in order:
            await _cost(engine, 50, 50)  # the pool's connection opened, the statement compiled and cached
            costs[name] = await _cost(engine, sessions, 50)
        return costs
    finally:
        for engine in engines.values():
            await engine.dispose()


async def _users(path: Path) -> None:
    engine = make_engine(f"sqlite+aiosqlite:///{path}")
    try:
        async with engine.begin() as conn:
            await conn.run_sync(Base.metadata.create_all)
        async with make_sessionmaker(engine)() as session, session.begin():
            session.add_all(
                User(name=f"u{i}", name_key=f"u{i}", password_hash="x", role="player", created_at=0.0)
                for i in range(50)
            )
    finally:
        await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "reads.db"
        asyncio.run(_users(path))
        rounds: list[dict[str, Any]] = []
        for _ in range(args.rounds):
            # Each adapter goes first in every other round: what the machine does meanwhile falls on both.
            costs = asyncio.run(_round(path, args.sessions, stock_first=len(rounds) % 2 == 0))
            rounds.append({name: round(value, 1) for name, value in costs.items()})
            rounds[-1]["ratio"] = round(costs["one_hop"] / costs["stock"], 2)
            print(json.dumps({"round": len(rounds), "us_per_session": rounds[-1]}), flush=True)
    print(json.dumps({
        "summary": True, "sessions": args.sessions,
        **{name: [min(r[name] for r in rounds), max(r[name] for r in rounds)]
           for name in ("stock", "one_hop", "ratio")},
    }))  # fmt: skip


if __name__ == "__main__":
    main()
