"""Administration of accounts (issue 11 §4): list, role, disable/enable, password reset, the audit log;
every route refuses a player and an operator."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.bots.client import Api, ApiError
from tests.server.conftest import ADMIN, OPERATOR, ServerProcess, login, new_player


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    yield shared_server


async def test_an_admin_manages_accounts_and_every_change_is_audited(server: ServerProcess) -> None:
    admin = await login(server, ADMIN)
    operator = await login(server, OPERATOR)
    player = await new_player(server)
    name = (await player.call("GET", "/api/auth/me"))["name"]
    try:
        routes = [
            ("GET", "/api/admin/users", None),
            ("POST", f"/api/admin/users/{name}/role", {"role": "operator"}),
            ("POST", f"/api/admin/users/{name}/disable", None),
            ("POST", f"/api/admin/users/{name}/enable", None),
            ("POST", f"/api/admin/users/{name}/password", {"password": "a-new-password"}),
            ("GET", "/api/admin/audit", None),
        ]
        for who in (player, operator):
            for method, path, body in routes:
                with pytest.raises(ApiError) as refused:
                    await who.call(method, path, body)
                assert refused.value.status == 403, path

        found = await admin.call("GET", f"/api/admin/users?name={name}")
        assert found["total"] == 1 and found["items"][0]["role"] == "player"
        operators = await admin.call("GET", "/api/admin/users?role=operator")
        assert OPERATOR in [u["name"] for u in operators["items"]]

        promoted = await admin.call("POST", f"/api/admin/users/{name}/role", {"role": "operator"})
        assert promoted["role"] == "operator"
        room = await player.create_room("promoted room", {})  # the new role works at the next request
        assert room["id"]
        with pytest.raises(ApiError) as bad_role:
            await admin.call("POST", f"/api/admin/users/{name}/role", {"role": "king"})
        assert bad_role.value.status == 422
        with pytest.raises(ApiError) as own:
            await admin.call("POST", f"/api/admin/users/{ADMIN}/role", {"role": "player"})
        assert own.value.status == 409

        with pytest.raises(ApiError) as short:
            await admin.call("POST", f"/api/admin/users/{name}/password", {"password": "x"})
        assert short.value.status == 422
        await admin.call("POST", f"/api/admin/users/{name}/password", {"password": "a-new-password"})
        with pytest.raises(ApiError) as revoked:
            await player.call("GET", "/api/auth/me")
        assert revoked.value.status == 401  # the old token stopped working at once
        fresh = Api(server.url)
        await fresh.login(name, "a-new-password")
        assert (await fresh.call("GET", "/api/auth/me"))["name"] == name

        await admin.call("POST", f"/api/admin/users/{name}/disable")
        with pytest.raises(ApiError) as disabled:
            await fresh.call("GET", "/api/auth/me")
        assert disabled.value.status == 401
        await admin.call("POST", f"/api/admin/users/{name}/enable")
        await fresh.close()
        with pytest.raises(ApiError) as unknown:
            await admin.call("POST", "/api/admin/users/nobody-here/disable")
        assert unknown.value.status == 404

        log = await admin.call("GET", "/api/admin/audit?limit=10")
        mine = [(e["action"], e["admin"]) for e in log["items"] if e["target"] == name]
        assert mine == [("enable", ADMIN), ("disable", ADMIN), ("password", ADMIN), ("role", ADMIN)]
        role_entry = next(e for e in log["items"] if e["target"] == name and e["action"] == "role")
        assert role_entry["detail"] == {"before": "player", "after": "operator"}
        assert "a-new-password" not in str(log)
    finally:
        for api in (admin, operator, player):
            await api.close()
