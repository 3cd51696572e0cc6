"""The server's CPU for what the lobby's page asks every 3 seconds, one request at a time (issue 24: the REST
load that grows with the players looking at the lobby, on the event loop that runs every table).

The page (`app/web/static/js/pages/lobby.js`) asks, for each viewer, every 3 s, ``GET /api/lobby``: the
rooms, each with its tables and the ratings of the players seated there. Before, it asked them apart: the
rooms (``GET /api/rooms``), and for each room its tables (``GET /api/rooms/{id}/tables``) and its seated
players' ratings (``GET /api/ratings/rooms/{id}/seated``), still served for other clients. This measures
what each of the four costs the server's process with one room of ``--tables`` tables (three players each,
playing, long clocks), asked ``--polls`` times over one kept-alive connection, one request after the other,
and a poll of the page both ways; the baseline is ``GET /api/health`` in the same server right after, as
many times (the HTTP stack and the app's middlewares, no login, no database).

A room's tables and its seated players' ratings are the same for every viewer who may see the room, and
the server builds each once and shares it for ``PREFERANS_LOBBY_ANSWER_MS`` (1 s; `http.shared_answers`):
asked one after the other, nearly every request here is given the answer built for an earlier one, which is
what each of many viewers costs. ``--answer-ms 0`` has every request build its own (what the first viewer
of each second costs, and what every viewer cost before).

Run: ``.venv/bin/python bench/lobby_cost.py [--tables 100] [--polls 1000] [--database URL] [--runs 3]
[--answer-ms MS] [--rooms 1] [--room-tables 10]``. Prints a JSON line per run (the server's CPU µs a
request of each kind, and its ratio to the health check's, ``x_health``; a poll's CPU ms, ``poll_cpu_ms``
the one request and ``requests_poll_cpu_ms`` the rooms and each room's two, as the page asked before) and a
summary line (min–max over the runs). ``--rooms N``: N - 1 more rooms of the same operator, each with
``--room-tables`` tables waiting for players (the four kinds' figures stay the first room's).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

import httpx
from load import (  # the load bench's set-up (importing it puts the repository on the path, for `tests`)
    one_server,
    printed_runs,
    requests_cpu_us,
    token,
)


async def _more_rooms(http: httpx.AsyncClient, rooms: int, tables: int) -> None:
    """``rooms`` more rooms of the bench's operator, each with ``tables`` tables waiting for players."""
    operator = {"Authorization": f"Bearer {token(1)}"}
    for n in range(rooms):
        room = (await http.post("/api/rooms", json={"name": f"more {n}"}, headers=operator)).json()
        for _ in range(tables):
            made = await http.post(f"/api/rooms/{room['id']}/tables", json={}, headers=operator)
            if made.status_code != 201:
                raise RuntimeError(f"a table of room {room['id']}: {made.status_code} {made.text[:200]}")


async def _costs(port: int, pid: int, viewer: int, args: argparse.Namespace) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token(viewer)}"}
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30, headers=headers) as http:
        await _more_rooms(http, args.rooms - 1, args.room_tables)
        rooms = [r["id"] for r in (await http.get("/api/rooms")).json()]
        if len(rooms) != args.rooms:
            raise RuntimeError(f"expected {args.rooms} rooms, got {rooms}")
        paths = {
            "lobby": "/api/lobby",
            "rooms": "/api/rooms",
            "tables": f"/api/rooms/{rooms[0]}/tables",
            "seated": f"/api/ratings/rooms/{rooms[0]}/seated",
            "health": "/api/health",
        }
        cost = {kind: await requests_cpu_us(http, pid, [path], args.polls) for kind, path in paths.items()}
        # The page's poll before `GET /api/lobby`: the rooms, then each room's two.
        each = [
            p for room in rooms for p in (f"/api/rooms/{room}/tables", f"/api/ratings/rooms/{room}/seated")
        ]
        old = ["/api/rooms", *each]
        requests_poll = await requests_cpu_us(http, pid, old, max(1, args.polls // len(old)))
    health = cost.pop("health")
    out: dict[str, Any] = {f"{kind}_cpu_us": round(us) for kind, us in cost.items()}
    out["health_cpu_us"] = round(health)
    out["x_health"] = {kind: round(us / health, 1) for kind, us in cost.items()}
    out["poll_cpu_ms"] = round(cost["lobby"] / 1000, 2)
    out["requests_poll_cpu_ms"] = round(requests_poll / 1000, 2)
    return out


def run_once(args: argparse.Namespace) -> dict[str, Any]:
    env = {"PREFERANS_MAX_LIVE_TABLES_PER_OPERATOR": str(args.tables + args.rooms * args.room_tables + 1)}
    if args.answer_ms is not None:
        env["PREFERANS_LOBBY_ANSWER_MS"] = str(args.answer_ms)
    with one_server(args.database, args.tables, 0, env=env) as (port, pid, plan, kind):
        # A player seated at the first table looks at the lobby.
        result = asyncio.run(_costs(port, pid, plan.active[0][1][0], args))
    return {
        "database": kind,
        "tables": args.tables,
        "rooms": args.rooms,
        "answer_ms": args.answer_ms,
        **result,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=100, help="tables in the one room (100)")
    parser.add_argument("--polls", type=int, default=1000, help="requests of each kind a run (1000)")
    parser.add_argument("--database", help="SQLite (default: a temporary file) or a PostgreSQL server URL")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rooms", type=int, default=1, help="rooms in the lobby (1: the bench's own)")
    parser.add_argument(
        "--room-tables", type=int, default=10, help="waiting tables in each further room (10)"
    )
    parser.add_argument(
        "--answer-ms", type=float, help="the server's PREFERANS_LOBBY_ANSWER_MS (default: its own, 1000)"
    )
    args = parser.parse_args()
    runs = printed_runs(args.runs, lambda: run_once(args))
    summary: dict[str, Any] = {"summary": True}
    names = ("poll_cpu_ms", "requests_poll_cpu_ms", "lobby_cpu_us", "rooms_cpu_us", "tables_cpu_us",
             "seated_cpu_us", "health_cpu_us")  # fmt: skip
    for name in names:
        values = [r[name] for r in runs]
        summary[name] = [min(values), max(values)]
    for kind in ("lobby", "rooms", "tables", "seated"):
        ratios = [r["x_health"][kind] for r in runs]
        summary[f"x_health_{kind}"] = [min(ratios), max(ratios)]
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
