"""The ratings and analysis pages in the browser (issue 21): the leaderboard, the player page with its
SVG chart, the analysis page (trick by trick, every figure the server's), ratings in the lobby and at the
table, and no analysis (nor any card) of a deal still in play."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.async_api import Browser

from app.analysis.records import played_deal
from app.bots.client import Api
from tests.server.conftest import OPERATOR, ServerProcess, login
from tests.server.helpers import poll_until, sit_and_play
from tests.web.site import PASSWORD, Observer, Player, open_player, sit_from_lobby
from tests.web.test_admin_pages import logged_in

QUICK = {"pool_size": 2, "deal_time": 60, "reserve_time": 60}


async def _bots_for(server: ServerProcess, players: list[Player]) -> list[Api]:
    apis = []
    for player in players:
        api = Api(server.url)
        await api.login(player.name, PASSWORD)
        apis.append(api)
    return apis


async def test_leaderboard_player_page_and_analysis_page(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    server = sqlite_server
    players = [await open_player(browser, server) for _ in range(3)]
    apis = await _bots_for(server, players)
    operator = await login(server, OPERATOR)
    room = await operator.create_room("ladder room", QUICK)
    # Random bots sometimes pass every deal out: play pulyas until one had cards played.
    analysable: tuple[int, dict[str, Any]] | None = None
    games = 0
    for seed in range(6):
        table = await operator.open_table(room["id"], 3)
        await sit_and_play(apis, table["id"], seed)
        games += 1
        history = await operator.call("GET", f"/api/tables/{table['id']}/history")
        for deal in history["deals"]:
            if played_deal(deal["result"], deal["record"]) is not None:
                analysable = (table["id"], deal)
                break
        if analysable:
            break
    assert analysable is not None
    table_id, deal = analysable

    async def rated() -> dict[str, Any] | None:
        board = await operator.call("GET", "/api/ratings/leaderboard")
        counts = sorted(p["games"] for p in board["players"])
        return board if counts == [games] * 3 else None

    board = await poll_until(rated, "the pulyas taken into the ladder")
    page = players[0].page
    errors_before = len(players[0].errors)

    # The leaderboard: every player with the server's figure, best first.
    await page.click("[data-nav=ratings]")
    await page.wait_for_selector("[data-leaderboard='0'] [data-board-row]")
    rows = page.locator("[data-board-row]")
    assert await rows.count() == 3
    for i, expected in enumerate(board["players"]):
        row = rows.nth(i)
        assert await row.get_attribute("data-board-row") == expected["user"]
        cell = row.locator("[data-rating]")
        assert int(await cell.get_attribute("data-rating") or 0) == expected["rating"]
        assert (await cell.text_content() or "").endswith("?")  # provisional after so few pulyas
    await page.screenshot(path=str(artifacts / "leaderboard.png"), full_page=True)
    await page.click(f'[data-ladder="{room["id"]}"]')
    await page.wait_for_selector(f"[data-leaderboard='{room['id']}'] [data-board-row]")
    assert await page.locator("[data-board-row]").count() == 3

    # The player page: the site rating and one chart point per rated pulya.
    best = board["players"][0]
    await page.click(f'[data-board-row="{best["user"]}"] a')
    await page.wait_for_selector(f'[data-player-page="{best["user"]}"] [data-rating-chart]')
    assert int(await page.get_attribute("[data-site-rating]", "data-site-rating") or 0) == best["rating"]
    chart = page.locator("[data-player-page] > [data-rating-chart]")
    assert int(await chart.get_attribute("data-rating-chart") or 0) == games
    assert await chart.locator("circle").count() == games
    await page.screenshot(path=str(artifacts / "player.png"), full_page=True)

    # Statistics: the figures the server counted, and the plots.
    stats = await operator.call("GET", f"/api/stats/players/{best['user']}")
    assert stats["pulyas"] == games
    await page.click(f'[data-stats-link="{best["user"]}"]')
    await page.wait_for_selector(f'[data-stats-page="{best["user"]}"] [data-chart]')
    assert await page.locator("[data-stats-page] svg[data-chart]").count() == 2
    assert f"{games}" in (await page.text_content("[data-stat=pulyas]") or "")
    bars = page.locator("[data-bar]")
    assert await bars.count() == 10  # levels 6..10, declared and made
    line = page.locator("svg[data-points]")
    assert int(await line.get_attribute("data-points") or -1) == games
    await page.screenshot(path=str(artifacts / "stats.png"), full_page=True)

    # The analysis page, reached from the game's page: the server's figures, trick by trick.
    number = deal["deal"]
    api_view = await operator.call("GET", f"/api/analysis/tables/{table_id}/deals/{number}")
    cards = api_view["analysis"]["cards"]
    await page.goto(f"{server.url}/#/games/{table_id}")
    await page.click(f'[data-analysis-link="{number}"]')
    await page.wait_for_selector(f'[data-analysis-page="{table_id}/{number}"] [data-par]')
    assert int(await page.get_attribute("[data-par]", "data-par") or -1) == api_view["analysis"]["start"]
    assert int(await page.get_attribute("[data-par]", "data-taken") or -1) == api_view["analysis"]["taken"]
    assert await page.locator("[data-open-hand]").count() == 3  # every hand open
    shown = page.locator("[data-verdict]")
    assert [await shown.nth(i).get_attribute("data-verdict") for i in range(await shown.count())] == [
        c["card"] for c in cards[:3]
    ]
    if len(cards) > 3:
        await page.click("[data-action=next-trick]")
        await page.wait_for_selector("[data-trick-shown='1']")
        assert await page.locator("[data-verdict]").first.get_attribute("data-verdict") == cards[3]["card"]
    await page.click("[data-action=all-tricks]")
    await page.wait_for_selector("[data-trick-shown='-1']")
    assert await page.locator("[data-verdict]").count() == len(cards)
    losses = [int(await shown.nth(i).get_attribute("data-loss") or -1) for i in range(len(cards))]
    assert losses == [c["loss"] for c in cards]
    await page.screenshot(path=str(artifacts / "analysis.png"), full_page=True)

    # A deal in play: refused, and the page holds no card at all.
    live = await operator.open_table(room["id"], 3)
    for api in apis:
        await api.sit(live["id"])
    await page.goto(f"{server.url}/#/analysis/{live['id']}/1")
    await page.wait_for_selector("[data-error=analysis_not_yet]")
    assert await page.locator("[data-card], [data-verdict], [data-open-hand]").count() == 0

    # Ratings beside the names: in the lobby and at the table.
    await page.goto(f"{server.url}/#/lobby")
    seats = page.locator(f'[data-lobby-table="{live["id"]}"] [data-lobby-seat] [data-rating]')
    await seats.first.wait_for()
    assert await seats.count() == 3
    await page.goto(f"{server.url}/#/table/{live['id']}")
    await page.wait_for_selector("[data-table-ratings] [data-seat-rating]")
    assert await page.locator("[data-table-ratings] [data-seat-rating]").count() == 3
    assert players[0].errors[errors_before:] == []
    for api in [operator, *apis]:
        await api.close()
    for player in players:
        await player.context.close()


async def test_an_operator_sets_rating_limits_practice_and_broadcast_and_the_seat_is_refused(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    operator = await login(sqlite_server, OPERATOR)
    room = await operator.create_room("club", QUICK)
    table = await operator.open_table(room["id"], 3)
    page, errors = await logged_in(browser, sqlite_server, OPERATOR, "operator")
    panel = page.locator(f'[data-room-settings="{room["id"]}"]')
    await panel.wait_for()
    await panel.locator('[data-room-setting="max_rating"]').fill("1400")
    await panel.locator('[data-room-setting="rated"]').uncheck()
    await panel.locator('[data-room-setting="broadcast"]').check()
    await panel.locator("[data-action=save-room-settings]").click()
    await panel.locator("[data-room-settings-status]").wait_for()
    settings = await operator.call("GET", f"/api/ratings/rooms/{room['id']}/settings")
    assert settings == {
        "room": room["id"],
        "rated": False,
        "min_rating": None,
        "max_rating": 1400,
        "broadcast": True,
    }
    await page.screenshot(path=str(artifacts / "room-settings.png"), full_page=True)

    # A new player (1500?) is above the maximum: the lobby's sit button is refused, with the reason shown.
    player = await open_player(browser, sqlite_server)
    await player.page.click(f'[data-action=sit][data-table="{table["id"]}"][data-seat="0"]')
    alert = player.page.locator("[data-lobby] .error[role=alert]")
    await alert.wait_for()
    assert "1400" in (await alert.text_content() or "")
    assert await player.page.locator(f'[data-action=broadcast][data-table="{table["id"]}"]').count() == 1
    seats = await operator.call("GET", f"/api/ratings/tables/{table['id']}")
    assert seats["seats"] == [] and seats["practice"] is True
    assert errors == [] and player.errors == []
    await operator.close()
    await player.context.close()


async def test_the_hint_button_at_a_practice_table_suggests_a_legal_move(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    operator = await login(sqlite_server, OPERATOR)
    room = await operator.create_room("practice", {"deal_time": 60, "reserve_time": 60})
    await operator.call("PUT", f"/api/ratings/rooms/{room['id']}/settings", {"rated": False})
    table = await operator.open_table(room["id"], 3)
    observer = Observer(operator, table["id"])
    await observer.start()
    players = [await open_player(browser, sqlite_server) for _ in range(3)]
    for seat, player in enumerate(players):
        await sit_from_lobby(player, table["id"], seat)
    state = await observer.wait(lambda s: s["status"] == "playing" and s["view"]["to_act"] is not None)
    mover = players[state["view"]["to_act"]]
    apis = await _bots_for(sqlite_server, [mover])
    expected = (await apis[0].call("POST", f"/api/tables/{table['id']}/hint"))["hint"]
    button = mover.page.locator("[data-table-ratings] [data-action=hint]")
    await button.click()
    shown = mover.page.locator("[data-hint]")
    await shown.wait_for()
    assert json.loads(await shown.get_attribute("data-hint") or "null") == expected
    for other in players:
        if other is not mover:
            assert await other.page.locator("[data-action=hint]").count() == 0  # not their turn
    await mover.page.screenshot(path=str(artifacts / "hint.png"))
    assert all(p.errors == [] for p in players)
    await observer.stop()
    for api in [operator, *apis]:
        await api.close()
    for player in players:
        await player.context.close()
