"""Issue 13 §11: while the database cannot be reached, login and a websocket handshake answer 503 with
``Retry-After`` (try again), never a 500. In process: the app's session factory is made to fail the way a
refused connection does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError
from starlette.testclient import WebSocketDenialResponse

from app.db.migrate import upgrade
from app.server.app import create_app
from app.server.settings import Settings


class _Unreachable:
    """A session factory whose every session fails to connect."""

    def __call__(self) -> Any:
        raise OperationalError("connect", {}, ConnectionRefusedError(111, "Connection refused"))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'down.db'}"
    upgrade(url)
    settings = Settings(database_url=url, token_secret="s" * 40)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_login_and_a_websocket_handshake_answer_503_while_the_database_is_down(client: TestClient) -> None:
    ctx = client.app.state.ctx  # type: ignore[attr-defined]
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
