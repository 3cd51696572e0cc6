"""Judges' sanctions over REST (issue 11 §3, RULES §11): written into the game's sheet by its table, recorded,
revoked only by a recorded entry; refused to a player and an operator; a bad one is a 422 naming the field
that changes nothing."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from app.bots.client import ApiError
from tests.server.conftest import ADMIN, OPERATOR, ServerProcess, login, new_player
from tests.server.helpers import open_table


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    yield shared_server


async def test_a_sanction_is_written_recorded_and_revoked_by_a_new_entry(server: ServerProcess) -> None:
    table = await open_table(server, 3, {"pool_size": 10})
    admin = await login(server, ADMIN)
    try:
        while table.clients[0].last is None or table.clients[0].last["status"] != "playing":
            await table.clients[0].receive(timeout=10)
        base = f"/api/admin/tables/{table.id}/sanctions"
        body = {
            "violation": "dealer-looked-at-talon",
            "role": "dealer",
            "seat": 1,
            "reason": "saw the talon",
            "allow_offline": True,
        }
        for who in (table.players[0], table.operator):
            for method, path, payload in (
                ("GET", "/api/admin/catalogue", None),
                ("GET", base, None),
                ("POST", base, body),
                ("POST", "/api/admin/sanctions/1/revoke", {"reason": "x"}),
            ):
                with pytest.raises(ApiError) as refused:
                    await who.call(method, path, payload)
                assert refused.value.status == 403

        catalogue = await admin.call("GET", "/api/admin/catalogue")
        assert any(e["key"] == "dealer-looked-at-talon" for e in catalogue)
        before = (await admin.call("GET", f"/api/admin/tables/{table.id}/log"))["actions"]
        for bad, field in (
            ({**body, "violation": "no-such-entry"}, "violation"),
            ({**body, "allow_offline": False}, "violation"),
            ({**body, "role": "whister"}, "role"),
            ({**body, "seat": 3}, "seat"),
            ({**body, "reason": ""}, "reason"),
        ):
            with pytest.raises(ApiError) as refused:
                await admin.call("POST", base, bad)
            assert refused.value.status == 422 and field in str(refused.value.body), bad
        with pytest.raises(ApiError) as unknown:
            await admin.call("POST", "/api/admin/sanctions/999999/revoke", {"reason": "r"})
        assert unknown.value.status == 422 and "sanction" in str(unknown.value.body)
        assert await admin.call("GET", base) == []
        assert (await admin.call("GET", f"/api/admin/tables/{table.id}/log"))["actions"] == before

        given = await admin.call("POST", base, body)
        assert given["summary"].startswith(f"sanction by {ADMIN}: dealer-looked-at-talon")
        assert given["sheet"]["mountains"][1] == 2 and given["revoked"] is None
        # The table's players see the line on their sheet.
        while table.clients[2].sheet is None or table.clients[2].sheet["mountains"][1] != 2:
            await table.clients[2].receive(timeout=10)
        assert table.clients[2].sheet["history"][-1]["kind"] == "sanction"

        revoked = await admin.call(
            "POST", f"/api/admin/sanctions/{given['id']}/revoke", {"reason": "misread"}
        )
        assert revoked["sheet"]["mountains"][1] == 0
        assert revoked["revoked"]["by"] == ADMIN and revoked["revoked"]["reason"] == "misread"
        summaries = [line["summary"] for line in revoked["sheet"]["history"]]
        assert summaries[-2].startswith("sanction by") and summaries[-1].startswith(f"revoked by {ADMIN}")
        with pytest.raises(ApiError) as twice:
            await admin.call("POST", f"/api/admin/sanctions/{given['id']}/revoke", {"reason": "again"})
        assert twice.value.status == 422
        listed = await admin.call("GET", base)
        assert [(s["id"], s["revoked"]["reason"]) for s in listed] == [(given["id"], "misread")]
        audit = (await admin.call("GET", "/api/admin/audit?limit=20"))["items"]
        actions = [e["action"] for e in audit if e["target"] == f"table {table.id}"]
        assert actions == ["revoke_sanction", "sanction"]
    finally:
        await admin.close()
        await table.close()


async def test_a_judge_never_judges_a_game_he_plays_in(server: ServerProcess) -> None:
    """Issue 25: an administrator seated at a table sanctioned an opponent and awarded his own interrupted
    deal. He may do neither at that table; another administrator may."""
    operator = await login(server, OPERATOR)
    player_admin = await login(server, ADMIN)
    name = f"judge{secrets.token_hex(3)}"
    added = server.cli("users", "add", name, "--role", "admin", stdin="judge-password\n")
    assert added.returncode == 0, added.stderr
    judge = await login(server, name, "judge-password")
    players = [await new_player(server) for _ in range(2)]
    clients = []
    try:
        room = await operator.create_room("judges", {"pool_size": 10})
        table_id = int((await operator.open_table(room["id"], 3))["id"])
        for seat, api in enumerate([player_admin, *players]):
            client = api.table(table_id)
            await client.connect()
            clients.append(client)
            await api.sit(table_id, seat)
        while clients[0].last is None or clients[0].last["status"] != "playing":
            await clients[0].receive(timeout=30)
        sanction = {"violation": "dealer-looked-at-talon", "role": "dealer", "seat": 1, "reason": "r",
                    "allow_offline": True}  # fmt: skip
        with pytest.raises(ApiError) as own:
            await player_admin.call("POST", f"/api/admin/tables/{table_id}/sanctions", sanction)
        assert own.value.status == 403 and own.value.body["error"] == "forbidden", own.value.body
        given = await judge.call("POST", f"/api/admin/tables/{table_id}/sanctions", sanction)
        with pytest.raises(ApiError) as revoke:
            await player_admin.call("POST", f"/api/admin/sanctions/{given['id']}/revoke", {"reason": "mine"})
        assert revoke.value.status == 403

        await operator.call("POST", f"/api/tables/{table_id}/stop", {"reason": "power cut"})
        deals = await judge.call("GET", f"/api/admin/archive?table={table_id}")
        deal_id = deals["items"][0]["id"]
        award = {"tricks": None, "reason": "void"}
        with pytest.raises(ApiError) as own_award:
            await player_admin.call("POST", f"/api/admin/interrupted/{deal_id}/award", award)
        assert own_award.value.status == 403
        assert (await judge.call("GET", f"/api/admin/archive/{deal_id}"))["awards"] == []
        await judge.call("POST", f"/api/admin/interrupted/{deal_id}/award", award)
    finally:
        for client in clients:
            await client.close()
        for api in [operator, player_admin, judge, *players]:
            await api.close()
