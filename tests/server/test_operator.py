"""An operator ends a pulya early (RULES §7.7); an administrator adjudicates the interrupted deal (§8.4)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.bots.client import ApiError
from tests.server.conftest import ADMIN, ServerProcess, login
from tests.server.helpers import open_table


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    yield shared_server


async def _wait_status(client: Any, status: str) -> dict[str, Any]:
    while client.last is None or client.last["status"] != status:
        await client.receive(timeout=10)
    last: dict[str, Any] = client.last
    return last


async def test_operator_stops_a_pulya_and_an_admin_awards_the_interrupted_deal(server: ServerProcess) -> None:
    table = await open_table(server, 3, {"pool_size": 10})
    admin = await login(server, ADMIN)
    try:
        await _wait_status(table.clients[0], "playing")
        with pytest.raises(ApiError) as refused:
            await table.players[0].call("POST", f"/api/tables/{table.id}/stop", {"reason": "bored"})
        assert refused.value.status == 403
        await table.operator.call("POST", f"/api/tables/{table.id}/stop", {"reason": "venue closes"})
        # The deal in progress is archived as interrupted: the pulya awaits its award (§8.2, §8.4).
        final = await _wait_status(table.clients[1], "awaiting_adjudication")
        assert final["outcome"]["reason"] == "interrupted"
        assert final["outcome"]["settlement"]["sum"] == 0
        assert "venue closes" in final["outcome"]["settlement"]["note"]

        pending = await admin.call("GET", f"/api/admin/archive?table={table.id}&status=awaiting")
        assert pending["total"] == 1
        deal_id = pending["items"][0]["id"]
        assert (await admin.call("GET", f"/api/admin/archive/{deal_id}"))["record"]["hands"]
        award = f"/api/admin/interrupted/{deal_id}/award"
        with pytest.raises(ApiError) as not_admin:
            await table.operator.call("POST", award, {"tricks": None, "reason": "r"})
        assert not_admin.value.status == 403
        with pytest.raises(ApiError) as bad_award:
            await admin.call("POST", award, {"tricks": {"0": 11}, "reason": "r"})
        assert bad_award.value.status == 422
        done = await admin.call("POST", award, {"tricks": None, "reason": "no declarer yet"})
        assert done["status"] == "finished" and done["settlement"]["sum"] == 0
        assert "venue closes" in done["settlement"]["note"]  # the operator's note survives the award
        after = await _wait_status(table.clients[1], "finished")
        assert after["outcome"]["settlement"] == done["settlement"]
        with pytest.raises(ApiError) as twice:
            await admin.call("POST", award, {"tricks": None, "reason": "again"})
        assert twice.value.status == 422  # a revision must say so (issue 11 §2)
    finally:
        await admin.close()
        await table.close()


async def test_every_seat_connection_status_is_shown_to_the_table(server: ServerProcess) -> None:
    """Issue 6 §3: the table sees who is connected; a disconnected player's seat is shown as such."""
    table = await open_table(server, 3, {"pool_size": 10}, spectator=True)
    try:
        spectator = table.spectator
        assert spectator is not None

        async def presence_of(seat: int, connected: bool) -> None:
            while True:
                frame = await spectator.receive(timeout=10)
                if frame["type"] == "presence" and frame["seats"][seat]["connected"] is connected:
                    return

        await presence_of(2, True)
        await table.clients[2].close()
        await presence_of(2, False)
        snapshot_seats = (await table.players[0].call("GET", f"/api/tables/{table.id}"))["players"]
        assert [s["connected"] for s in snapshot_seats] == [True, True, False]
    finally:
        await table.close()
