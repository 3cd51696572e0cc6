"""The practice table's hint (issue 21 §2): only in a practice room, only to the seated player whose turn
it is; the hint is one of that player's legal actions and the table accepts it when played."""

from __future__ import annotations

from typing import Any

import pytest

from app.bots.client import Api, ApiError
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player
from tests.server.helpers import fresh_snapshot


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
