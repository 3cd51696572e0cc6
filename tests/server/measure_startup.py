"""How long a server takes to come back with many live tables (issue 26 §1.3), not a test:

    .venv/bin/python -m tests.server.measure_startup --tables 1000 [--database-url URL]

Opens that many started 3-seat tables (SQLite in a temporary directory unless a URL is given), kills the
server with SIGKILL, starts it again and prints how long ``serve`` took until it answered, with the
server's own line on reading the tables back. Nobody is charged for any of it (RULES §8.6): the figure
is about players waiting, not clocks.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from tests.server.conftest import OPERATOR, ServerProcess, _add_users, login, new_player


async def _fill(server: ServerProcess, tables: int) -> None:
    operator = await login(server, OPERATOR)
    players = [await new_player(server) for _ in range(3)]
    try:
        conventions = {"pool_size": 100, "deal_time": 120, "reserve_time": 300}
        room = await operator.create_room("start-up", conventions)
        gate = asyncio.Semaphore(8)

        async def one() -> None:
            async with gate:
                table = (await operator.open_table(room["id"], 3))["id"]
                for seat in range(3):
                    await players[seat].sit(table, seat)

        await asyncio.gather(*(one() for _ in range(tables)))
    finally:
        for api in [operator, *players]:
            await api.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    from app.db.migrate import upgrade

    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite+aiosqlite:///{Path(tmp) / 'preferans.db'}"
        upgrade(url)
        asyncio.run(_add_users(url))
        server = ServerProcess(
            url,
            log_path=Path(tmp) / "server.log",
            extra_env={
                "PREFERANS_MAX_LIVE_TABLES_PER_OPERATOR": str(args.tables),
                "PREFERANS_LOG_FORMAT": "json",
            },
            log_level="info",
        )
        server.start()
        try:
            filled = time.monotonic()
            asyncio.run(_fill(server, args.tables))
            print(f"{args.tables} tables opened and started in {time.monotonic() - filled:.1f} s")
            server.kill()
            started = time.monotonic()
            server.start()
            took = time.monotonic() - started
            print(f"start-up after kill -9 with {args.tables} live tables: {took:.2f} s")
        finally:
            server.stop()
            assert server.log_path is not None
            for line in server.log_path.read_text().splitlines():
                if "read back" in line or "resumed" in line:
                    print("server:", line)


if __name__ == "__main__":
    main()
