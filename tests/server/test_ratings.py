"""Ratings end to end (issue 21 §1): games played through the server move the room's and the site's
ladders once settled; the rebuild command gives the same ratings; robots are rated but off the boards;
a room's rating limits refuse a seat with a typed reason."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.bots.client import Api, ApiError
from tests.conftest import database_for
from tests.server.conftest import OPERATOR, ServerProcess, _server, login
from tests.server.helpers import poll_until, sit_and_play

NAMES: dict[int, str] = {}


async def new_player(server: ServerProcess) -> Api:
    api = Api(server.url)
    name = f"r{secrets.token_hex(4)}"
    await api.register(name, "player-password")
    await api.login(name, "player-password")
    NAMES[id(api)] = name
    return api


POOL = {"pool_size": 1, "deal_time": 60, "reserve_time": 60}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def fast_robots(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServerProcess]:
    """A server on each database whose robots do not pause before they play."""
    yield from _server(database_for(request, tmp_path), tmp_path, {"PREFERANS_ROBOT_DELAY_MS": "0"})


async def _pages(api: Api, names: list[str]) -> dict[str, Any]:
    return {n: await api.call("GET", f"/api/ratings/players/{n}") for n in names}


async def test_ratings_follow_settled_games_and_equal_a_rebuild(fast_robots: ServerProcess) -> None:
    server = fast_robots
    operator = await login(server, OPERATOR)
    room = await operator.create_room("ladder", POOL)
    people = [await new_player(server) for _ in range(3)]
    names = [NAMES[id(p)] for p in people]
    for game in range(2):
        table = await operator.open_table(room["id"], 3)
        await sit_and_play(people, table["id"], seed=game)
    # A game with a robot: the humans are rated against it, the robot stays where it was.
    table = await operator.open_table(room["id"], 3)
    await operator.call("POST", f"/api/tables/{table['id']}/robots", {"seat": 2, "level": "random"})
    await sit_and_play(people[:2], table["id"], seed=5)

    async def rated() -> dict[str, Any] | None:
        pages = await _pages(operator, names)
        counts = [pages[n]["site"]["games"] for n in names]
        return pages if counts == [3, 3, 2] else None

    live = await poll_until(rated, "three games taken into the ladders")
    for name in names:
        page = live[name]
        assert len(page["history"]) == page["site"]["games"]
        assert page["site"]["provisional"] is True  # "?" after so few pulyas
        assert [r["room"] for r in page["rooms"]] == [room["id"]]
        assert page["rooms"][0]["games"] == page["site"]["games"]
    assert len({live[n]["site"]["mu"] for n in names}) > 1, "a game with a winner moves ratings apart"

    board = await operator.call("GET", "/api/ratings/leaderboard")
    assert sorted(row["user"] for row in board["players"]) == sorted(names)  # no robot on the board
    room_board = await operator.call("GET", f"/api/ratings/leaderboard?room={room['id']}")
    assert [r["user"] for r in room_board["players"]] == [r["user"] for r in board["players"]]
    robot = await operator.call("GET", "/api/ratings/players/robot:random:2")
    assert robot["robot"] == "random" and robot["site"]["games"] == 1
    assert len({h["mu"] for h in robot["history"]}) == 1  # an anchor: its rating never moved

    result = server.cli("ratings", "rebuild")
    assert result.returncode == 0, result.stderr
    assert "from 3 rated games" in result.stdout
    rebuilt = await _pages(operator, names)
    for name in names:
        for key in ("site", "history", "rooms"):
            assert rebuilt[name][key] == live[name][key], (name, key)

    # The room's limits: the best-rated player is above a maximum set just under their rating.
    best = max(names, key=lambda n: live[n]["rooms"][0]["rating"])
    top = live[best]["rooms"][0]["rating"]
    await operator.call("PUT", f"/api/ratings/rooms/{room['id']}/settings", {"max_rating": top - 1})
    table = await operator.open_table(room["id"], 3)
    refused = people[names.index(best)]
    with pytest.raises(ApiError) as caught:
        await refused.call("POST", f"/api/tables/{table['id']}/sit", {"seat": None})
    assert caught.value.status == 403
    assert caught.value.body["error"] == "rating_out_of_range"
    assert caught.value.body["field"] == "max_rating"
    seats = await operator.call("GET", f"/api/ratings/tables/{table['id']}")
    assert seats["seats"] == []  # nothing was stored
    for api in people:
        if api is not refused:
            await api.sit(table["id"])
    seats = await operator.call("GET", f"/api/ratings/tables/{table['id']}")
    assert sorted(s["user"] for s in seats["seats"]) == sorted(n for n in names if n != best)
    assert all(s["room_rating"]["rating"] < top for s in seats["seats"])
    for api in [operator, *people]:
        await api.close()


async def test_a_practice_room_rates_nothing(fast_robots: ServerProcess) -> None:
    operator = await login(fast_robots, OPERATOR)
    room = await operator.create_room("practice", POOL)
    settings = await operator.call("PUT", f"/api/ratings/rooms/{room['id']}/settings", {"rated": False})
    assert settings["rated"] is False
    with pytest.raises(ApiError) as caught:
        await operator.call(
            "PUT", f"/api/ratings/rooms/{room['id']}/settings", {"min_rating": 1600, "max_rating": 1500}
        )
    assert caught.value.status == 422
    people = [await new_player(fast_robots) for _ in range(3)]
    table = await operator.open_table(room["id"], 3)
    await sit_and_play(people, table["id"], seed=9)
    # Another room's game settles after it: once that one is rated, the practice game was taken in too.
    other = await operator.create_room("rated", POOL)
    table = await operator.open_table(other["id"], 3)
    more = [await new_player(fast_robots) for _ in range(3)]
    await sit_and_play(more, table["id"], seed=10)

    async def rated() -> bool | None:
        page = await operator.call("GET", f"/api/ratings/players/{NAMES[id(more[0])]}")
        return True if page["site"]["games"] == 1 else None

    await poll_until(rated, "the rated room's game taken in")
    for api in people:
        page = await operator.call("GET", f"/api/ratings/players/{NAMES[id(api)]}")
        assert page["site"]["games"] == 0 and page["history"] == [] and page["rooms"] == []
    for api in [operator, *people, *more]:
        await api.close()
