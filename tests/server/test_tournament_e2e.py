"""A tournament over the real server (RULES.md §9), on SQLite and PostgreSQL: 10 players played by bots, two
short rounds drawn and timed by the server, a kill -9 in the middle of round 2; the standings are the sums of
the stored settlements; a judge's −100 and an appeal that changes it move them."""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from fractions import Fraction
from typing import Any

import pytest
import websockets

from app.bots.client import Api, ApiError, play_table, random_chooser
from tests.server.conftest import ADMIN, OPERATOR, ServerProcess, login, new_player


async def _play(api: Api, tournament: int, seed: int) -> dict[str, Any] | None:
    """Play the caller's table of the latest round to its end (None: a bye)."""
    me = await api.call("GET", f"/api/tournaments/{tournament}/me")
    if me["table_id"] is None:
        return None
    client = api.table(me["table_id"])
    await client.connect()
    try:
        return await play_table(client, random_chooser(random.Random(seed)), idle_timeout=120)
    finally:
        await client.close()


async def _round(players: list[Api], tournament: int, seed: int) -> list[dict[str, Any] | None]:
    return await asyncio.gather(*(_play(api, tournament, seed + i) for i, api in enumerate(players)))


async def _wait_round_finished(api: Api, tournament: int, number: int) -> dict[str, Any]:
    for _ in range(600):
        info: dict[str, Any] = await api.call("GET", f"/api/tournaments/{tournament}")
        rnd = info["round_list"][number - 1]
        if rnd["status"] == "finished":
            return info
        await asyncio.sleep(0.1)
    raise AssertionError(f"round {number} did not finish: {rnd}")


async def _wait_all_in_deal(api: Api, room: int, deal: int) -> None:
    """Until every live table of the room plays deal ``deal`` or a later one."""
    for _ in range(600):
        live = await api.call("GET", f"/api/operator/rooms/{room}/live")
        if live and all(t.get("deal", 0) >= deal for t in live):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the tables did not reach deal {deal}")


def _sums(info: dict[str, Any]) -> dict[str, Fraction]:
    """Each player's sum of his stored settlements over the rounds."""
    sums: dict[str, Fraction] = defaultdict(Fraction)
    for rnd in info["round_list"]:
        for table in rnd["tables"]:
            result = table["settlement"]["result"]
            assert sum(Fraction(v) for v in result) == 0  # the table's indices sum to 0 (§9.4)
            for player, value in zip(table["players"], result, strict=True):
                if player is not None:
                    sums[player] += Fraction(value)
    return sums


def _scores(standings: dict[str, Any]) -> dict[str, Fraction]:
    return {row["player"]: Fraction(row["score"]) for row in standings["standings"]}


async def test_ten_players_two_rounds_a_kill_9_standings_judging_and_an_appeal(server: ServerProcess) -> None:
    operator = await login(server, OPERATOR)
    admin = await login(server, ADMIN)
    players = [await new_player(server, "t") for _ in range(10)]
    names = [(await api.call("GET", "/api/auth/me"))["name"] for api in players]
    try:
        room = await operator.create_room("tournament room", {"deal_time": 60, "reserve_time": 600})
        created = await operator.call(
            "POST", "/api/tournaments",
            {"room_id": room["id"], "name": "Cup", "rounds": 2, "round_minutes": 0.1,
             "overrides": {"round_end_warning": 0}},
        )  # fmt: skip
        tid = created["id"]
        assert created["status"] == "registration" and created["conventions"]["tournament"] is True
        for api in players:
            await api.call("POST", f"/api/tournaments/{tid}/register", {})
        with pytest.raises(ApiError) as refused:  # a player does not start rounds
            await players[0].call("POST", f"/api/tournaments/{tid}/rounds")
        assert refused.value.status == 403

        first = await operator.call("POST", f"/api/tournaments/{tid}/rounds")
        assert sorted(len(t["players"]) for t in first["tables"]) == [3, 3, 4]
        finals = await _round(players, tid, seed=1)
        assert all(f is not None and f["outcome"]["reason"] == "round_end" for f in finals)
        info = await _wait_round_finished(operator, tid, 1)
        for table in info["round_list"][0]["tables"]:
            end = table["end"]
            assert end["last_deal"] is not None and end["last_dealer"] is not None  # the announcement
        for final in finals:
            assert final is not None and final["sheet"]["last_deal"] is not None  # marked on the sheet

        second = await operator.call("POST", f"/api/tournaments/{tid}/rounds")
        assert second["number"] == 2
        playing = asyncio.gather(
            *(_play(api, tid, 50 + i) for i, api in enumerate(players)), return_exceptions=True
        )
        await _wait_all_in_deal(operator, room["id"], 2)
        server.kill()  # kill -9 in the middle of round 2
        crashed = await playing
        assert any(isinstance(r, websockets.ConnectionClosed | OSError) for r in crashed), crashed
        await asyncio.sleep(1.0)
        server.start()
        after = await operator.call("GET", f"/api/tournaments/{tid}")
        assert after["round_list"][1]["clock"]["downtime_ms"] >= 1000  # the outage is added to the round
        # RULES §12: a finished deal of the round being played is not analysed until the round is over.
        seated = after["round_list"][1]["tables"][0]["table_id"]
        with pytest.raises(ApiError) as held:
            await operator.call("GET", f"/api/analysis/tables/{seated}/deals/1")
        assert held.value.status == 409 and held.value.body["error"] == "analysis_not_yet"
        await _round(players, tid, seed=100)
        info = await _wait_round_finished(operator, tid, 2)
        analysed = await operator.call("GET", f"/api/analysis/tables/{seated}/deals/1")
        assert analysed["deal"] == 1 and analysed["result"] is not None

        standings = await players[3].call("GET", f"/api/tournaments/{tid}/standings")
        assert standings["tables_counted"] == standings["zero_sum_tables"] == 6
        assert _scores(standings) == _sums(info) and set(_scores(standings)) == set(names)

        # A judge's −100 moves the standings; the player appeals; after the tournament an administrator
        # other than the judge changes the decision to 0 and the standings follow.
        victim = names[4]
        decision = await operator.call(
            "POST", f"/api/tournaments/{tid}/adjustments",
            {"player": victim, "points": -100, "reason": "argued with the judge"},
        )  # fmt: skip
        penalised = _scores(await operator.call("GET", f"/api/tournaments/{tid}/standings"))
        assert penalised[victim] == _sums(info)[victim] - 100
        appeal = await players[4].call(
            "POST", f"/api/tournaments/{tid}/adjustments/{decision['id']}/appeal", {"reason": "I asked only"}
        )
        hearing = {"verdict": "decision_changed", "points": 0, "note": "a question is not an argument"}
        with pytest.raises(ApiError) as early:
            await admin.call("POST", f"/api/tournaments/appeals/{appeal['id']}/hear", hearing)
        assert early.value.status == 422  # heard after the tournament
        finished = await operator.call("POST", f"/api/tournaments/{tid}/finish")
        assert finished["status"] == "finished"
        heard = await admin.call("POST", f"/api/tournaments/appeals/{appeal['id']}/hear", hearing)
        assert heard["verdict"] == "decision_changed" and heard["heard_by"] == ADMIN
        final = await operator.call("GET", f"/api/tournaments/{tid}/standings")
        assert final["final"] and _scores(final) == _sums(info)
        audit = await admin.call("GET", "/api/admin/audit?limit=200")
        actions = {e["action"] for e in audit["items"]}
        assert {
            "tournament_create",
            "tournament_round",
            "tournament_adjust",
            "tournament_hear_appeal",
        } <= actions
    finally:
        for api in (operator, admin, *players):
            await api.close()
