"""Input limits on REST (issue 13): the body limit holds whatever the framing, bad input is a typed 4xx."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import time
from pathlib import Path

import httpx
import pytest
import websockets

from app.protocol.messages import MAX_SEQ, ActionMessage, ProtocolError, parse_client_message
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player


def rss_bytes(server: ServerProcess) -> int:
    assert server.proc is not None
    for line in Path(f"/proc/{server.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def chunked_post(server: ServerProcess, path: str, total: int, chunk: int = 1 << 16) -> bytes:
    """POST ``total`` bytes with Transfer-Encoding: chunked (no Content-Length); returns what came back."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
        )
        piece = f"{chunk:x}\r\n".encode() + b" " * chunk + b"\r\n"
        sent = 0
        try:
            while sent < total:
                sock.sendall(piece)
                sent += chunk
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server stopped reading and closed: what we wanted
        reply = b""
        try:
            while data := sock.recv(65536):
                reply += data
        except OSError:
            pass
        return reply


def test_a_chunked_body_is_cut_off_at_the_limit(sqlite_server: ServerProcess) -> None:
    before = rss_bytes(sqlite_server)
    reply = chunked_post(sqlite_server, "/api/auth/login", 64 << 20)
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert b'"too_large"' in reply
    # Before: a 200 MiB chunked POST grew the server by 400 MB, kept.
    assert rss_bytes(sqlite_server) - before < 16 << 20
    # A small chunked body is read and parsed as usual (a login: the hash may be slow on a busy machine).
    with httpx.Client(base_url=sqlite_server.url, timeout=120) as http:
        response = http.post(
            "/api/auth/login",
            content=iter([b'{"name": "x", ', b'"password": "yyyyyyyy"}']),
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 401, response.text


def test_a_body_that_trickles_in_is_refused_after_the_body_timeout(tmp_path: Path) -> None:
    from tests.server.conftest import _server

    for server in _server(
        f"sqlite+aiosqlite:///{tmp_path / 't.db'}", tmp_path, {"PREFERANS_BODY_TIMEOUT": "1"}
    ):
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(
                b"POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100\r\n\r\n{"
            )
            started = time.monotonic()
            reply = sock.recv(65536)
            assert reply.startswith(b"HTTP/1.1 408"), reply[:200]
            assert time.monotonic() - started < 8


async def test_out_of_range_ids_and_odd_frames_get_typed_errors(sqlite_server: ServerProcess) -> None:
    """Before: 500 for an id above int64, a traceback and a closed socket for a ``type`` that is a list."""
    player = await new_player(sqlite_server)
    operator = await login(sqlite_server, OPERATOR)
    try:
        huge = 2**63
        with httpx.Client(base_url=sqlite_server.url) as http:
            headers = {"Authorization": f"Bearer {player.token}"}
            for path in (f"/api/tables/{huge}", f"/api/rooms/{huge}/tables", f"/api/tables/{2**31}/history"):
                response = http.get(path, headers=headers)
                assert response.status_code == 422, (path, response.text)
                assert response.json()["error"] == "invalid_request" and "_id" in response.json()["field"]
            response = http.post(f"/api/tables/{huge}/sit", headers=headers, json={})
            assert response.status_code == 422 and response.json()["field"] == "table_id"
            # Starlette's own refusals come in the documented {"error": …} form too.
            response = http.post(
                "/api/auth/login", content=b"{bad", headers={"content-type": "application/json"}
            )
            assert response.status_code == 422 and "error" in response.json()
            response = http.get("/api/no-such-thing")
            assert response.status_code == 404 and response.json()["error"] == "not_found"
            response = http.delete("/api/rooms", headers=headers)
            assert response.status_code == 405 and response.json()["error"] == "method_not_allowed"
            assert "detail" not in response.json()
        async with websockets.connect(await player.ws_url(huge)) as ws:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert frame["code"] == "not_found"
        async with websockets.connect(
            player.ws_base(1), additional_headers={"Authorization": "Bearer naïve.tökén"}
        ) as ws:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert frame["code"] == "unauthorized"
        room = await operator.create_room("r", {})
        table = await operator.open_table(room["id"], 3)
        client = player.table(table["id"])
        await client.connect()
        try:
            for frame in ({"type": ["action"]}, {"type": {"a": 1}}, {"type": None}):
                await client.send(frame)
                while (message := await client.receive(timeout=10))["type"] != "error":
                    pass
                assert message["code"] == "unknown_type"
            await client.send({"type": "action", "seq": 2**31 - 1, "action": {"type": "pass"}})
            while (message := await client.receive(timeout=10))["type"] != "error":
                pass
            assert message["code"] == "invalid_message" and "seq" in message["message"]
            await client.send({"type": "ping", "id": 5})
            while (message := await client.receive(timeout=10))["type"] != "pong":
                pass
        finally:
            await client.close()
    finally:
        await player.close()
        await operator.close()


def test_seq_is_bounded_below_the_column_width() -> None:
    assert MAX_SEQ + 1 < 2**31 - 1
    message = parse_client_message(json.dumps({"type": "action", "seq": MAX_SEQ, "action": {}}))
    assert isinstance(message, ActionMessage)
    with pytest.raises(ProtocolError) as raised:
        parse_client_message(json.dumps({"type": "action", "seq": MAX_SEQ + 1, "action": {}}))
    assert raised.value.code == "invalid_message"
    for kind in ([1], {"x": 1}, 3.5, True):
        with pytest.raises(ProtocolError) as raised:
            parse_client_message(json.dumps({"type": kind}))
        assert raised.value.code == "unknown_type"


async def test_conventions_have_ranges_and_no_non_finite_number_is_stored(
    sqlite_server: ServerProcess,
) -> None:
    """Before: ``stake_per_whist: "1e999999999"`` passed and jammed the table at settlement; ``1e999`` and
    ``Infinity`` were stored as JSON ``Infinity``."""
    operator = await login(sqlite_server, OPERATOR)
    try:
        headers = {"Authorization": f"Bearer {operator.token}", "content-type": "application/json"}
        with httpx.Client(base_url=sqlite_server.url) as http:
            for field, raw in (
                ("stake_per_whist", '"1e999999999"'),
                ("stake_per_whist", "1e999"),
                ("stake_per_whist", '"NaN"'),
                ("stake_per_whist", "-1"),
                ("round_end_warning", "1e999"),
                ("round_end_warning", "Infinity"),
                ("round_end_warning", "NaN"),
                ("round_end_warning", "1e9"),
                ("deal_time", "-Infinity"),
                ("deal_time", "NaN"),
                ("misere_bonus", "1e999"),
                ("allpass_progression", "[2, 4, 1e999]"),
                ("allpass_progression", "[2, 4, 1000000]"),
            ):
                body = f'{{"name": "r", "overrides": {{"{field}": {raw}}}}}'.encode()
                response = http.post("/api/rooms", content=body, headers=headers)
                assert response.status_code == 422, (field, raw, response.text)
                assert response.json()["field"].split(".")[0] == field, (field, raw, response.text)
            room = http.post(
                "/api/rooms",
                content=b'{"name": "r", "overrides": {"stake_per_whist": 2.5, "round_end_warning": 1e2}}',
                headers=headers,
            )
            assert room.status_code == 201, room.text
            assert room.json()["overrides"] == {"stake_per_whist": "2.5", "round_end_warning": 100.0}
        db = sqlite_server.database_url.split(":///", 1)[1]
        with sqlite3.connect(db) as conn:
            stored = " ".join(
                str(value)
                for row in conn.execute("SELECT overrides, conventions FROM rooms").fetchall()
                for value in row
            )
        assert "Infinity" not in stored and "NaN" not in stored
    finally:
        await operator.close()
