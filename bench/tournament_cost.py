"""The server's CPU for what a tournament's page asks every 2 seconds, one request at a time (issue 24: the
REST load that grows with the players and spectators following a tournament, on the event loop that runs every
table).

The page (`app/web/static/js/pages/tournament.js`) asks, for each viewer, every 2 s, ``GET
/api/tournaments/{id}/page``: the tournament with its rounds and their tables, the standings, the viewer's own
table and the judges' adjustments. Before, it asked them apart (``GET /api/tournaments/{id}``,
``.../standings``, ``.../me``, ``.../adjustments``, still served for other clients). This measures what each
of the five costs the server's process, and a poll of the page both ways, for a tournament of ``--players``
players (the draw seats three or four at a table) that has played ``--rounds`` rounds (each one's tables
stopped by the operator, so each is settled and counted in the standings) and is playing one more, asked
``--polls`` times over one kept-alive connection, one request after the other, by a registered player; the
baseline is ``GET /api/health`` in the same server right after, as many times (the HTTP stack and the app's
middlewares, no login, no database).

The tournament, its standings and its adjustments are the same for every viewer who may watch its room, and
the server builds each once and shares it for ``PREFERANS_LOBBY_ANSWER_MS`` (1 s; `http.shared_answers`):
asked one after the other, nearly every request here is given the answer built for an earlier one, which is
what each of many viewers costs. ``--answer-ms 0`` has every request build its own (what the first viewer of
each second costs).

Run: ``.venv/bin/python bench/tournament_cost.py [--players 60] [--rounds 4] [--polls 500] [--database URL]
[--runs 3] [--answer-ms MS]``. Prints a JSON line per run (the server's CPU µs a request of each kind and
its ratio to the health check's, ``x_health``; a poll's CPU ms, ``poll_cpu_ms`` the one request, null on a
server without it, and ``requests_poll_cpu_ms`` the four) and a summary line (min–max over the runs).
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

KINDS = ("tournament", "standings", "me", "adjustments")  # the four the page asked before


async def _ok(response: httpx.Response, what: str) -> Any:
    if response.status_code not in (200, 201):
        raise RuntimeError(f"{what}: {response.status_code} {response.text[:300]}")
    return response.json()


async def _tournament(http: httpx.AsyncClient, players: list[int], rounds: int) -> int:
    """A tournament in the bench's room with ``players`` (user ids) registered, ``rounds`` rounds played (each
    table stopped by the operator) and one more playing; its id."""
    operator = {"Authorization": f"Bearer {token(1)}"}
    made = await _ok(
        await http.post(
            "/api/tournaments",
            json={"room_id": 1, "name": "bench", "rounds": rounds + 1, "round_minutes": 600},
            headers=operator,
        ),
        "create",
    )
    tid = int(made["id"])
    for user in players:  # the bench's users are named after their id less one (`load.populate`)
        await _ok(
            await http.post(
                f"/api/tournaments/{tid}/register", json={"player": f"bench{user - 1}"}, headers=operator
            ),
            "register",
        )
    for _ in range(rounds + 1):
        drawn = await _ok(await http.post(f"/api/tournaments/{tid}/rounds", headers=operator), "round")
        if drawn["number"] > rounds:
            break
        for table in drawn["tables"]:
            await _ok(
                await http.post(
                    f"/api/tables/{table['table_id']}/stop", json={"reason": "bench"}, headers=operator
                ),
                "stop",
            )
    standings = await _ok(await http.get(f"/api/tournaments/{tid}/standings", headers=operator), "standings")
    # (The draw seats four at a table where it can: the dealer sits out each deal, RULES §9.2.)
    if not standings["tables_counted"] or any(row["played"] != rounds for row in standings["standings"]):
        raise RuntimeError(f"expected every player's {rounds} rounds counted: {standings}"[:3000])
    return tid


async def _costs(port: int, pid: int, players: list[int], args: argparse.Namespace) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
        tid = await _tournament(http, players, args.rounds)
        http.headers["Authorization"] = f"Bearer {token(players[0])}"
        base = f"/api/tournaments/{tid}"
        paths = {
            "tournament": base,
            "standings": f"{base}/standings",
            "me": f"{base}/me",
            "adjustments": f"{base}/adjustments",
        }
        me = (await http.get(paths["me"])).json()
        if me.get("table_id") is None:
            raise RuntimeError(f"the viewer has no table in the round being played: {me}")
        cost = {kind: await requests_cpu_us(http, pid, [path], args.polls) for kind, path in paths.items()}
        requests_poll = await requests_cpu_us(http, pid, list(paths.values()), args.polls)
        # (An older server has no page: compared with it, the four are the poll.)
        has_page = (await http.get(f"{base}/page")).status_code == 200
        page = await requests_cpu_us(http, pid, [f"{base}/page"], args.polls) if has_page else None
        health = await requests_cpu_us(http, pid, ["/api/health"], args.polls)
    out: dict[str, Any] = {f"{kind}_cpu_us": round(us) for kind, us in cost.items()}
    out["page_cpu_us"] = None if page is None else round(page)
    out["health_cpu_us"] = round(health)
    out["x_health"] = {kind: round(us / health, 1) for kind, us in cost.items()}
    out["poll_cpu_ms"] = None if page is None else round(page / 1000, 2)
    out["poll_x_health"] = None if page is None else round(page / health, 1)
    out["requests_poll_cpu_ms"] = round(requests_poll / 1000, 2)
    return out


def run_once(args: argparse.Namespace) -> dict[str, Any]:
    tables = args.players // 3
    env = {"PREFERANS_MAX_LIVE_TABLES_PER_OPERATOR": str(args.players + (args.rounds + 1) * tables + 1)}
    if args.answer_ms is not None:
        env["PREFERANS_LOBBY_ANSWER_MS"] = str(args.answer_ms)
    # ``players`` waiting tables of two seated players (long clocks, never started): their third seats'
    # users sit nowhere, and they are the tournament's players.
    with one_server(args.database, 0, args.players, idle_run_out=False, env=env) as (port, pid, plan, kind):
        players = [users[2] for _, users in plan.idle]
        result = asyncio.run(_costs(port, pid, players, args))
    return {"database": kind, "players": args.players, "rounds": args.rounds, "answer_ms": args.answer_ms,
            **result}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=60, help="players registered (60: 20 tables a round)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds played before the one playing (4)")
    parser.add_argument("--polls", type=int, default=500, help="requests of each kind a run (500)")
    parser.add_argument("--database", help="SQLite (default: a temporary file) or a PostgreSQL server URL")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--answer-ms", type=float, help="the server's PREFERANS_LOBBY_ANSWER_MS (default: its own, 1000)"
    )
    args = parser.parse_args()
    if args.players < 3 or args.players % 3:
        parser.error("--players: a multiple of 3, at least 3")
    runs = printed_runs(args.runs, lambda: run_once(args))
    summary: dict[str, Any] = {"summary": True}
    names = ("poll_cpu_ms", "poll_x_health", "requests_poll_cpu_ms", *(f"{kind}_cpu_us" for kind in KINDS),
             "page_cpu_us", "health_cpu_us")  # fmt: skip
    for name in names:
        values = [r[name] for r in runs if r[name] is not None]
        summary[name] = [min(values), max(values)] if values else None
    for kind in KINDS:
        ratios = [r["x_health"][kind] for r in runs]
        summary[f"x_health_{kind}"] = [min(ratios), max(ratios)]
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
