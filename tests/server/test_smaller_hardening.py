"""The smaller items of issue 13: websocket Origin, security headers, /docs off, caps on tables per
operator, finished tables not loaded by a seat change, /api/rooms paged, the admin log and a seated admin."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from app.bots.client import ApiError
from app.server.http.middleware import SecurityHeaders
from tests.server.conftest import ADMIN, OPERATOR, ServerProcess, _server, login, new_player
from tests.server.helpers import open_table, play_out


@pytest.fixture
def tight_server(tmp_path: Path) -> Iterator[ServerProcess]:
    env = {
        "PREFERANS_API_DOCS": "false",
        "PREFERANS_MAX_LIVE_TABLES_PER_OPERATOR": "3",
        "PREFERANS_ALLOWED_ORIGINS": "https://play.example.org",
    }
    yield from _server(f"sqlite+aiosqlite:///{tmp_path / 't.db'}", tmp_path, env)


async def _first_frame(url: str, origin: str | None) -> dict[str, Any]:
    headers = {"Origin": origin} if origin else None
    async with websockets.connect(url, additional_headers=headers) as ws:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        return frame


async def test_websocket_origins_are_checked(tight_server: ServerProcess) -> None:
    player = await new_player(tight_server)
    operator = await login(tight_server, OPERATOR)
    try:
        room = await operator.create_room("r", {})
        table = (await operator.open_table(room["id"], 3))["id"]
        own = f"http://127.0.0.1:{tight_server.port}"
        for origin in (None, own, "https://play.example.org"):
            assert (await _first_frame(await player.ws_url(table), origin))["type"] == "snapshot", origin
        for origin in ("https://evil.example.com", "http://127.0.0.1:1", "null"):
            frame = await _first_frame(await player.ws_url(table), origin)
            assert frame["code"] == "forbidden", origin
    finally:
        await player.close()
        await operator.close()


def test_pages_carry_security_headers_and_docs_can_be_off(
    tight_server: ServerProcess, sqlite_server: ServerProcess
) -> None:
    with httpx.Client(base_url=tight_server.url) as http:
        response = http.get("/api/health")
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"
        assert http.get("/api/no-such-page").headers["x-content-type-options"] == "nosniff"
        for path in ("/docs", "/redoc", "/openapi.json"):
            assert http.get(path).status_code == 404, path
    with httpx.Client(base_url=sqlite_server.url) as http:  # on by default
        assert http.get("/openapi.json").status_code == 200
        docs = http.get("/docs")
        assert docs.status_code == 200 and docs.headers["x-content-type-options"] == "nosniff"
        # Issue 25: served by the app under the site's policy, every asset from the app itself.
        assert docs.headers["content-security-policy"] == http.get("/").headers["content-security-policy"]
        assert "//" not in docs.text.replace("<!DOCTYPE", "")  # no URL of another origin
        for asset in re.findall(r'(?:src|href)="([^"]+)"', docs.text):
            fetched = http.get(asset)
            assert fetched.status_code == 200 and "content-security-policy" in fetched.headers, asset
        assert http.get("/redoc").status_code == 404  # ReDoc's bundle comes from a CDN: not served


async def test_tables_per_operator_are_capped_and_rooms_are_paged(tight_server: ServerProcess) -> None:
    operator = await login(tight_server, OPERATOR)
    try:
        rooms = [await operator.create_room(f"room {i}", {}) for i in range(5)]
        for i in range(3):
            await operator.open_table(rooms[i]["id"], 3)
        with pytest.raises(ApiError) as refused:
            await operator.open_table(rooms[3]["id"], 3)
        assert refused.value.status == 409 and refused.value.body["error"] == "too_many_tables"
        first = await operator.call("GET", "/api/rooms?limit=2")
        second = await operator.call("GET", f"/api/rooms?limit=2&after={first[-1]['id']}")
        rest = await operator.call("GET", f"/api/rooms?after={second[-1]['id']}")
        assert [r["id"] for r in first + second + rest] == [r["id"] for r in rooms]
        with pytest.raises(ApiError) as bad:
            await operator.call("GET", "/api/rooms?limit=100000")
        assert bad.value.status == 422 and bad.value.body["field"] == "limit"
    finally:
        await operator.close()


async def test_a_finished_table_is_not_loaded_by_a_seat_change(sqlite_server: ServerProcess) -> None:
    table = await open_table(sqlite_server, 3, {"pool_size": 1, "deal_time": 30, "reserve_time": 30})
    admin = await login(sqlite_server, ADMIN)
    operator = await login(sqlite_server, OPERATOR)
    latecomer = await new_player(sqlite_server)
    try:
        # An admin seated at a live table may not read its log (every hand is in it); others' it may.
        room = await operator.create_room("admin plays", {})
        own = (await operator.open_table(room["id"], 3))["id"]
        await admin.sit(own, 0)
        with pytest.raises(ApiError) as refused:
            await admin.call("GET", f"/api/admin/tables/{own}/log")
        assert refused.value.status == 403 and refused.value.body["error"] == "forbidden"
        assert (await admin.call("GET", f"/api/admin/tables/{table.id}/log"))["table"] == table.id

        finals = await play_out(table, seed=5)
        assert finals[0]["status"] == "finished"
        await table.close()
        await asyncio.sleep(0.5)  # the last socket closed: the finished table leaves memory
        for path, body in ((f"/api/tables/{table.id}/sit", {}), (f"/api/tables/{table.id}/leave", None)):
            with pytest.raises(ApiError) as over:
                await latecomer.call("POST", path, body)
            assert over.value.status == 409 and over.value.body["error"] == "game_over", path
        with pytest.raises(ApiError) as over:
            await operator.call("POST", f"/api/tables/{table.id}/stop", {"reason": "late"})
        assert over.value.status == 409 and over.value.body["error"] == "game_over"
    finally:
        for api in (admin, operator, latecomer):
            await api.close()


async def test_the_host_header_is_never_copied_into_the_content_security_policy() -> None:
    """Issue 25: with several workers the policy named the workers' ports on the host of the request's
    Host header, copied as sent. It names them only on a configured public host the header matches."""

    async def page(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    app = SecurityHeaders(
        page, socket_ports=(9001,), socket_hosts=frozenset({"play.example.org", "localhost"})
    )
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://x") as http:

        async def policy(host: str) -> str:
            response = await http.get("/", headers={"host": host})
            return response.headers["content-security-policy"]

        assert "connect-src 'self' ws://play.example.org:9001 wss://play.example.org:9001;" in await policy(
            "PLAY.example.org:8000"
        )
        assert "ws://localhost:9001" in await policy("localhost:8000")
        for forged in ("evil.example.com", "evil.example.com:9001", "play.example.org.evil.com", "*", ""):
            assert "connect-src 'self';" in await policy(forged), forged
