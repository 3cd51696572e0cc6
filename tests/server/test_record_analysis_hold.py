"""An exported record of a tournament table is not analysed by the site while its round is on (RULES §12,
`app.server.analysis.analysis_allowed`), as its deals are not on the analysis pages."""

from __future__ import annotations

import pytest

from app.bots.client import ApiError
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player


async def test_a_tournament_tables_record_is_refused_while_its_round_is_on(
    sqlite_server: ServerProcess,
) -> None:
    operator = await login(sqlite_server, OPERATOR)
    players = [await new_player(sqlite_server, "r") for _ in range(3)]
    room = await operator.create_room("cup room", {"deal_time": 600})
    body = {"room_id": room["id"], "name": "Cup", "rounds": 1, "round_minutes": 60}
    tid = (await operator.call("POST", "/api/tournaments", body))["id"]
    for api in players:
        await api.call("POST", f"/api/tournaments/{tid}/register", {})
    (table,) = (await operator.call("POST", f"/api/tournaments/{tid}/rounds"))["tables"]
    record = await players[0].call("GET", f"/api/export/tables/{table['table_id']}")
    with pytest.raises(ApiError) as caught:
        await players[0].call("POST", "/api/analysis/record", record)
    assert caught.value.status == 409 and caught.value.body["error"] == "analysis_not_yet"

    # A table of no tournament: its record is analysed (here, no deal finished yet: an empty list).
    plain = await operator.open_table(room["id"], 3)
    exported = await players[0].call("GET", f"/api/export/tables/{plain['id']}")
    assert (await players[0].call("POST", "/api/analysis/record", exported)) == {"deals": []}
    for api in [operator, *players]:
        await api.close()
