"""Input limits on REST (issue 13): the body limit holds whatever the framing, bad input is a typed 4xx."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx

from tests.server.conftest import ServerProcess


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
    # A small chunked body is read and parsed as usual.
    with httpx.Client(base_url=sqlite_server.url) as http:
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
