"""Calls from a tournament table over the real server. The captain's (RULES.md §9.6, §12): the called captain
sees the caller's hand and the auction and nothing else; nobody else sees them; one suggestion reaches the
caller; 3 calls a pulya. The judge's (§9.5): the player's words reach the tournament's judges only."""

from __future__ import annotations

import asyncio
import random
from fractions import Fraction
from typing import Any

import pytest

from app.bots.client import Api, ApiError, play_table, random_chooser
from app.engine.cards import DECK
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player
from tests.server.helpers import team_round

ALL_CARDS = {c.text for c in DECK}


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(set(), *(_strings(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(set(), *(_strings(v) for v in value))
    return set()


async def _snapshot(api: Api, table_id: int) -> dict[str, Any]:
    client = api.table(table_id)
    await client.connect()
    try:
        while client.last is None or client.last.get("view") is None:
            await client.receive(timeout=30)
        return client.last
    finally:
        await client.close()


async def test_a_captains_call_is_seen_by_the_captain_only(sqlite_server: ServerProcess) -> None:
    server = sqlite_server
    operator = await login(server, OPERATOR)
    players = [await new_player(server, "c") for _ in range(6)]
    names = {(await api.call("GET", "/api/auth/me"))["name"]: api for api in players}
    try:
        tid, first, second = await team_round(operator, players)
        probe = await _snapshot(names[first["players"][0]], first["table_id"])
        seat = probe["view"]["to_act"]
        caller = first["players"][seat]
        captain, deputy, bystander = second["players"]
        for name, role in ((caller, None), (captain, "captain"), (deputy, "deputy")):
            await operator.call(
                "POST", f"/api/tournaments/{tid}/teams", {"player": name, "team": "Neva", "role": role}
            )

        call = await names[caller].call("POST", f"/api/tournaments/tables/{first['table_id']}/captain")
        assert call["captain"] == captain and call["open"] and call["calls_left"] == 2
        mine = await names[captain].call("GET", "/api/tournaments/captain-calls/mine")
        assert [c["id"] for c in mine] == [call["id"]]

        hand = (await _snapshot(names[caller], first["table_id"]))["view"]["deal"]["hands"][str(seat)]
        seen = await names[captain].call("GET", f"/api/tournaments/captain-calls/{call['id']}")
        assert seen["view"]["hand"] == hand
        assert _strings(seen) & ALL_CARDS == set(hand)  # the caller's hand, no other card (§12)
        for other in (bystander, *[p for p in first["players"] if p != caller]):
            with pytest.raises(ApiError) as refused:
                await names[other].call("GET", f"/api/tournaments/captain-calls/{call['id']}")
            assert refused.value.status == 403
        own = await names[caller].call("GET", f"/api/tournaments/captain-calls/{call['id']}")
        assert "view" not in own

        told = await names[captain].call(
            "POST", f"/api/tournaments/captain-calls/{call['id']}/suggest", {"bid": "pass"}
        )
        assert told["suggestion"] == "pass"
        with pytest.raises(ApiError):
            await names[captain].call(
                "POST", f"/api/tournaments/captain-calls/{call['id']}/suggest", {"bid": "pass"}
            )
        assert (await names[caller].call("GET", f"/api/tournaments/captain-calls/{call['id']}"))[
            "suggestion"
        ] == "pass"

        for _ in range(2):
            await names[caller].call("POST", f"/api/tournaments/tables/{first['table_id']}/captain")
        with pytest.raises(ApiError) as fourth:
            await names[caller].call("POST", f"/api/tournaments/tables/{first['table_id']}/captain")
        assert fourth.value.status == 422 and "at most 3" in str(fourth.value.body)

        # §9.5: a player calls the judge with his words; every judge of the tournament sees it with the table.
        words = "the dealer showed a card"
        sent = await names[caller].call(
            "POST", f"/api/tournaments/tables/{first['table_id']}/judge", {"words": words}
        )
        seen_by_judge = await operator.call("GET", f"/api/tournaments/{tid}/judge-calls")
        assert [(c["id"], c["table_id"], c["words"]) for c in seen_by_judge] == [
            (sent["id"], first["table_id"], words)
        ]
        with pytest.raises(ApiError) as not_a_judge:
            await names[bystander].call("GET", f"/api/tournaments/{tid}/judge-calls")
        assert not_a_judge.value.status == 403
        with pytest.raises(ApiError) as not_seated:
            await names[bystander].call(
                "POST", f"/api/tournaments/tables/{first['table_id']}/judge", {"words": "x"}
            )
        assert not_seated.value.status == 409
        answered = await operator.call(
            "POST", f"/api/tournaments/judge-calls/{sent['id']}/answer", {"words": "play on"}
        )
        assert answered["answered_by"] == OPERATOR and answered["answer"] == "play on"
    finally:
        for api in (operator, *players):
            await api.close()


async def test_a_robot_fills_the_seat_when_the_organiser_chose_robots(sqlite_server: ServerProcess) -> None:
    """§9.2: two players, robots allowed: one table of three with a robot seat, played to the round's end."""
    server = sqlite_server
    operator = await login(server, OPERATOR)
    players = [await new_player(server, "r") for _ in range(2)]
    try:
        room = await operator.create_room("robot room", {"deal_time": 60})
        body = {"room_id": room["id"], "name": "Small", "rounds": 1, "round_minutes": 0.05, "robots": True,
                "robot_level": "random", "overrides": {"round_end_warning": 0}}  # fmt: skip
        tid = (await operator.call("POST", "/api/tournaments", body))["id"]
        for api in players:
            await api.call("POST", f"/api/tournaments/{tid}/register", {})
        rnd = await operator.call("POST", f"/api/tournaments/{tid}/rounds")
        [table] = rnd["tables"]
        assert len(table["players"]) == 3 and table["players"].count(None) == 1 and not rnd["byes"]
        finals = []
        for api in players:
            client = api.table(table["table_id"])
            await client.connect()
            finals.append(client)
        results = await asyncio.gather(
            *(play_table(c, random_chooser(random.Random(i)), idle_timeout=120) for i, c in enumerate(finals))
        )
        for client in finals:
            await client.close()
        assert results[0]["outcome"]["reason"] == "round_end"
        standings = await operator.call("GET", f"/api/tournaments/{tid}/standings")
        [scored] = standings["tables"]
        robot_seat = table["players"].index(None)
        humans = sum(Fraction(r["score"]) for r in standings["standings"])
        assert humans == -Fraction(scored["indices"][robot_seat])  # the robot's index balances the table
    finally:
        for api in (operator, *players):
            await api.close()
