"""Statistics read only what the caller may watch (a private room closed to spectators stays closed), and a
bounded number of games, which the answer states (issue 21 §3)."""

from __future__ import annotations

from app.server.http.routes.stats import MAX_GAMES
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player


async def test_a_closed_rooms_games_are_counted_for_its_players_not_for_strangers(
    sqlite_server: ServerProcess,
) -> None:
    operator = await login(sqlite_server, OPERATOR)
    room = await operator.call(
        "POST",
        "/api/rooms",
        {"name": "Club", "overrides": {"pool_size": 10}, "private": True, "spectators": False},
    )
    table_id = int((await operator.open_table(room["id"], 3))["id"])  # stopped at once: a game with no deal
    people = [await new_player(sqlite_server) for _ in range(3)]
    names = [(await api.call("GET", "/api/auth/me"))["name"] for api in people]
    for name in names:
        await operator.call("POST", f"/api/operator/rooms/{room['id']}/invites", {"user": name})
    for api in people:
        await api.sit(table_id)
    await operator.call("POST", f"/api/tables/{table_id}/stop", {"reason": "closing"})
    stranger = await new_player(sqlite_server, "s")

    own = await people[0].call("GET", f"/api/stats/players/{names[0]}")
    assert own["games_read"] == 1 and own["max_games"] == MAX_GAMES and not own["truncated"]
    assert (await people[1].call("GET", f"/api/stats/players/{names[0]}"))["games_read"] == 1  # invited

    seen = await stranger.call("GET", f"/api/stats/players/{names[0]}")
    assert seen["games_read"] == 0 and seen["pulyas"] == 0 and seen["index"]["per_pulya"] == []

    club = await operator.call("GET", f"/api/stats/rooms/{room['id']}")
    assert sorted(club["players"]) == sorted(names) and club["games_read"] == 1
    for api in [operator, stranger, *people]:
        await api.close()
