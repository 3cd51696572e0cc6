"""Operators' rooms over REST (issue 11 §1): edit with per-field 422s, close, the live tables and the finished
games; a player and an operator of another room are refused (403)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from app.auth.roles import Role
from app.bots.client import Api, ApiError
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    yield shared_server


async def other_operator(server: ServerProcess) -> Api:
    name = f"op{secrets.token_hex(3)}"
    done = server.cli("users", "add", name, "--role", Role.OPERATOR.value, stdin="operator-password\n")
    assert done.returncode == 0, done.stderr
    return await login(server, name, "operator-password")


async def test_an_operator_edits_watches_and_closes_only_their_own_rooms(server: ServerProcess) -> None:
    operator = await login(server, OPERATOR)
    stranger = await other_operator(server)
    player = await new_player(server)
    try:
        room = await operator.create_room("Neva", {"pool_size": 10})
        table = await operator.open_table(room["id"], 3)
        base = f"/api/operator/rooms/{room['id']}"
        for who in (player, stranger):
            for method, path, body in (
                ("PATCH", base, {"name": "mine now"}),
                ("POST", f"{base}/close", None),
                ("GET", f"{base}/live", None),
                ("GET", f"{base}/games", None),
            ):
                with pytest.raises(ApiError) as refused:
                    await who.call(method, path, body)
                assert refused.value.status == 403, (path, refused.value.body)
        with pytest.raises(ApiError) as not_operator:
            await player.call("GET", "/api/operator/rooms")
        assert not_operator.value.status == 403

        invalid: list[tuple[dict[str, Any], str]] = [
            ({"overrides": {"pool_size": -1}}, "pool_size"),
            ({"name": ""}, "name"),
        ]
        for body, field in invalid:
            with pytest.raises(ApiError) as bad:
                await operator.call("PATCH", base, body)
            assert bad.value.status == 422 and bad.value.body["field"].endswith(field)
        assert (await operator.call("GET", f"/api/rooms/{room['id']}"))["overrides"] == {"pool_size": 10}
        edited = await operator.call("PATCH", base, {"name": "Neva 2", "overrides": {"pool_size": 20}})
        assert edited["name"] == "Neva 2" and edited["conventions"]["pool_size"] == 20

        live = await operator.call("GET", f"{base}/live")
        assert [t["id"] for t in live] == [table["id"]] and live[0]["status"] == "waiting"
        assert [t["id"] for t in await stranger.call("GET", "/api/operator/rooms")] == []
        assert room["id"] in [r["id"] for r in await operator.call("GET", "/api/operator/rooms")]
        assert await operator.call("GET", f"{base}/games") == []

        await operator.call("POST", f"{base}/close")
        with pytest.raises(ApiError) as closed:
            await operator.open_table(room["id"], 3)
        assert closed.value.status == 409
        assert room["id"] not in [r["id"] for r in await player.call("GET", "/api/rooms")]
    finally:
        for api in (operator, stranger, player):
            await api.close()
