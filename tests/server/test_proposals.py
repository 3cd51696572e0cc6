"""RULES §7.7 end to end over REST and websockets: three players adjourn, the server is killed (-9) and
restarted while adjourned (status, frozen clocks and seats as they were), all say "ready" and it resumes;
a substitution agreed before a restart takes the seat after it with the seat's records, the game record
naming both holders and "my games" listing the game for both; an operator's decisions are audited."""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any

import pytest

from app.bots.client import ApiError
from tests.server.conftest import ADMIN, ServerProcess, login, new_player
from tests.server.helpers import Table, open_table, play_until, snapshot, snapshot_until


async def _play_until(table: Table, done: Any, seed: int = 3) -> dict[str, Any]:
    """The seated bots play random legal actions until the table's snapshot satisfies ``done``."""
    return await play_until(table.clients, table.players[0], table.id, done, seed)


def _reconnect(table: Table) -> None:
    table.clients = [api.table(table.id) for api in table.players[:3]]


async def test_adjourned_survives_a_restart_with_every_clock_frozen_and_resumes_on_ready(
    server: ServerProcess,
) -> None:
    table = await open_table(server, 3, {"pool_size": 20, "deal_time": 30, "reserve_time": 120})
    players = table.players
    try:
        await snapshot_until(players[0], table.id, lambda s: s["status"] == "playing")
        made = await players[0].call("POST", f"/api/tables/{table.id}/proposals", {"kind": "adjourn"})
        assert made["life"]["proposal"]["kind"] == "adjourn" and made["life"]["proposal"]["accepted"] == [0]
        with pytest.raises(ApiError) as open_already:
            await players[1].call("POST", f"/api/tables/{table.id}/proposals", {"kind": "settle"})
        assert open_already.value.status == 409
        for api in players[1:3]:
            await api.call("POST", f"/api/tables/{table.id}/proposals/answer", {"accept": True})
        adjourned = await _play_until(table, lambda s: s["status"] == "adjourned")
        assert adjourned["clock"]["frozen"] and adjourned["clock"]["running"] is None
        assert adjourned["life"]["adjourned"] is not None and adjourned["legal"] == []
        history = await players[1].call("GET", "/api/history")
        assert [(g["id"], g["status"]) for g in history] == [(table.id, "adjourned")]  # the way back in

        server.kill()
        await asyncio.sleep(1.5)
        server.start()
        again = await snapshot(players[0], table.id)
        assert again["status"] == "adjourned" and again["v"] == adjourned["v"]
        assert again["clock"] == adjourned["clock"]  # nothing ran: not the downtime, not the restart
        assert (
            again["life"] == adjourned["life"]
            and again["view"]["deal_number"] == adjourned["view"]["deal_number"]
        )
        await asyncio.sleep(1.0)
        assert (await snapshot(players[2], table.id))["clock"] == adjourned["clock"]

        for api in players[:2]:
            answer = await api.call("POST", f"/api/tables/{table.id}/ready")
            assert answer["status"] == "adjourned"
        resumed = await players[2].call("POST", f"/api/tables/{table.id}/ready")
        assert resumed["status"] == "playing" and resumed["life"] is None
        after = await snapshot(players[0], table.id)
        assert after["status"] == "playing" and not after["clock"]["frozen"]
        assert after["view"]["deal_number"] == adjourned["view"]["deal_number"] + 1
    finally:
        await table.close()


async def test_a_substitution_agreed_before_a_restart_takes_the_seat_after_it(server: ServerProcess) -> None:
    table = await open_table(server, 3, {"pool_size": 20, "deal_time": 30, "reserve_time": 120})
    players = table.players
    dan = await new_player(server, "sub")
    dan_name = (await dan.call("GET", "/api/auth/me"))["name"]
    leaver = (await players[1].call("GET", "/api/auth/me"))["name"]
    try:
        await snapshot_until(players[0], table.id, lambda s: s["status"] == "playing")
        path = f"/api/tables/{table.id}/proposals"
        with pytest.raises(ApiError) as seated:
            await players[1].call("POST", path, {"kind": "substitute", "substitute": leaver})
        assert seated.value.status == 422
        await players[1].call("POST", path, {"kind": "substitute", "substitute": dan_name})
        for api in (players[0], players[2], dan):
            await api.call("POST", f"{path}/answer", {"accept": True})
        agreed = await snapshot(players[0], table.id)
        deal = agreed["view"]["deal_number"]
        assert agreed["life"]["proposal"]["substitute_accepted"]

        server.kill()
        await asyncio.sleep(1.0)
        server.start()
        assert (await snapshot(players[0], table.id))["life"] == agreed["life"]  # stored, agreed
        _reconnect(table)
        for client in table.clients:
            await client.connect()
        moved = await _play_until(table, lambda s: s["seats"][1]["user"] == dan_name)
        assert moved["view"]["deal_number"] == deal + 1 and moved["life"] is None
        sheet = moved["sheet"]
        line = sheet["history"][-1] if sheet["history"][-1]["kind"] == "substitute" else None
        assert any(
            h["summary"] == f"seat 1: {leaver} → {dan_name} after deal {deal}" for h in sheet["history"]
        )
        assert line is None or line["writes"] == []
        dan_view = await snapshot(dan, table.id)
        assert dan_view["seat"] == 1 and (await snapshot(players[1], table.id))["seat"] is None

        operator = table.operator
        settled = await operator.call(
            "POST", f"/api/tables/{table.id}/decree", {"action": "settle", "reason": "club closes"}
        )
        assert settled["life"]["proposal"]["reason"] == "club closes"
        with pytest.raises(ApiError) as not_theirs:
            await players[0].call(
                "POST", f"/api/tables/{table.id}/decree", {"action": "adjourn", "reason": "x"}
            )
        assert not_theirs.value.status == 403
        table.clients = [dan.table(table.id), players[0].table(table.id), players[2].table(table.id)]
        for client in table.clients:
            await client.connect()
        over = await _play_until(table, lambda s: s["status"] in ("finished", "awaiting_adjudication"))
        assert over["outcome"]["reason"] == "interrupted"
        record = await players[0].call("GET", f"/api/tables/{table.id}/history")
        seat1 = [(h["user"], h["first_deal"], h["last_deal"]) for h in record["holders"] if h["seat"] == 1]
        assert seat1 == [(leaver, 1, deal), (dan_name, deal + 1, None)]
        # §7.7: each holder's statistics count only the deals he played; the settlement is the final holder's.
        counted = [d["deal"] for d in record["deals"] if d["result"] and d["result"]["type"] != "void"]
        assert any(n <= deal for n in counted) and any(n > deal for n in counted)
        gone = await players[0].call("GET", f"/api/stats/players/{leaver}")
        came = await players[0].call("GET", f"/api/stats/players/{dan_name}")
        assert gone["games_read"] == came["games_read"] == 1
        assert gone["deals"] == len([n for n in counted if n <= deal])
        assert came["deals"] == len([n for n in counted if n > deal])
        assert gone["pulyas"] == 0 and gone["index"]["per_pulya"] == []
        if record["status"] == "finished":
            assert came["pulyas"] == 1
            assert came["index"]["per_pulya"][0]["index"] == round(
                float(Fraction(record["settlement"]["exact"][1])), 2
            )
        exported = await players[0].call("GET", f"/api/export/tables/{table.id}")
        assert [
            (h["name"], h["first_deal"], h["last_deal"]) for h in exported["holders"] if h["seat"] == 1
        ] == seat1
        assert [p["name"] for p in exported["players"] if p["seat"] == 1] == [dan_name]
        for api in (players[1], dan):
            assert table.id in [g["id"] for g in await api.call("GET", "/api/history")]
        admin = await login(server, ADMIN)
        audit = (await admin.call("GET", "/api/admin/audit?limit=50"))["items"]
        assert any(e["action"] == "decree_settle" and e["target"] == f"table {table.id}" for e in audit)
        await admin.close()
    finally:
        await dan.close()
        await table.close()
