"""A tournament's page in one request, its answers shared by every viewer (issue 24): the tournament with its
rounds, the standings and the judges' decisions are built once for a moment (`http.shared_answers`) and
forgotten at once by what this process changes; the viewer's own part (whether he judges, his table) is
his; nothing goes to a viewer who may not watch the tournament's room."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi.testclient import TestClient

from app.auth.roles import Role
from app.auth.users import create_user
from app.db.engine import make_engine, make_sessionmaker
from tests.server.in_process import PASSWORD, bearer
from tests.server.test_shared_answers import _counts, _get, _player, client

__all__ = ["client"]  # the fixture: the app as served, its shared answers on a clock that stands still


def _tournament(client: TestClient, operator: dict[str, str], **room: Any) -> tuple[int, int]:
    """A room of the operator's and a tournament there; (room id, tournament id)."""
    made = client.post("/api/rooms", json={"name": "Cup room", **room}, headers=operator)
    assert made.status_code == 201, made.text
    body = {"room_id": made.json()["id"], "name": "Cup", "rounds": 2, "round_minutes": 60}
    tournament = client.post("/api/tournaments", json=body, headers=operator)
    assert tournament.status_code == 201, tournament.text
    return made.json()["id"], tournament.json()["id"]


def _players(client: TestClient, tid: int, *names: str) -> list[dict[str, str]]:
    headers = [_player(client, name) for name in names]
    for player in headers:
        registered = client.post(f"/api/tournaments/{tid}/register", json={}, headers=player)
        assert registered.status_code == 200, registered.text
    return headers


def _page_apart(client: TestClient, tid: int, headers: dict[str, str]) -> dict[str, Any]:
    """The page as it was asked before: four requests."""
    out = {}
    for key, path in (("tournament", ""), ("standings", "/standings"), ("me", "/me"),
                      ("adjustments", "/adjustments")):  # fmt: skip
        answer = client.get(f"/api/tournaments/{tid}{path}", headers=headers)
        assert answer.status_code == 200, answer.text
        out[key] = answer.json()
    return out


def test_the_page_in_one_request_is_what_its_four_requests_were(client: TestClient) -> None:
    operator = bearer(client)
    _, tid = _tournament(client, operator)
    anna, boris, vera = _players(client, tid, "anna", "boris", "vera")
    drawn = client.post(f"/api/tournaments/{tid}/rounds", headers=operator)
    assert drawn.status_code == 201, drawn.text
    (table,) = drawn.json()["tables"]

    for viewer in (anna, boris, vera, operator):
        page = client.get(f"/api/tournaments/{tid}/page", headers=viewer)
        assert page.status_code == 200, page.text
        assert page.json() == _page_apart(client, tid, viewer)
    mine = client.get(f"/api/tournaments/{tid}/page", headers=boris).json()
    assert mine["tournament"]["judge"] is False
    assert mine["me"] == {
        "round": 1, "number": table["number"], "table_id": table["table_id"],
        "seat": table["players"].index("boris"), "status": "playing",
    }  # fmt: skip
    assert [p["player"] for p in mine["tournament"]["players"]] == ["anna", "boris", "vera"]
    assert [r["number"] for r in mine["tournament"]["round_list"]] == [1]
    judged = client.get(f"/api/tournaments/{tid}/page", headers=operator).json()
    assert judged["tournament"]["judge"] is True
    assert judged["me"] == {"round": 1, "table_id": None, "bye": False}
    # The one shared answer carries the viewer's own part apart: the same bytes but `judge`.
    assert {**judged["tournament"], "judge": False} == mine["tournament"]


def test_a_tournaments_answers_are_built_once_and_its_changes_show_at_once(client: TestClient) -> None:
    operator = bearer(client)
    _, tid = _tournament(client, operator)
    viewers = [operator, *_players(client, tid, "anna", "boris", "vera")]
    kinds = ("tournament", "standings", "adjustments")
    before = {kind: _counts(kind) for kind in kinds}
    pages = [_get(client, f"/api/tournaments/{tid}/page", viewer) for viewer in viewers]
    assert {status for status, _ in pages} == {200}
    for kind in kinds:  # one build each, given to the three other viewers
        built, shared = before[kind]
        assert _counts(kind) == (built + 1, shared + 3), kind

    # A judge's decision shows in the very next poll, to anyone: this process forgot the answers.
    decision = {"player": "anna", "points": -100, "reason": "arguing with the judge"}
    added = client.post(f"/api/tournaments/{tid}/adjustments", json=decision, headers=operator)
    assert added.status_code == 201, added.text
    status, body = _get(client, f"/api/tournaments/{tid}/page", viewers[2])
    page = json.loads(body)
    assert status == 200 and [a["points"] for a in page["adjustments"]["adjustments"]] == [-100]
    anna = next(row for row in page["standings"]["standings"] if row["player"] == "anna")
    assert anna["adjustments"] == -100
    assert _counts("standings")[0] == before["standings"][0] + 2

    # So do a withdrawal, a registration, a round drawn, a pause and its end.
    def players() -> list[str]:
        listed = client.get(f"/api/tournaments/{tid}", headers=viewers[1]).json()
        return [p["player"] for p in listed["players"]]

    gone = client.post(f"/api/tournaments/{tid}/withdraw", json={"player": "vera"}, headers=operator)
    assert gone.status_code == 200, gone.text
    assert players() == ["anna", "boris"]
    _players(client, tid, "gleb")
    assert players() == ["anna", "boris", "gleb"]
    assert client.get(f"/api/tournaments/{tid}/me", headers=viewers[1]).json() == {
        "round": None,
        "table_id": None,
    }
    drawn = client.post(f"/api/tournaments/{tid}/rounds", headers=operator)
    assert drawn.status_code == 201, drawn.text
    me = client.get(f"/api/tournaments/{tid}/me", headers=viewers[1]).json()
    assert me["round"] == 1 and me["table_id"] == drawn.json()["tables"][0]["table_id"]
    assert client.get(f"/api/tournaments/{tid}", headers=viewers[2]).json()["status"] == "running"
    # (A pause waits for the round's end: its table is stopped, settled as it stands, RULES §7.7.)
    table = drawn.json()["tables"][0]["table_id"]
    stopped = client.post(f"/api/tables/{table}/stop", json={"reason": "a test"}, headers=operator)
    assert stopped.status_code == 200, stopped.text
    page = client.get(f"/api/tournaments/{tid}/page", headers=viewers[2]).json()
    assert [r["status"] for r in page["tournament"]["round_list"]] == ["finished"]
    assert page["standings"]["tables_counted"] == 1
    for action, expected in (("pause", "paused"), ("resume", "running"), ("finish", "finished")):
        answer = client.post(f"/api/tournaments/{tid}/{action}", headers=operator)
        assert answer.status_code == 200, answer.text
        assert client.get(f"/api/tournaments/{tid}", headers=viewers[3]).json()["status"] == expected
    assert client.get(f"/api/tournaments/{tid}/standings", headers=viewers[1]).json()["final"] is True


def test_a_private_rooms_tournament_goes_only_to_those_who_may_watch_it(client: TestClient) -> None:
    operator = bearer(client)
    room, tid = _tournament(client, operator, private=True, spectators=False)
    stranger, gone, guest = _player(client, "stranger"), _player(client, "gone"), _player(client, "guest")
    assert client.post("/api/auth/logout", headers=gone).status_code == 200  # his tokens revoked
    invited = client.post(f"/api/operator/rooms/{room}/invites", json={"user": "guest"}, headers=operator)
    assert invited.status_code in (200, 201), invited.text
    paths = [f"/api/tournaments/{tid}{tail}" for tail in ("/page", "", "/standings", "/me", "/adjustments")]
    for path in paths:
        assert _get(client, path, operator)[0] == 200  # built and kept
        status, body = _get(client, path, guest)  # the invited guest watches it, judging nothing
        assert status == 200 and b'"judge":true' not in body, (path, body)
        status, refused = _get(client, path, stranger)
        assert status == 403 and json.loads(refused)["error"] == "private_room", (path, refused)
        status, refused = _get(client, path, gone)
        assert status == 401 and json.loads(refused)["error"] == "unauthorized", (path, refused)
        assert _get(client, path, {})[0] == 401

    # An unknown tournament is not found, and nothing is built for it.
    before = [_counts(kind) for kind in ("tournament", "standings", "adjustments")]
    for tail in ("/page", "", "/standings", "/me", "/adjustments"):
        status, refused = _get(client, f"/api/tournaments/987654{tail}", operator)
        assert status == 404 and json.loads(refused)["error"] == "not_found", (tail, refused)
    assert [_counts(kind) for kind in ("tournament", "standings", "adjustments")] == before


def _admin(client: TestClient, name: str) -> dict[str, str]:
    """A new administrator, logged in: a judge of every tournament (§9.1), operator of no room."""
    url = client.app.state.ctx.settings.database_url  # type: ignore[attr-defined]

    async def create() -> None:
        engine = make_engine(url)
        try:
            async with make_sessionmaker(engine)() as session, session.begin():
                await create_user(session, name, PASSWORD, Role.ADMIN)
        finally:
            await engine.dispose()

    asyncio.run(create())
    login = client.post("/api/auth/login", json={"name": name, "password": PASSWORD})
    assert login.status_code == 200, login.text
    return {"Authorization": f"Bearer {login.json()['token']}"}


def test_an_administrator_judges_a_room_he_does_not_run_and_a_disabled_account_sees_nothing(
    client: TestClient,
) -> None:
    operator = bearer(client)
    room, tid = _tournament(client, operator, private=True, spectators=False)
    anna, boris = _player(client, "anna"), _player(client, "boris")
    for name, player in (("anna", anna), ("boris", boris)):  # a private room registers invited players
        invited = client.post(f"/api/operator/rooms/{room}/invites", json={"user": name}, headers=operator)
        assert invited.status_code in (200, 201), invited.text
        registered = client.post(f"/api/tournaments/{tid}/register", json={}, headers=player)
        assert registered.status_code == 200, registered.text
    judith = _admin(client, "judith")
    paths = [f"/api/tournaments/{tid}{tail}" for tail in ("/page", "", "/standings", "/me", "/adjustments")]

    # §9.1: the judges are the room's operator and the administrators, whoever built the shared answer.
    for viewer, judges in ((boris, False), (judith, True), (operator, True), (anna, False)):
        page = client.get(f"/api/tournaments/{tid}/page", headers=viewer)
        assert page.status_code == 200, page.text
        assert page.json()["tournament"]["judge"] is judges
        assert client.get(f"/api/tournaments/{tid}", headers=viewer).json()["judge"] is judges
    decision = {"player": "boris", "points": -50, "reason": "slow play"}
    judged = client.post(f"/api/tournaments/{tid}/adjustments", json=decision, headers=judith)
    assert judged.status_code == 201, judged.text

    # An account disabled is refused every part of the page, typed, while the answers it would have
    # shared still go to the others.
    disabled = client.post("/api/admin/users/anna/disable", headers=judith)
    assert disabled.status_code == 200, disabled.text
    for path in paths:
        status, refused = _get(client, path, anna)
        assert status == 401 and json.loads(refused)["error"] == "unauthorized", (path, refused)
        assert _get(client, path, boris)[0] == 200, path
    page = client.get(f"/api/tournaments/{tid}/page", headers=boris).json()
    assert [a["points"] for a in page["adjustments"]["adjustments"]] == [-50]
