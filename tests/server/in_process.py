"""An app served in the test's own process (`TestClient`), for the tests that look inside the server's
process (its objects, its collector): an operator written straight into the database, his token, a table."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.auth.roles import Role
from app.auth.users import create_user
from app.db.engine import make_engine, make_sessionmaker

PASSWORD = "a-long-password"


async def add_operator(url: str) -> None:
    """The user "operator" in the database at ``url``."""
    engine = make_engine(url)
    try:
        async with make_sessionmaker(engine)() as session, session.begin():
            await create_user(session, "operator", PASSWORD, Role.OPERATOR)
    finally:
        await engine.dispose()


def bearer(client: TestClient) -> dict[str, str]:
    response = client.post("/api/auth/login", json={"name": "operator", "password": PASSWORD})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}


def open_room_table(client: TestClient, headers: dict[str, str]) -> int:
    """A new room of the operator's and a table in it; the table's id."""
    room = client.post("/api/rooms", json={"name": "lane"}, headers=headers)
    assert room.status_code == 201, room.text
    table = client.post(f"/api/rooms/{room.json()['id']}/tables", json={}, headers=headers)
    assert table.status_code == 201, table.text
    return int(table.json()["id"])
