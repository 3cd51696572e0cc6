"""Issue 13 §11: while the database cannot be reached, login and a websocket handshake answer 503 with
``Retry-After`` (try again), never a 500. In process: the app's session factory is made to fail the way a
refused connection does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from starlette.testclient import WebSocketDenialResponse

from app.db.migrate import upgrade
from app.server.app import create_app
from app.server.settings import Settings


class _Unreachable:
    """A session factory whose every session fails to connect (by default as a refused connection does)."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error or OperationalError(
            "connect", {}, ConnectionRefusedError(111, "Connection refused")
        )

    def __call__(self) -> Any:
        raise self.error


class _DriverError(Exception):
    """What asyncpg's errors carry through SQLAlchemy: a SQLSTATE."""

    def __init__(self, sqlstate: str) -> None:
        super().__init__(f"SQLSTATE {sqlstate}")
        self.sqlstate = sqlstate


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'down.db'}"
    upgrade(url)
    settings = Settings(database_url=url, token_secret="s" * 40)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _server_context(client: TestClient) -> Any:
    """The app's `ServerContext` (untyped: the tests swap its sessions for an unreachable database)."""
    app = client.app
    assert isinstance(app, FastAPI)
    return app.state.ctx


def test_login_and_a_websocket_handshake_answer_503_while_the_database_is_down(client: TestClient) -> None:
    ctx = _server_context(client)
    working = ctx.sessions
    ctx.sessions = _Unreachable()
    try:
        response = client.post("/api/auth/login", json={"name": "someone", "password": "a-password"})
        assert response.status_code == 503, response.text
        assert response.headers["Retry-After"] == "2"
        assert response.json()["error"] == "database_unavailable"
        with (
            pytest.raises(WebSocketDenialResponse) as denied,
            client.websocket_connect("/ws/tables/1", headers={"Authorization": "Bearer x"}),
        ):
            pass
        assert denied.value.status_code == 503
        assert denied.value.headers["Retry-After"] == "2"
    finally:
        ctx.sessions = working
    # Back: the same requests get their ordinary answers.
    response = client.post("/api/auth/login", json={"name": "someone", "password": "a-password"})
    assert response.status_code == 401


@pytest.mark.parametrize(
    "sqlstate",
    [
        "57P03",  # the database system is starting up (a restart's whole recovery)
        "57P01",  # terminating connection due to administrator command
        "08003",  # connection was closed in the middle of operation
    ],
)
def test_a_database_restarting_or_cut_off_is_503_too(client: TestClient, sqlstate: str) -> None:
    ctx = _server_context(client)
    working = ctx.sessions
    ctx.sessions = _Unreachable(DBAPIError("SELECT 1", {}, _DriverError(sqlstate)))
    try:
        response = client.post("/api/auth/login", json={"name": "someone", "password": "a-password"})
        assert response.status_code == 503 and response.headers["Retry-After"] == "2", response.text
        with (
            pytest.raises(WebSocketDenialResponse) as denied,
            client.websocket_connect("/ws/tables/1", headers={"Authorization": "Bearer x"}),
        ):
            pass
        assert denied.value.status_code == 503
    finally:
        ctx.sessions = working


def test_a_statement_the_database_refused_is_not_503(client: TestClient) -> None:
    ctx = _server_context(client)
    working = ctx.sessions
    ctx.sessions = _Unreachable(IntegrityError("INSERT", {}, _DriverError("23505")))
    try:
        # Not handled: the server's 500 (the test client raises what the server would log).
        with pytest.raises(IntegrityError):
            client.post("/api/auth/login", json={"name": "someone", "password": "a-password"})
    finally:
        ctx.sessions = working
