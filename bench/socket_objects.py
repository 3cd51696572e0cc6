"""What a table's open socket keeps alive in the server, and what the server's full collection costs with
them (issue 24: a full collection of the cycle collector scans every object made since the start, the loop
stopped).

Each run: a fresh SQLite database with ``--tables`` full tables, the server in a child process (``app
serve`` from this file, which also counts on SIGUSR1), three sockets a table connected and reading.
Before and after connecting them the server counts the objects the cycle collector tracks (what exists
frozen included) and times a full collection as the server runs one (`collector.collect_full`, the least
of three: what was frozen at the start is not scanned), and reads its resident memory. The
baseline, alternating with it in the same invocation: the same server with the tables' sockets served
through the app's middleware stack and router, as every socket was before the lane of its own
(`app.server.app.ServerApp.table_sockets` None).

Run: ``.venv/bin/python bench/socket_objects.py [--tables 1000] [--runs 3]``. Prints a JSON line per run
(objects a socket, the full collection's ms with the sockets and without, the resident memory a socket) and
a summary line: each figure's min–max per kind, and each lane run's ratio to the stack run beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import websockets
from load import SECRET, drain, populate, stop_server, token, wait_up  # (puts the repository on the path)

from tests.server.ports import free_ports

ROOT = Path(__file__).resolve().parent.parent
_COUNTS = "PREFERANS_BENCH_COUNTS"  # where the served process writes its counts (a JSON line each)
_STACK = "PREFERANS_BENCH_STACK"  # "1": the tables' sockets through the middleware stack (the baseline)


def _count(*_: object) -> None:
    """In the server (SIGUSR1): its tracked objects (frozen ones included), its full collection's ms as it
    runs one (the least of three; the first frees what garbage there is), its resident memory."""
    from app.server.collector import collect_full, resident_mb

    took = []
    for _round in range(3):
        started = time.perf_counter()
        collect_full()
        took.append((time.perf_counter() - started) * 1000)
    objects = len(gc.get_objects()) + gc.get_freeze_count()
    line = {"objects": objects, "full_ms": min(took), "rss_mb": resident_mb()}
    with open(os.environ[_COUNTS], "a") as out:
        out.write(json.dumps(line) + "\n")


def serve(argv: list[str]) -> int:
    """`app serve`, counting on SIGUSR1; the baseline's tables' sockets go the stack's way."""
    from app import __main__ as entry
    from app.server import app as server_app
    from app.server.settings import Settings

    if os.environ.get(_STACK) == "1":
        make = server_app.create_app

        def through_stack(settings: Settings | None = None) -> server_app.ServerApp:
            app = make(settings)
            app.table_sockets = None
            return app

        server_app.create_app = through_stack  # `app serve` imports it when it starts
    signal.signal(signal.SIGUSR1, _count)
    sys.argv = ["app", "serve", *argv]
    return entry.main()


async def _connect(port: int, table_id: int, seat: int, user: int) -> Any:
    url = f"ws://127.0.0.1:{port}/ws/tables/{table_id}?seat={seat}"
    for _ in range(200):
        try:
            ws = await websockets.connect(url, additional_headers={"Authorization": f"Bearer {token(user)}"},
                                          ping_interval=None, max_size=2**22)  # fmt: skip
        except websockets.InvalidStatus:  # 503 busy: the handshakes beyond the server's places
            await asyncio.sleep(0.2)
            continue
        await ws.recv()  # the snapshot: the socket is the table's
        return ws
    raise RuntimeError(f"table {table_id}: no socket")


async def _counted(proc: subprocess.Popen[bytes], counts: Path, lines: int) -> dict[str, Any]:
    proc.send_signal(signal.SIGUSR1)
    for _ in range(600):
        if counts.exists() and len(counts.read_text().splitlines()) >= lines:
            return dict(json.loads(counts.read_text().splitlines()[lines - 1]))
        await asyncio.sleep(0.1)
    raise RuntimeError("the server did not count")


async def _drive(port: int, proc: subprocess.Popen[bytes], counts: Path, plan: Any) -> dict[str, Any]:
    await asyncio.sleep(1.0)  # the tables recovered and dealt
    before = await _counted(proc, counts, 1)
    gate = asyncio.Semaphore(64)

    async def one(table_id: int, seat: int, user: int) -> Any:
        async with gate:
            return await _connect(port, table_id, seat, user)

    sockets = await asyncio.gather(*(one(t, s, users[s]) for t, users in plan.active for s in range(3)))
    readers = [asyncio.create_task(drain(ws)) for ws in sockets]
    await asyncio.sleep(1.0)
    after = await _counted(proc, counts, 2)
    for ws in sockets:
        await ws.close()
    await asyncio.gather(*readers)
    n = len(sockets)
    return {
        "sockets": n,
        "objects_per_socket": round((after["objects"] - before["objects"]) / n, 1),
        "full_ms": round(after["full_ms"], 1),
        "full_ms_without_sockets": round(before["full_ms"], 1),
        "full_ms_of_sockets": round(after["full_ms"] - before["full_ms"], 1),
        "rss_kb_per_socket": round((after["rss_mb"] - before["rss_mb"]) * 1024 / n, 1),
    }


def run_once(tables: int, stack: bool) -> dict[str, Any]:
    port = free_ports(1)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        from app.db.migrate import upgrade

        upgrade(url)
        plan = asyncio.run(populate(url, tables, 0, 30))
        counts = Path(tmp) / "counts.jsonl"
        env = dict(os.environ, DATABASE_URL=url, PREFERANS_TOKEN_SECRET=SECRET,
                   PREFERANS_MAX_CONNECTIONS_PER_ADDRESS="0")  # fmt: skip
        env |= {_COUNTS: str(counts), _STACK: "1" if stack else "0"}
        command = [sys.executable, str(Path(__file__).resolve()), "--serve", "--port", str(port),
                   "--log-level", "warning"]  # fmt: skip
        proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            wait_up(port, proc)
            result = asyncio.run(_drive(port, proc, counts, plan))
        finally:
            stop_server(proc)
    return {"sockets_through": "stack" if stack else "lane", "tables": tables, **result}


def _spread(values: list[float]) -> list[float]:
    return [min(values), max(values)]


def main() -> int:
    if sys.argv[1:2] == ["--serve"]:
        return serve(sys.argv[2:])
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=1000, help="full tables, three sockets each (1000)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs: dict[str, list[dict[str, Any]]] = {"lane": [], "stack": []}
    for _ in range(args.runs):
        for kind in ("lane", "stack"):
            runs[kind].append(run_once(args.tables, stack=kind == "stack"))
            print(json.dumps(runs[kind][-1]), flush=True)
    figures = ("objects_per_socket", "full_ms", "full_ms_of_sockets", "rss_kb_per_socket")
    summary: dict[str, Any] = {"summary": True, "tables": args.tables}
    for kind, results in runs.items():
        summary[kind] = {name: _spread([r[name] for r in results]) for name in figures}
    summary["x_stack"] = {
        name: _spread(
            [round(a[name] / b[name], 2) for a, b in zip(runs["lane"], runs["stack"], strict=True) if b[name]]
        )
        for name in figures
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
