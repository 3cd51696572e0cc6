"""``python -m app.bots play``: bots play random legal moves at N tables over the real protocol.

The operator logs in with the password in ``BOTS_PASSWORD``, creates a room and the tables, bot player
accounts are registered as needed, each bot connects its own websocket, and one JSON line per table is
printed when its game ends: ``table``, ``finished``, ``reason``, ``settlement``, ``sum``, ``deals``.
An ``--idle-seat`` bot connects but never acts, to provoke timeouts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import sys
from typing import Any

from app.bots.client import Api, ApiError, TableClient, play_table, random_chooser


async def _bot_account(server: str, prefix: str, index: int) -> Api:
    api = Api(server)
    name = f"{prefix}-{index}"
    password = secrets.token_urlsafe(12)
    try:
        await api.register(name, password)
    except ApiError as exc:
        if exc.status != 409:
            raise
        name = f"{prefix}-{index}-{secrets.token_hex(3)}"
        await api.register(name, password)
    await api.login(name, password)
    return api


async def _play_one_table(
    server: str, room_id: int, operator: Api, args: argparse.Namespace, *, table_no: int, rng: random.Random
) -> dict[str, Any]:
    table = await operator.open_table(room_id, args.seats)
    table_id = table["id"]
    prefix = f"bot{secrets.token_hex(3)}t{table_no}"
    bots = [await _bot_account(server, prefix, seat) for seat in range(args.seats)]
    clients: list[TableClient] = []
    try:
        for seat, bot in enumerate(bots):
            client = bot.table(table_id)
            await client.connect()
            clients.append(client)
            await bot.sit(table_id, seat)
        games = [
            play_table(
                client,
                None if seat == args.idle_seat else random_chooser(random.Random(rng.random())),
            )
            for seat, client in enumerate(clients)
        ]
        finals = await asyncio.gather(*games)
    finally:
        for client in clients:
            await client.close()
        for bot in bots:
            await bot.close()
    final = finals[0]
    outcome = final.get("outcome") or {}
    settlement = outcome.get("settlement")
    sheet = final.get("sheet") or {}
    return {
        "table": table_id,
        "finished": final["status"] in ("finished", "awaiting_adjudication"),
        "status": final["status"],
        "reason": outcome.get("reason"),
        "settlement": None if settlement is None else settlement.get("result"),
        "sum": None if settlement is None else settlement.get("sum"),
        "deals": len(
            [
                h
                for h in sheet.get("history", [])
                if h.get("kind") not in ("timeout", "sanction", "substitute", "join")
            ]
        ),
    }


async def play(args: argparse.Namespace) -> int:
    password = os.environ.get("BOTS_PASSWORD")
    if not password:
        print("error: set BOTS_PASSWORD to the operator's password", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    operator = Api(args.server)
    try:
        await operator.login(args.operator, password)
        overrides = {
            "pool_size": args.pool_size,
            "deal_time": args.deal_time,
            "reserve_time": args.reserve_time,
        }
        room = await operator.create_room(f"bots-{secrets.token_hex(3)}", overrides)
        runs = [
            _play_one_table(
                args.server, room["id"], operator, args, table_no=n, rng=random.Random(rng.random())
            )
            for n in range(args.tables)
        ]
        for coro in asyncio.as_completed(runs):
            line = await coro
            print(json.dumps(line), flush=True)
    except ApiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        await operator.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.bots")
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("play", help="bots play random legal moves until every game ends")
    p.add_argument("--server", required=True, help="e.g. http://127.0.0.1:8000")
    p.add_argument("--operator", required=True)
    p.add_argument("--tables", type=int, default=1)
    p.add_argument("--seats", type=int, choices=(3, 4), default=3)
    p.add_argument("--pool-size", type=int, default=10)
    p.add_argument("--deal-time", type=float, default=120.0)
    p.add_argument("--reserve-time", type=float, default=600.0)
    p.add_argument("--idle-seat", type=int, default=None)
    p.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    return asyncio.run(play(args))


if __name__ == "__main__":
    raise SystemExit(main())
