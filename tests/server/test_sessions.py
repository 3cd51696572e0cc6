"""Tokens and sockets (issue 13): websocket tickets keep tokens out of URLs and logs, tokens can be
revoked (logout, a disabled account) and live sockets close with them, the secret is not in the database."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from app.bots.client import Api
from tests.server.conftest import ADMIN, ServerProcess, _server, login, new_player
from tests.server.helpers import open_table, play_out


@pytest.fixture
def chatty_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """INFO logs and the access log on: everything uvicorn would ever write about a request."""
    env = {"PREFERANS_SESSION_RECHECK_INTERVAL": "0.5"}
    yield from _server(
        f"sqlite+aiosqlite:///{tmp_path / 's.db'}",
        tmp_path,
        env,
        log_level="info",
        extra_args=("--access-log",),
    )


@pytest.fixture
def short_token_server(tmp_path: Path) -> Iterator[ServerProcess]:
    yield from _server(f"sqlite+aiosqlite:///{tmp_path / 'e.db'}", tmp_path, {"PREFERANS_TOKEN_TTL": "3"})


async def closed_with(
    ws: websockets.ClientConnection, timeout: float = 10
) -> tuple[int, list[dict[str, Any]]]:
    """Read until the server closes; the close code and the frames seen."""
    frames = []
    with pytest.raises(websockets.ConnectionClosed) as closed:
        while True:
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), timeout)))
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, frames


async def test_a_ticket_opens_one_socket_once_and_tokens_never_travel_in_urls(
    chatty_server: ServerProcess,
) -> None:
    player = await new_player(chatty_server)
    try:
        url = await player.ws_url(1)
        async with websockets.connect(url) as ws:
            code, frames = await closed_with(ws)  # table 1 does not exist: the ticket itself was good
            assert code == 4404 and frames[0]["code"] == "not_found"
        async with websockets.connect(url) as ws:  # used already
            code, frames = await closed_with(ws)
            assert code == 4401 and frames[0]["code"] == "unauthorized"
        async with websockets.connect(f"{player.ws_base(1)}?token={player.token}") as ws:  # refused
            code, _ = await closed_with(ws)  # a token in the URL is not a credential any more
            assert code == 4401
    finally:
        await player.close()


async def test_the_log_of_a_whole_bot_game_holds_no_credential(chatty_server: ServerProcess) -> None:
    table = await open_table(chatty_server, 3, {"pool_size": 1, "deal_time": 30, "reserve_time": 30})
    try:
        finals = await play_out(table, seed=2)
        assert finals[0]["status"] == "finished"
        tokens = [api.token for api in [*table.players, table.operator]]
    finally:
        await table.close()
    assert chatty_server.log_path is not None
    log = chatty_server.log_path.read_text()
    assert "WebSocket /ws/tables/" in log  # uvicorn did log the sockets, with their query strings
    for token in tokens:
        assert token and token not in log and token.split(".")[1] not in log
    assert re.search(r"ticket=[^…]", log) is None, "a ticket reached the log"


async def test_logout_revokes_the_token_and_closes_live_sockets(chatty_server: ServerProcess) -> None:
    player = await new_player(chatty_server)
    operator = await login(chatty_server, "operator1")
    room = await operator.create_room("r", {})
    table = await operator.open_table(room["id"], 3)
    second = Api(chatty_server.url, player.token)  # the same token on another device
    try:
        async with websockets.connect(await player.ws_url(table["id"])) as ws:
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "snapshot"
            await player.call("POST", "/api/auth/logout")
            code, frames = await closed_with(ws)
            assert code == 4401 and frames[-1]["code"] == "unauthorized"
        for api in (player, second):
            with httpx.Client(base_url=chatty_server.url) as http:
                me = http.get("/api/auth/me", headers={"Authorization": f"Bearer {api.token}"})
                assert me.status_code == 401 and "revoked" in me.json()["message"]
                # Nor does it get a ticket for another socket (`deps.live_account`).
                ticket = http.post("/api/auth/ws-ticket", headers={"Authorization": f"Bearer {api.token}"})
                assert ticket.status_code == 401 and "revoked" in ticket.json()["message"]
    finally:
        for api in (player, operator, second):
            await api.close()


async def test_a_disabled_user_is_cut_off_at_once(chatty_server: ServerProcess) -> None:
    admin = await login(chatty_server, ADMIN)
    operator = await login(chatty_server, "operator1")
    room = await operator.create_room("r", {})
    table = await operator.open_table(room["id"], 3)
    victims = [await new_player(chatty_server) for _ in range(2)]
    try:
        me = [await v.call("GET", "/api/auth/me") for v in victims]
        sockets = [await websockets.connect(await v.ws_url(table["id"])) for v in victims]
        for ws in sockets:
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "snapshot"
        # By an admin over REST: closed at once.
        done = await admin.call("POST", f"/api/admin/users/{me[0]['name']}/disable")
        assert done == {"name": me[0]["name"], "disabled": True, "closed_sockets": 1}
        code, _ = await closed_with(sockets[0])
        assert code == 4401
        # By the command line (another process): closed by the server's next recheck.
        cli = chatty_server.cli("users", "disable", me[1]["name"])
        assert cli.returncode == 0, cli.stderr
        code, _ = await closed_with(sockets[1])
        assert code == 4401
        for victim, who in zip(victims, me, strict=True):
            with httpx.Client(base_url=chatty_server.url) as http:
                headers = {"Authorization": f"Bearer {victim.token}"}
                assert http.get("/api/auth/me", headers=headers).status_code == 401
                ticket = http.post("/api/auth/ws-ticket", headers=headers)
                assert ticket.status_code == 401 and "disabled" in ticket.json()["message"]
                again = http.post(
                    "/api/auth/login", json={"name": who["name"], "password": "player-password"}
                )
                assert again.status_code == 403 and again.json()["error"] == "disabled"
        await admin.call("POST", f"/api/admin/users/{me[0]['name']}/enable")
        await victims[0].login(me[0]["name"], "player-password")
        assert (await victims[0].call("GET", "/api/auth/me"))["name"] == me[0]["name"]
        with httpx.Client(base_url=chatty_server.url) as http:
            headers = {"Authorization": f"Bearer {victims[1].token}"}
            refused = http.post(f"/api/admin/users/{me[0]['name']}/disable", headers=headers)
            assert refused.status_code == 401
    finally:
        for api in (admin, operator, *victims):
            await api.close()


async def test_a_socket_closes_when_its_token_expires(short_token_server: ServerProcess) -> None:
    player = await new_player(short_token_server)
    operator = await login(short_token_server, "operator1")
    try:
        room = await operator.create_room("r", {})
        table = await operator.open_table(room["id"], 3)
        async with websockets.connect(await player.ws_url(table["id"])) as ws:
            code, frames = await closed_with(ws, timeout=10)
            assert frames[0]["type"] == "snapshot"
            assert code == 4401 and frames[-1]["message"] == "token expired"
    finally:
        await player.close()
        await operator.close()


def test_the_token_secret_is_kept_out_of_the_database(sqlite_server: ServerProcess, tmp_path: Path) -> None:
    secret_file = tmp_path / "token_secret"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    with sqlite3.connect(sqlite_server.database_url.split(":///", 1)[1]) as db:
        assert db.execute("SELECT count(*) FROM server_state WHERE key = 'token_secret'").fetchone() == (0,)
    with httpx.Client(base_url=sqlite_server.url) as http:
        for token in ("naïve.tökén", "x" * 10 + "." + "é" * 10):  # before: 500 (compare_digest TypeError)
            response = http.get("/api/auth/me", headers={b"Authorization": f"Bearer {token}".encode()})
            assert response.status_code == 401 and response.json()["error"] == "unauthorized"


def test_a_short_or_exposed_secret_is_refused_at_start(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}", log_path=tmp_path / "server.log")
    server.extra_env = {"PREFERANS_TOKEN_SECRET": "short"}
    with pytest.raises(RuntimeError, match="exited"):
        server.start()
    assert "at least 32 characters" in (tmp_path / "server.log").read_text()
    exposed = tmp_path / "exposed"
    exposed.write_text("y" * 64)
    exposed.chmod(0o644)
    server.extra_env = {"PREFERANS_TOKEN_SECRET_FILE": str(exposed)}
    with pytest.raises(RuntimeError, match="exited"):
        server.start()
    assert "chmod 600" in (tmp_path / "server.log").read_text()


@pytest.fixture(params=["text", "json"])
def access_logged_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServerProcess]:
    env = {"PREFERANS_LOG_FORMAT": request.param}
    yield from _server(
        f"sqlite+aiosqlite:///{tmp_path / 'a.db'}",
        tmp_path,
        env,
        log_level="info",
        extra_args=("--access-log",),
    )


async def test_the_access_log_holds_no_credential_and_loses_no_line(
    access_logged_server: ServerProcess,
) -> None:
    """Issue 25: an invite link's token in a request's path was logged in clear (text and JSON), and a URL
    with ``token=`` (``ticket=``, ``access_token=``, ``password=``) made uvicorn's access formatter fail
    ("--- Logging error ---") and its line was lost."""
    player = await new_player(access_logged_server)
    secrets_ = ["InviteSecret0123456789", "TokenSecret1", "TicketSecret2", "AccessSecret3", "PasswordSecret4"]
    try:
        with httpx.Client(base_url=access_logged_server.url) as http:
            headers = {"Authorization": f"Bearer {player.token}"}
            assert http.post(f"/api/invites/{secrets_[0]}", headers=headers).status_code == 404
            query = (
                f"token={secrets_[1]}&ticket={secrets_[2]}&access_token={secrets_[3]}&password={secrets_[4]}"
            )
            assert http.get(f"/api/health?{query}").status_code == 200
            assert http.get("/api/health?done=1").status_code == 200
    finally:
        await player.close()
    assert access_logged_server.log_path is not None
    log = access_logged_server.log_path.read_text()
    deadline = asyncio.get_running_loop().time() + 20
    while "done=1" not in log:  # the last access line is written after its response
        assert asyncio.get_running_loop().time() < deadline, log[-2000:]
        await asyncio.sleep(0.1)
        log = access_logged_server.log_path.read_text()
    assert "Logging error" not in log and "Traceback" not in log, log[-3000:]
    for secret in secrets_:
        assert secret not in log
    assert "/api/invites/… HTTP/1.1" in log  # both access lines are there, redacted
    assert "/api/health?token=…&ticket=…&access_token=…&password=… HTTP/1.1" in log
