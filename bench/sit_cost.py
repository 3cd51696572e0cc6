"""The server's CPU for a sit that starts a game, one at a time (issue 24: the burst behind the load bench's
first seconds).

`bench/load.py`'s idle tables start in the window's first second: their third players sit over REST, a
hundred sits at once beside 1,000 paced tables. Each is a REST request (the token; the user, the room's
checks and the player's waiting seats, read in one statement) and a table step that deals the first hand and
sends it to three sockets, and its commit. This measures what one costs the server's process, apart from
any other load: ``--tables`` tables with two players seated, long clocks (none runs out meanwhile) and three
sockets each (the third player's watching until he sits), then every third player sits, one after the
other.

Run: ``.venv/bin/python bench/sit_cost.py [--tables 100] [--database URL] [--runs 3]``. Prints a JSON line
per run (the server's CPU ms per sit, its event loop's alone, each sit's wall time p50 and max, the clock
timers that fired meanwhile: 0; and the baseline measured right after in the same server, the CPU of a
``GET /api/auth/me`` by each of those players, ``me_cpu_ms``, and the sit's ratio to it, ``x_me``) and a
summary line (min–max).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

import httpx
import websockets
from load import (  # the load bench's set-up (importing it puts the repository on the path, for `tests`)
    drain,
    loop_cpu_s,
    one_server,
    pct,
    printed_runs,
    proc_cpu_s,
    token,
)
from prometheus_client.parser import text_string_to_metric_families


async def _timeouts_fired(http: httpx.AsyncClient) -> int:
    """The server's clock timers fired so far (its ``/metrics``): a timeout's step in the window would be
    counted as the sits' CPU."""
    text = (await http.get("/metrics")).text
    for family in text_string_to_metric_families(text):
        if family.name == "preferans_timeouts_fired":
            return int(sum(sample.value for sample in family.samples if sample.name.endswith("_total")))
    return 0


async def _sits(port: int, pid: int, idle: list[tuple[int, list[int]]]) -> dict[str, Any]:
    sockets = []
    for table_id, users in idle:
        for seat in range(3):
            sockets.append(
                await websockets.connect(
                    f"ws://127.0.0.1:{port}/ws/tables/{table_id}?seat={seat}",
                    additional_headers={"Authorization": f"Bearer {token(users[seat])}"},
                    ping_interval=None,
                )
            )
    readers = [asyncio.create_task(drain(ws)) for ws in sockets]
    walls: list[float] = []
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
        await http.get("/api/health")
        fired0 = await _timeouts_fired(http)
        cpu0, loop0 = proc_cpu_s(pid), loop_cpu_s([pid])
        for table_id, users in idle:
            asked = time.monotonic()
            r = await http.post(
                f"/api/tables/{table_id}/sit",
                json={"seat": 2},
                headers={"Authorization": f"Bearer {token(users[2])}"},
            )
            walls.append((time.monotonic() - asked) * 1000)
            if r.status_code != 200:
                raise RuntimeError(f"sit at table {table_id}: {r.status_code} {r.text}")
        cpu, loop_end = proc_cpu_s(pid) - cpu0, loop_cpu_s([pid])
        fired = await _timeouts_fired(http) - fired0
        # The baseline, in the same server right after: each of those players asks who he is, a request
        # through the same layers, token and user read, without a table.
        base0 = proc_cpu_s(pid)
        for _, users in idle:
            r = await http.get("/api/auth/me", headers={"Authorization": f"Bearer {token(users[2])}"})
            if r.status_code != 200:
                raise RuntimeError(f"/api/auth/me: {r.status_code} {r.text}")
        base = proc_cpu_s(pid) - base0
    for ws in sockets:
        await ws.close()
    for reader in readers:
        reader.cancel()
    return {
        "sits": len(walls),
        "cpu_ms_per_sit": round(1000 * cpu / len(walls), 2),
        "loop_cpu_ms_per_sit": (
            None if loop0 is None or loop_end is None else round(1000 * (loop_end - loop0) / len(walls), 2)
        ),
        "timeouts_fired": fired,
        "me_cpu_ms": round(1000 * base / len(walls), 2),
        "x_me": round(cpu / base, 1) if base > 0 else None,
        "wall_ms": {"p50": pct(walls, 0.5), "max": pct(walls, 1.0)},
    }


def run_once(args: argparse.Namespace) -> dict[str, Any]:
    # Every socket comes from this one address.
    env = {"PREFERANS_MAX_CONNECTIONS_PER_ADDRESS": "0"}
    with one_server(args.database, 0, args.tables, idle_run_out=False, env=env) as (port, pid, plan, kind):
        result = asyncio.run(_sits(port, pid, plan.idle))
    return {"database": kind, "tables": args.tables, **result}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=100, help="tables, each started by one sit (100)")
    parser.add_argument("--database", help="SQLite (default: a temporary file) or a PostgreSQL server URL")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs = printed_runs(args.runs, lambda: run_once(args))
    summary: dict[str, Any] = {"summary": True}
    for name, values in (
        ("cpu_ms_per_sit", [r["cpu_ms_per_sit"] for r in runs]),
        ("x_me", [r["x_me"] for r in runs if r["x_me"] is not None]),
        ("wall_ms_p50", [r["wall_ms"]["p50"] for r in runs]),
    ):
        summary[name] = [min(values), max(values)] if values else None
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
