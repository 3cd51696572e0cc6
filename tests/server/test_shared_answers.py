"""The lobby's answers that are the same for every viewer (a room's tables, its seated players' ratings):
built once and shared for a moment (`app.server.http.shared_answers`, issue 24), forgotten at once by what
this process changes, never given to a viewer who may not see the room."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.db.migrate import upgrade
from app.server.app import create_app
from app.server.http.routes import ratings as ratings_routes
from app.server.http.routes.lobby import TableOut
from app.server.http.shared_answers import SharedAnswers
from app.server.metrics import REGISTRY
from app.server.settings import Settings
from tests.server.in_process import add_operator, bearer

# ------------------------------------------------------------------------------------------ the store


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _Builds:
    """A build that counts its calls and waits for ``release`` before answering."""

    def __init__(self) -> None:
        self.calls = 0
        self.release = asyncio.Event()
        self.fail: Exception | None = None

    async def __call__(self) -> bytes:
        self.calls += 1
        call = self.calls
        await self.release.wait()
        if self.fail is not None:
            raise self.fail
        return f"answer {call}".encode()


async def test_one_build_serves_the_requests_of_its_moment() -> None:
    clock, build = _Clock(), _Builds()
    answers = SharedAnswers(1000, clock=clock)
    waiting = [asyncio.create_task(answers.get("room", "t", build)) for _ in range(3)]
    await asyncio.sleep(0)
    build.release.set()
    assert await asyncio.gather(*waiting) == [b"answer 1"] * 3
    clock.now += 0.999
    assert await answers.get("room", "t", build) == b"answer 1"
    assert await answers.get("another room", "t", build) == b"answer 2"
    clock.now += 0.001  # the first answer is a second old, counted from its build's start
    assert await answers.get("room", "t", build) == b"answer 3"
    assert build.calls == 3


async def test_a_build_slower_than_its_moment_is_still_the_one_for_all() -> None:
    clock, build = _Clock(), _Builds()
    answers = SharedAnswers(1000, clock=clock)
    first = asyncio.create_task(answers.get("room", "t", build))
    await asyncio.sleep(0)
    clock.now += 5  # the database is slow: the build outlasts its moment
    later = asyncio.create_task(answers.get("room", "t", build))
    await asyncio.sleep(0)
    build.release.set()
    assert (await first, await later) == (b"answer 1", b"answer 1")
    assert build.calls == 1
    assert await answers.get("room", "t", build) == b"answer 2"  # finished and old: built again


async def test_closing_cancels_the_builds_under_way() -> None:
    build = _Builds()
    answers = SharedAnswers(1000, clock=_Clock())
    waiting = asyncio.create_task(answers.get("room", "t", build))
    await asyncio.sleep(0)
    await answers.close()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert len(answers) == 0


async def test_without_a_moment_every_request_builds_its_own() -> None:
    build = _Builds()
    build.release.set()
    answers = SharedAnswers(0)
    assert [await answers.get("room", "t", build) for _ in range(2)] == [b"answer 1", b"answer 2"]
    assert len(answers) == 0


async def test_a_failed_build_is_kept_by_no_one() -> None:
    build = _Builds()
    build.fail = RuntimeError("database away")
    answers = SharedAnswers(1000, clock=_Clock())
    waiting = [asyncio.create_task(answers.get("room", "t", build)) for _ in range(2)]
    await asyncio.sleep(0)
    build.release.set()
    results = await asyncio.gather(*waiting, return_exceptions=True)
    assert [str(r) for r in results] == ["database away"] * 2
    build.fail = None
    assert await answers.get("room", "t", build) == b"answer 2"


async def test_a_request_gone_leaves_the_build_to_the_others() -> None:
    build = _Builds()
    answers = SharedAnswers(1000, clock=_Clock())
    first = asyncio.create_task(answers.get("room", "t", build))
    second = asyncio.create_task(answers.get("room", "t", build))
    await asyncio.sleep(0)
    first.cancel()  # its client went away
    with pytest.raises(asyncio.CancelledError):
        await first
    build.release.set()
    assert await second == b"answer 1"
    assert build.calls == 1


async def test_forgotten_answers_are_built_anew_and_a_late_build_replaces_nothing() -> None:
    build = _Builds()
    answers = SharedAnswers(1000, clock=_Clock())
    before = asyncio.create_task(answers.get("room", "t", build))
    await asyncio.sleep(0)
    answers.forget("room")  # a seat changed while the answer was being built
    after = asyncio.create_task(answers.get("room", "t", build))
    await asyncio.sleep(0)
    build.release.set()
    assert (await before, await after) == (b"answer 1", b"answer 2")
    assert await answers.get("room", "t", build) == b"answer 2"  # the later build's, kept
    answers.forget()
    assert await answers.get("room", "t", build) == b"answer 3"


async def test_the_answers_kept_are_bounded() -> None:
    build = _Builds()
    build.release.set()
    answers = SharedAnswers(1000, max_answers=2, clock=_Clock())
    for room in ("a", "b", "c"):
        await answers.get(room, "t", build)
    assert len(answers) == 2
    assert await answers.get("a", "t", build) == b"answer 4"  # the oldest went first
    assert await answers.get("c", "t", build) == b"answer 3"


# ------------------------------------------------------------------------------------------ the lobby


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """The app as it is served, its shared answers on a clock that stands still: within a test, only what
    the test changes forgets them, however slow the machine."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'lobby.db'}"
    upgrade(url)
    asyncio.run(add_operator(url))
    with TestClient(create_app(Settings(database_url=url, token_secret="s" * 40))) as test_client:
        context = test_client.app.state.ctx  # type: ignore[attr-defined]
        assert context.answers.ttl_s == 1.0  # the default
        context.answers = SharedAnswers(1000, clock=lambda: 0.0)
        yield test_client


def _player(client: TestClient, name: str) -> dict[str, str]:
    answer = client.post("/api/auth/register", json={"name": name, "password": "a-long-password"})
    assert answer.status_code == 201, answer.text
    login = client.post("/api/auth/login", json={"name": name, "password": "a-long-password"})
    return {"Authorization": f"Bearer {login.json()['token']}"}


def _counts(kind: str) -> tuple[float, float]:
    def value(outcome: str) -> float:
        labels = {"kind": kind, "outcome": outcome}
        return REGISTRY.get_sample_value("preferans_shared_answers_total", labels) or 0.0

    return value("built"), value("shared")


def _get(client: TestClient, path: str, headers: dict[str, str]) -> tuple[int, bytes]:
    answer = client.get(path, headers=headers)
    return answer.status_code, answer.content


def test_a_rooms_tables_are_built_once_for_its_viewers_and_anew_after_a_sit(client: TestClient) -> None:
    operator = bearer(client)
    room = client.post("/api/rooms", json={"name": "Club"}, headers=operator).json()
    table = client.post(f"/api/rooms/{room['id']}/tables", json={}, headers=operator).json()
    viewers = [operator, _player(client, "anna"), _player(client, "boris")]
    path = f"/api/rooms/{room['id']}/tables"

    built, shared = _counts("room_tables")
    answers = [_get(client, path, viewer) for viewer in viewers]
    assert _counts("room_tables") == (built + 1, shared + 2)
    assert {status for status, _ in answers} == {200} and len({body for _, body in answers}) == 1
    (listed,) = json.loads(answers[0][1])
    # The answer's JSON is the model's, as FastAPI gave it before: every field, in the schema's order.
    assert list(listed) == list(TableOut.model_fields)
    assert listed["id"] == table["id"] and listed["status"] == "waiting"
    assert [p["user"] for p in listed["players"]] == [None, None, None]

    sat = client.post(f"/api/tables/{table['id']}/sit", json={"seat": 1}, headers=viewers[1])
    assert sat.status_code == 200, sat.text
    status, body = _get(client, path, viewers[2])
    assert status == 200 and _counts("room_tables") == (built + 2, shared + 2)
    assert [p["user"] for p in json.loads(body)[0]["players"]] == [None, "anna", None]

    assert client.post(f"/api/tables/{table['id']}/leave", headers=viewers[1]).status_code == 200
    status, body = _get(client, path, viewers[0])
    assert status == 200 and [p["user"] for p in json.loads(body)[0]["players"]] == [None, None, None]
    opened = client.post(f"/api/rooms/{room['id']}/tables", json={}, headers=operator).json()
    status, body = _get(client, path, viewers[2])
    assert status == 200 and [t["id"] for t in json.loads(body)] == [table["id"], opened["id"]]
    assert _counts("room_tables") == (built + 4, shared + 2)


def test_an_unknown_room_has_no_tables_and_keeps_no_answer(client: TestClient) -> None:
    operator = bearer(client)
    before = _counts("room_tables")
    assert _get(client, "/api/rooms/987654/tables", operator) == (200, b"[]")
    assert _counts("room_tables") == before
    assert client.get("/api/ratings/rooms/987654/seated", headers=operator).status_code == 404


def test_the_shared_answers_keep_their_schemas(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]

    def schema(path: str) -> dict[str, Any]:
        found: dict[str, Any] = paths[path]["get"]["responses"]["200"]["content"]["application/json"][
            "schema"
        ]
        return found

    assert schema("/api/rooms/{room_id}/tables")["items"] == {"$ref": "#/components/schemas/TableOut"}
    assert schema("/api/ratings/rooms/{room_id}/seated")["type"] == "object"


def test_a_rooms_seated_ratings_are_shared_and_a_new_broadcast_setting_shows(client: TestClient) -> None:
    operator = bearer(client)
    room = client.post("/api/rooms", json={"name": "Club"}, headers=operator).json()
    table = client.post(f"/api/rooms/{room['id']}/tables", json={}, headers=operator).json()
    anna = _player(client, "anna")
    assert client.post(f"/api/tables/{table['id']}/sit", json={"seat": 0}, headers=anna).status_code == 200
    path = f"/api/ratings/rooms/{room['id']}/seated"

    built, shared = _counts("room_seated")
    first, second = _get(client, path, operator), _get(client, path, anna)
    assert first == second and first[0] == 200
    assert _counts("room_seated") == (built + 1, shared + 1)
    seated: dict[str, Any] = json.loads(first[1])
    assert seated["broadcast"] is False and list(seated["tables"]) == [str(table["id"])]
    assert list(seated["tables"][str(table["id"])]) == ["0"]

    put = client.put(f"/api/ratings/rooms/{room['id']}/settings", json={"broadcast": True}, headers=operator)
    assert put.status_code == 200, put.text
    assert json.loads(_get(client, path, anna)[1])["broadcast"] is True
    assert _counts("room_seated") == (built + 2, shared + 1)


def test_a_shared_answer_goes_only_to_viewers_who_may_see_the_room(client: TestClient) -> None:
    operator = bearer(client)
    body = {"name": "Closed club", "private": True, "spectators": False}
    room = client.post("/api/rooms", json=body, headers=operator).json()
    client.post(f"/api/rooms/{room['id']}/tables", json={}, headers=operator)
    stranger, guest, gone = _player(client, "stranger"), _player(client, "guest"), _player(client, "gone")
    invited = client.post(
        f"/api/operator/rooms/{room['id']}/invites", json={"user": "guest"}, headers=operator
    )
    assert invited.status_code in (200, 201), invited.text
    assert client.post("/api/auth/logout", headers=gone).status_code == 200  # his tokens revoked
    for path in (f"/api/rooms/{room['id']}/tables", f"/api/ratings/rooms/{room['id']}/seated"):
        assert _get(client, path, operator)[0] == 200  # built and kept
        assert _get(client, path, guest) == _get(client, path, operator)
        status, refused = _get(client, path, stranger)
        assert status == 403, refused
        assert json.loads(refused)["error"] == "private_room", refused
        status, refused = _get(client, path, gone)
        assert status == 401 and json.loads(refused)["error"] == "unauthorized", refused
        status, refused = _get(client, path, {})
        assert status == 401, refused

    # The lobby in one request lists the room to those who may watch it, with the same answers.
    def listed(headers: dict[str, str]) -> list[int]:
        return [r["room"]["id"] for r in client.get("/api/lobby", headers=headers).json()]

    assert listed(guest) == listed(operator) == [room["id"]] and listed(stranger) == []
    for path in ("/api/lobby", "/api/rooms"):
        assert _get(client, path, gone)[0] == 401, path


def test_the_lobby_in_one_request_is_what_its_three_requests_were(client: TestClient) -> None:
    operator = bearer(client)
    open_room = client.post("/api/rooms", json={"name": "Open"}, headers=operator).json()
    closed = {"name": "Closed club", "private": True, "spectators": False}
    closed_room = client.post("/api/rooms", json=closed, headers=operator).json()
    for room in (open_room, closed_room):
        client.post(f"/api/rooms/{room['id']}/tables", json={}, headers=operator)
    anna = _player(client, "anna")
    table = client.get(f"/api/rooms/{open_room['id']}/tables", headers=anna).json()[0]
    assert client.post(f"/api/tables/{table['id']}/sit", json={"seat": 2}, headers=anna).status_code == 200

    for viewer, rooms in ((operator, [open_room, closed_room]), (anna, [open_room])):
        lobby = client.get("/api/lobby", headers=viewer)
        assert lobby.status_code == 200, lobby.text
        expected = [
            {
                "room": room,
                "tables": client.get(f"/api/rooms/{room['id']}/tables", headers=viewer).json(),
                "seated": client.get(f"/api/ratings/rooms/{room['id']}/seated", headers=viewer).json(),
            }
            for room in client.get("/api/rooms", headers=viewer).json()
        ]
        assert lobby.json() == expected
        assert [r["room"]["id"] for r in lobby.json()] == [room["id"] for room in rooms]
    (listed,) = client.get("/api/lobby", headers=anna).json()
    assert [p["user"] for p in listed["tables"][0]["players"]] == [None, None, "anna"]
    assert list(listed["seated"]["tables"][str(table["id"])]) == ["2"]
    assert client.get("/api/lobby?after=" + str(open_room["id"]), headers=anna).json() == []
    assert client.get("/api/lobby", headers={}).status_code == 401
    schema = client.get("/openapi.json").json()["paths"]["/api/lobby"]["get"]["responses"]["200"]
    assert schema["content"]["application/json"]["schema"]["items"] == {
        "$ref": "#/components/schemas/LobbyRoomOut"
    }


def test_the_lobby_shows_the_tables_when_the_ratings_cannot_be_read(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    operator = bearer(client)
    room = client.post("/api/rooms", json={"name": "Club"}, headers=operator).json()
    table = client.post(f"/api/rooms/{room['id']}/tables", json={}, headers=operator).json()

    async def unreadable(ctx: Any, room_id: int) -> bytes:
        raise RuntimeError("the ratings' table is locked")

    monkeypatch.setattr(ratings_routes, "_room_seated", unreadable)
    (shown,) = client.get("/api/lobby", headers=operator).json()
    assert shown["seated"] is None and [t["id"] for t in shown["tables"]] == [table["id"]]
    monkeypatch.undo()
    (shown,) = client.get("/api/lobby", headers=operator).json()  # the failure was kept by no one
    assert shown["seated"] == {"broadcast": False, "tables": {}}


def test_a_game_that_ends_at_its_table_shows_in_the_rooms_list_at_once(client: TestClient) -> None:
    """No request ends it: the first seat's reserve runs out and the game ends (RULES §8.3). The answers
    stand still here, so only the table's own word that its game is over can show it."""
    operator = bearer(client)
    body = {"name": "Blitz", "overrides": {"deal_time": 0.5, "reserve_time": 0.5}}
    room = client.post("/api/rooms", json=body, headers=operator).json()
    table = client.post(f"/api/rooms/{room['id']}/tables", json={}, headers=operator).json()
    path = f"/api/rooms/{room['id']}/tables"
    for seat, name in enumerate(("anna", "boris", "vera")):
        sat = client.post(
            f"/api/tables/{table['id']}/sit", json={"seat": seat}, headers=_player(client, name)
        )
        assert sat.status_code == 200, sat.text

    def status() -> str:
        listed = json.loads(_get(client, path, operator)[1])
        return str(listed[0]["status"])

    assert status() == "playing"  # built now, and kept as long as nothing forgets it
    for _ in range(600):  # the game's end comes with its clock, within a second (bound: a loaded machine)
        if status() != "playing":
            break
        client.portal.call(asyncio.sleep, 0.05)  # type: ignore[union-attr]
    assert status() == "finished"


def test_a_seat_freed_for_its_players_absence_shows_in_the_rooms_list_at_once(tmp_path: Path) -> None:
    """No request frees it: the table does, after the grace of a player with no socket to it (issue 25).
    The answers stand still here, so only the table's own word shows it."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'grace.db'}"
    upgrade(url)
    asyncio.run(add_operator(url))
    settings = Settings(database_url=url, token_secret="s" * 40, waiting_seat_grace=0.2)
    with TestClient(create_app(settings)) as client:
        client.app.state.ctx.answers = SharedAnswers(1000, clock=lambda: 0.0)  # type: ignore[attr-defined]
        operator, anna = bearer(client), _player(client, "anna")
        room = client.post("/api/rooms", json={"name": "Grace"}, headers=operator).json()
        table = client.post(f"/api/rooms/{room['id']}/tables", json={}, headers=operator).json()
        path = f"/api/rooms/{room['id']}/tables"

        def seated() -> list[str]:
            listed = json.loads(_get(client, path, operator)[1])
            return [p["user"] for p in listed[0]["players"] if p["user"]]

        # Sitting with her socket open, she has no grace running while the list is built and kept.
        with client.websocket_connect(f"/ws/tables/{table['id']}", headers=anna) as socket:
            assert socket.receive_json()["type"] == "snapshot"
            sat = client.post(f"/api/tables/{table['id']}/sit", json={"seat": 1}, headers=anna)
            assert sat.status_code == 200, sat.text
            assert seated() == ["anna"]
        for _ in range(600):  # her socket closed, the grace runs out (bound: a loaded machine)
            if not seated():
                break
            client.portal.call(asyncio.sleep, 0.05)  # type: ignore[union-attr]
        assert seated() == []
