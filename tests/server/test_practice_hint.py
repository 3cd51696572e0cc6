"""The practice table's hint (issue 21 §2): only in a practice room, only to the seated player whose turn
it is; the hint is one of that player's legal actions and the table accepts it when played."""

from __future__ import annotations

from typing import Any

import pytest

from app.bots.client import Api, ApiError
from app.server.errors import ApiError as ServerError
from app.server.http.routes.practice import HintGate
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player
from tests.server.helpers import fresh_snapshot
from tests.server.test_ops import scrape


async def _table(operator: Api, server: ServerProcess, practice: bool) -> tuple[int, list[Api]]:
    room = await operator.create_room(
        "practice" if practice else "rated", {"deal_time": 60, "reserve_time": 60}
    )
    await operator.call("PUT", f"/api/ratings/rooms/{room['id']}/settings", {"rated": not practice})
    table = await operator.open_table(room["id"], 3)
    people = [await new_player(server) for _ in range(3)]
    for api in people:
        await api.sit(table["id"])
    return int(table["id"]), people


async def _turn(people: list[Api], table_id: int) -> tuple[int, dict[str, Any]]:
    for i, api in enumerate(people):
        snapshot, _ = await fresh_snapshot(api, table_id)
        if snapshot["legal"]:
            return i, snapshot
    raise AssertionError("nobody's turn")


async def test_a_hint_is_a_legal_move_of_the_player_to_act_at_a_practice_table(
    shared_server: ServerProcess,
) -> None:
    operator = await login(shared_server, OPERATOR)
    table_id, people = await _table(operator, shared_server, practice=True)
    for _ in range(4):  # a few moves of the auction, each by the hint
        mover, snapshot = await _turn(people, table_id)
        answer = await people[mover].call("POST", f"/api/tables/{table_id}/hint")
        legal = [{k: v for k, v in a.items() if k != "seat"} for a in snapshot["legal"]]
        assert answer["hint"] in legal
        assert answer == await people[mover].call("POST", f"/api/tables/{table_id}/hint")  # the same position
        for other, api in enumerate(people):
            if other != mover:
                with pytest.raises(ApiError) as caught:
                    await api.call("POST", f"/api/tables/{table_id}/hint")
                assert caught.value.status == 409 and caught.value.body["error"] == "not_your_turn"
        client = people[mover].table(table_id)
        await client.connect()
        while (await client.receive(timeout=30))["type"] != "snapshot":
            pass  # the snapshot carries the seat's last sequence number
        await client.act(answer["hint"])
        while True:
            message = await client.receive(timeout=30)
            assert message["type"] != "error", message
            if message["type"] == "update" and message["actions"] > snapshot["actions"]:
                break
        await client.close()
    watcher = await new_player(shared_server, "w")
    with pytest.raises(ApiError) as caught:
        await watcher.call("POST", f"/api/tables/{table_id}/hint")
    assert caught.value.status == 409 and caught.value.body["error"] == "not_seated"

    rated_id, rated_people = await _table(operator, shared_server, practice=False)
    mover, _ = await _turn(rated_people, rated_id)
    with pytest.raises(ApiError) as caught:
        await rated_people[mover].call("POST", f"/api/tables/{rated_id}/hint")
    assert caught.value.status == 403 and caught.value.body["error"] == "not_practice"
    for api in [operator, watcher, *people, *rated_people]:
        await api.close()


async def test_a_hint_at_a_finished_table_is_refused_without_reading_it_back(
    sqlite_server: ServerProcess,
) -> None:
    operator = await login(sqlite_server, OPERATOR)
    table_id, people = await _table(operator, sqlite_server, practice=True)
    await operator.call("POST", f"/api/tables/{table_id}/stop", {"reason": "closing"})
    name = (await people[0].call("GET", "/api/auth/me"))["name"]
    for api in [operator, *people]:
        await api.close()
    sqlite_server.stop()
    sqlite_server.start()  # the finished table is not in memory any more
    player = await login(sqlite_server, name, "player-password")
    with pytest.raises(ApiError) as caught:
        await player.call("POST", f"/api/tables/{table_id}/hint")
    assert caught.value.status == 409 and caught.value.body["error"] == "game_over"
    loaded = scrape(sqlite_server)
    assert loaded.get(("preferans_live_tables", (("status", "finished"),)), 0) == 0
    await player.close()


async def test_no_hint_at_a_tournament_table_even_in_an_unrated_room(sqlite_server: ServerProcess) -> None:
    operator = await login(sqlite_server, OPERATOR)
    players = [await new_player(sqlite_server, "t") for _ in range(3)]
    names = {(await api.call("GET", "/api/auth/me"))["name"]: api for api in players}
    room = await operator.create_room("cup room", {"deal_time": 600})
    await operator.call("PUT", f"/api/ratings/rooms/{room['id']}/settings", {"rated": False})
    body = {"room_id": room["id"], "name": "Cup", "rounds": 1, "round_minutes": 60}
    tid = (await operator.call("POST", "/api/tournaments", body))["id"]
    for api in players:
        await api.call("POST", f"/api/tournaments/{tid}/register", {})
    (table,) = (await operator.call("POST", f"/api/tournaments/{tid}/rounds"))["tables"]
    mover, _ = await _turn([names[n] for n in table["players"]], table["table_id"])
    with pytest.raises(ApiError) as caught:
        await names[table["players"][mover]].call("POST", f"/api/tables/{table['table_id']}/hint")
    assert caught.value.status == 403 and caught.value.body["error"] == "not_practice"
    for api in [operator, *players]:
        await api.close()


def test_hints_in_flight_are_bounded_per_player_and_in_all() -> None:
    gate = HintGate(limit=2)
    with gate.admit(1, 10):
        with pytest.raises(ServerError) as again, gate.admit(1, 10):
            pass
        assert again.value.code == "busy"
        with gate.admit(2, 10):
            with pytest.raises(ServerError) as full, gate.admit(3, 11):
                pass
            assert full.value.code == "busy"
    with gate.admit(3, 11):  # released: room again
        assert gate.asking == {(3, 11)}
    assert not gate.asking
