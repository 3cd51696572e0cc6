"""The solver's analysis over REST (issue 21 §2): never for the deal in play, the same figures as the
analysis run here on the stored record, kept once computed; the policy's tournament gate holds it back."""

from __future__ import annotations

import asyncio
import random
from typing import Any, cast

import pytest

from app.analysis import analyse_deal
from app.analysis.records import played_deal
from app.bots.client import Api, ApiError, play_table, random_chooser
from app.server.analysis import analysis_allowed, register_round_gate
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player


async def _seat(players: list[Api], table_id: int) -> list[Any]:
    clients = []
    for api in players:
        client = api.table(table_id)
        await client.connect()
        clients.append(client)
        await api.sit(table_id)
    return clients


async def _play_one(operator: Api, server: ServerProcess, room_id: int, seed: int) -> tuple[int, list[Api]]:
    table = await operator.open_table(room_id, 3)
    people = [await new_player(server) for _ in range(3)]
    clients = await _seat(people, table["id"])
    # The first deal is being played: no analysis of it, to a player or anyone.
    for api in (people[0], operator):
        with pytest.raises(ApiError) as caught:
            await api.call("GET", f"/api/analysis/tables/{table['id']}/deals/1")
        assert caught.value.status == 409 and caught.value.body["error"] == "analysis_not_yet"
    rng = random.Random(seed)
    await asyncio.wait_for(
        asyncio.gather(*(play_table(c, random_chooser(random.Random(rng.random()))) for c in clients)), 300
    )
    for client in clients:
        await client.close()
    return table["id"], people


async def test_analysis_is_refused_while_the_deal_is_played_and_matches_the_record(
    shared_server: ServerProcess,
) -> None:
    operator = await login(shared_server, OPERATOR)
    room = await operator.create_room("analysis", {"pool_size": 2, "deal_time": 60, "reserve_time": 60})
    analysed = 0
    for seed in range(5):  # random bots sometimes pass every deal out: play until a deal had cards played
        table_id, people = await _play_one(operator, shared_server, room["id"], seed)
        history = await operator.call("GET", f"/api/tables/{table_id}/history")
        for deal in history["deals"]:
            out = await people[1].call("GET", f"/api/analysis/tables/{table_id}/deals/{deal['deal']}")
            played = played_deal(deal["result"], deal["record"])
            if played is None:
                assert out["analysis"] is None
                continue
            here = analyse_deal(played[0])
            seats = played[1]
            got = out["analysis"]
            assert got["start"] == here.start and got["taken"] == here.taken
            assert [(c["seat"], c["card"], c["before"], c["after"], c["loss"]) for c in got["cards"]] == [
                (seats[v.seat], v.card.text, v.before, v.after, v.loss) for v in here.cards
            ]
            assert out["record"]["hands"] == deal["record"]["record"]["hands"]  # all hands, for the replay
            again = await people[2].call("GET", f"/api/analysis/tables/{table_id}/deals/{deal['deal']}")
            assert again["analysis"] == got
            analysed += 1
        summary = await operator.call("GET", f"/api/analysis/tables/{table_id}")
        assert summary["held_back"] is False
        assert [d["deal"] for d in summary["deals"]] == [d["deal"] for d in history["deals"]]
        with pytest.raises(ApiError) as caught:
            await operator.call("GET", f"/api/analysis/tables/{table_id}/deals/999")
        assert caught.value.status == 404
        for api in people:
            await api.close()
        if analysed:
            break
    assert analysed > 0
    await operator.close()


async def test_an_imported_deal_is_analysed_and_a_bad_one_refused(shared_server: ServerProcess) -> None:
    api = await new_player(shared_server)
    deal = {
        "hands": [
            ["sA", "sK", "sQ", "sJ", "sT", "s9", "s8", "s7", "cA", "cK"],
            ["dA", "dK", "dQ", "dJ", "dT", "d9", "d8", "d7", "cQ", "cJ"],
            ["hA", "hK", "hQ", "hJ", "hT", "h9", "h8", "h7", "cT", "c9"],
        ],
        "trump": "s", "mode": "contract", "declarer": 0, "leader": 1, "play": ["dA", "hA", "s7"],
    }  # fmt: skip
    out = await api.call("POST", "/api/analysis/deal", deal)
    assert out["start"] == 10 and [c["loss"] for c in out["cards"]] == [0, 0, 0]
    with pytest.raises(ApiError) as caught:
        await api.call("POST", "/api/analysis/deal", {**deal, "play": ["dA", "hA", "cA"]})  # must trump
    assert caught.value.status == 422 and "cannot play cA" in caught.value.body["message"]
    await api.close()


async def test_a_tournament_round_gate_holds_the_analysis_back() -> None:
    """The policy tournament code plugs into: a round still on at any table holds every deal back (the
    gates registered here are this test's alone: `tests/conftest.py`)."""
    session = cast(Any, None)
    assert not await analysis_allowed(session, 1, deal_over=False)
    assert await analysis_allowed(session, 1, deal_over=True)
    on: set[int] = {7}

    async def round_on(_session: Any, table_id: int) -> bool | None:
        return False if table_id in on else None

    register_round_gate(round_on)
    assert not await analysis_allowed(session, 7, deal_over=True)
    assert await analysis_allowed(session, 8, deal_over=True)
    on.clear()
    assert await analysis_allowed(session, 7, deal_over=True)
