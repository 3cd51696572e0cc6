"""RULES §7.7, [K 3.1.2] end to end over REST and websockets: a registered user watching a table of three
asks to join as a fourth (convention `fourth_may_join`), the three accept, the server is killed (-9) with
the join agreed and again once it took effect; the table comes back at four seats exactly as it was (the
join is an action of its log), the newcomer sits left of the last dealer with the Kodeks averages, never
saw a card of the deal in progress before he joined, and the game record and "my games" name him."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from app.bots.client import ApiError, play_table
from app.engine import replay_json
from tests.server.conftest import ADMIN, ServerProcess, login, new_player
from tests.server.helpers import Table, open_table, play_until, snapshot, snapshot_until

CONVENTIONS = {"pool_size": 20, "deal_time": 30, "reserve_time": 120, "fourth_may_join": True}


def _pools_before(history: list[dict[str, Any]], seats: int) -> tuple[list[int], list[int]]:
    pools, mountains = [0] * seats, [0] * seats
    for line in history:
        for w in line["writes"]:
            if w["column"] == "pool":
                pools[w["seat"]] += w["amount"]
            elif w["column"] == "mountain":
                mountains[w["seat"]] += w["amount"]
    return pools, mountains


async def _restart(server: ServerProcess) -> None:
    server.kill()
    await asyncio.sleep(1.0)
    server.start()


async def test_a_fourth_joins_three_across_two_restarts(server: ServerProcess) -> None:
    table: Table = await open_table(server, 3, CONVENTIONS)
    players = table.players
    dan = await new_player(server, "fourth")
    dan_name = (await dan.call("GET", "/api/auth/me"))["name"]
    names = [(await api.call("GET", "/api/auth/me"))["name"] for api in players]
    watching = dan.table(table.id, record=True)  # dan watches as a spectator until he joins
    await watching.connect()
    watcher = asyncio.create_task(play_table(watching, None, idle_timeout=120))
    try:
        await snapshot_until(players[0], table.id, lambda s: s["status"] == "playing")
        with pytest.raises(ApiError) as seated:
            await players[1].call("POST", f"/api/tables/{table.id}/join")
        assert seated.value.status == 409 and seated.value.body["error"] == "already_seated"
        asked = await dan.call("POST", f"/api/tables/{table.id}/join")
        proposal = asked["life"]["proposal"]
        assert proposal["kind"] == "join" and proposal["newcomer"]["name"] == dan_name
        assert proposal["accepted"] == [] and proposal["by"] is None
        for api in players:
            await api.call("POST", f"/api/tables/{table.id}/proposals/answer", {"accept": True})
        agreed = await snapshot(players[0], table.id)
        deal, dealer = agreed["view"]["deal_number"], agreed["view"]["dealer"]
        assert agreed["life"]["proposal"]["accepted"] == [0, 1, 2] and len(agreed["seats"]) == 3

        await _restart(server)  # kill -9 with the join agreed, not yet in effect
        with contextlib.suppress(BaseException):
            await watcher  # its socket closed with the server
        assert (await snapshot(players[0], table.id))["life"] == agreed["life"]
        await watching.connect()
        watcher = asyncio.create_task(play_table(watching, None, idle_timeout=120))
        clients = [api.table(table.id) for api in players]
        for client in clients:
            await client.connect()
        joined = await play_until(clients, players[0], table.id, lambda s: len(s["seats"]) == 4, seed=5)
        seat = dealer + 1  # left of the player who has just dealt
        moved = [s if s <= dealer else s + 1 for s in range(3)]
        assert [s["user"] for s in joined["seats"]][seat] == dan_name
        assert [joined["seats"][moved[s]]["user"] for s in range(3)] == names
        assert joined["view"]["seats"] == 4 and joined["life"] is None
        assert joined["view"]["deal_number"] >= deal + 1
        history = joined["sheet"]["history"]
        (at,) = [i for i, h in enumerate(history) if h["kind"] == "join"]
        assert (
            history[at]["summary"] == f"seat {seat}: {dan_name} joins after the deal dealt by seat {dealer}"
        )
        pools, mountains = _pools_before(history[:at], 4)
        written = {w["column"]: w["amount"] for w in history[at]["writes"]}
        assert written.get("pool", 0) == sum(pools) // 3  # the Kodeks averages
        assert written.get("mountain", 0) == -(-sum(mountains) // 3)

        # §12: until he joined, dan was a spectator: no hand of a deal in progress was sent to him.
        await snapshot_until(dan, table.id, lambda s: True)
        watcher.cancel()
        with contextlib.suppress(BaseException):
            await watcher
        seen = [f for f in watching.frames if f.get("view") and f["view"]["deal_number"] <= deal]
        assert any(f.get("view", {}).get("deal_number") == deal for f in seen)
        for frame in seen:
            view = frame["view"]
            hands = (view.get("deal") or {}).get("hands") or {}
            if view["phase"] != "deal_over":
                assert hands == {}, f"a spectator was shown {hands}"
            assert not any(e["kind"] in ("hand", "shown_hand") for e in frame.get("events", []))
        mine = await snapshot(dan, table.id)
        assert mine["seat"] == seat and mine["view"]["viewer"] == seat

        await _restart(server)  # kill -9 with the table at four seats: its log replays across the join
        again = await snapshot(dan, table.id)
        assert again["seat"] == seat and [s["user"] for s in again["seats"]] == [
            s["user"] for s in (await snapshot(players[0], table.id))["seats"]
        ]
        assert again["view"]["seats"] == 4 and again["sheet"]["seats"] == 4
        assert again["sheet"]["history"][: at + 1] == history[: at + 1]

        settled = await table.operator.call(
            "POST", f"/api/tables/{table.id}/decree", {"action": "settle", "reason": "closing"}
        )
        assert settled["seats"][seat] == dan_name
        clients = [api.table(table.id) for api in (*players, dan)]
        for client in clients:
            await client.connect()
        over = await play_until(
            clients,
            players[0],
            table.id,
            lambda s: s["status"] in ("finished", "awaiting_adjudication"),
            seed=5,
        )
        assert len(over["outcome"]["settlement"]["exact"]) == 4
        record = await dan.call("GET", f"/api/tables/{table.id}/history")
        holders = {(h["seat"], h["user"], h["first_deal"], h["last_deal"]) for h in record["holders"]}
        expected = {(seat, dan_name, deal + 1, None)}
        for old, name in enumerate(names):
            if moved[old] == old:
                expected.add((old, name, 1, None))
            else:  # the deals he played at three in his old seat, then his new seat
                expected |= {(old, name, 1, deal), (moved[old], name, deal + 1, None)}
        assert holders == expected
        # Each player's statistics count the deals he played, in the seat he played them from (§7.7).
        counted = [d for d in record["deals"] if d["result"] and d["result"]["type"] != "void"]
        assert any(d["deal"] <= deal for d in counted)
        mine = await players[0].call("GET", f"/api/stats/players/{dan_name}")
        assert mine["deals"] == len([d for d in counted if d["deal"] > deal])
        for name in names:
            held = [(s, first, last) for s, user, first, last in expected if user == name]
            declared = [
                d for d in counted
                if d["result"]["type"] in ("game", "zastrel") and d["result"].get("contract")
                and any(first <= d["deal"] <= (last or d["deal"]) and d["result"].get("declarer") == s
                        for s, first, last in held)
            ]  # fmt: skip
            theirs = await players[0].call("GET", f"/api/stats/players/{name}")
            assert theirs["deals"] == len(counted) and theirs["games_read"] == 1
            assert sum(c["declared"] for c in theirs["contracts"]) == len(declared)
        exported = await players[0].call("GET", f"/api/export/tables/{table.id}")
        assert {
            (h["seat"], h["name"], h["first_deal"], h["last_deal"]) for h in exported["holders"]
        } == expected
        first = await players[0].call("GET", f"/api/analysis/tables/{table.id}")
        by_deal = {d["deal"]: {int(s): p["name"] for s, p in d["players"].items()} for d in first["deals"]}
        assert by_deal[1] == dict(enumerate(names))  # a deal before the join: its three players, old seats
        assert {int(s): p["name"] for s, p in first["players"].items()}[seat] == dan_name
        assert table.id in [g["id"] for g in await dan.call("GET", "/api/history")]
        admin = await login(server, ADMIN)  # the archived log replays from three seats across the join
        log = await admin.call("GET", f"/api/admin/tables/{table.id}/log")
        await admin.close()
        assert (log["seats"], log["log_seats"]) == (4, 3)
        replayed = replay_json(
            {**log, "seats": log["log_seats"], "actions": [a["action"] for a in log["actions"]]}
        )
        assert replayed.seats == 4 and replayed.deal_number == over["view"]["deal_number"]
    finally:
        watcher.cancel()
        with contextlib.suppress(BaseException):
            await watching.close()
        await dan.close()
        await table.close()


async def test_asking_is_refused_typed_where_the_conventions_say_no(server: ServerProcess) -> None:
    table = await open_table(server, 3, {"pool_size": 20})  # fourth_may_join off by default
    eve = await new_player(server, "eve")
    try:
        await snapshot_until(table.players[0], table.id, lambda s: s["status"] == "playing")
        before = await snapshot(table.players[0], table.id)
        with pytest.raises(ApiError) as refused:
            await eve.call("POST", f"/api/tables/{table.id}/join")
        assert refused.value.status == 403 and refused.value.body["error"] == "no_fourth"
        after = await snapshot(table.players[0], table.id)
        assert after["v"] == before["v"] and after["life"] is None
        for _ in range(2):  # asking again and again: three askings, then a pause (each holds the proposal)
            with pytest.raises(ApiError) as refused:
                await eve.call("POST", f"/api/tables/{table.id}/join")
            assert refused.value.body["error"] == "no_fourth"
        # Straight over HTTP: the bots' client would wait out the Retry-After and ask again.
        response = await eve.http.post(
            f"/api/tables/{table.id}/join", headers={"Authorization": f"Bearer {eve.token}"}
        )
        assert response.status_code == 429 and response.json()["error"] == "rate_limited"
        assert int(response.headers["retry-after"]) > 60
    finally:
        await eve.close()
        await table.close()
