"""Issue 13 §11: while the database cannot be reached, login and a websocket handshake answer 503 with
``Retry-After`` (try again), never a 500. In process: the app's session factory is made to fail the way a
refused connection does (its session factory and its engine's connections)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from starlette.testclient import WebSocketDenialResponse

from app.auth.tokens import issue_token
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

    def connect(self) -> Any:
        """As the engine's: a table socket's handshake reads through a plain connection."""
        raise self.error


@contextlib.contextmanager
def _away(ctx: Any, error: Exception | None = None) -> Iterator[None]:
    """The database unreachable for the app's sessions and its engine's connections meanwhile."""
    sessions, engine = ctx.sessions, ctx.engine
    ctx.sessions = ctx.engine = _Unreachable(error)
    try:
        yield
    finally:
        ctx.sessions, ctx.engine = sessions, engine


def _bearer(ctx: Any) -> dict[str, str]:
    """A valid token's header (its user is never read: the database is away)."""
    return {"Authorization": f"Bearer {issue_token(ctx.token_secret, 1, time.time(), 3600)[0]}"}


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
    with _away(ctx):
        response = client.post("/api/auth/login", json={"name": "someone", "password": "a-password"})
        assert response.status_code == 503, response.text
        assert response.headers["Retry-After"] == "2"
        assert response.json()["error"] == "database_unavailable"
        with (
            pytest.raises(WebSocketDenialResponse) as denied,
            client.websocket_connect("/ws/tables/1", headers=_bearer(ctx)),
        ):
            pass
        assert denied.value.status_code == 503
        assert denied.value.headers["Retry-After"] == "2"
        # A token that does not verify is refused before the database is asked (nothing to wait for).
        with client.websocket_connect("/ws/tables/1", headers={"Authorization": "Bearer x"}) as socket:
            assert socket.receive_json()["code"] == "unauthorized"
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
    with _away(ctx, DBAPIError("SELECT 1", {}, _DriverError(sqlstate))):
        response = client.post("/api/auth/login", json={"name": "someone", "password": "a-password"})
        assert response.status_code == 503 and response.headers["Retry-After"] == "2", response.text
        with (
            pytest.raises(WebSocketDenialResponse) as denied,
            client.websocket_connect("/ws/tables/1", headers=_bearer(ctx)),
        ):
            pass
        assert denied.value.status_code == 503


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
