"""Tournament pages (RULES.md §9) in Chromium: the operator creates and starts a tournament, a player
registers, finds his table, sees the round's end announced with the last dealer marked, and the standings
page shows what the server computes."""

from __future__ import annotations

import asyncio
import random
from fractions import Fraction
from pathlib import Path

from playwright.async_api import Browser

from app.bots.client import Api, play_table, random_chooser
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player
from tests.web.site import PASSWORD as BROWSER_PASSWORD
from tests.web.site import open_player
from tests.web.test_admin_pages import logged_in


async def _bot(api: Api, tournament: int, seed: int) -> None:
    me = await api.call("GET", f"/api/tournaments/{tournament}/me")
    client = api.table(me["table_id"])
    await client.connect()
    try:
        await play_table(client, random_chooser(random.Random(seed)), idle_timeout=120)
    finally:
        await client.close()


async def test_operator_starts_a_tournament_players_see_their_table_the_announcement_and_standings(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    server = sqlite_server
    operator_api = await login(server, OPERATOR)
    await operator_api.create_room("Cup room", {"deal_time": 60})
    page, errors = await logged_in(browser, server, OPERATOR, "tournaments")
    await page.wait_for_selector("[data-tournament-create]")
    await page.fill("#tournament-name", "Neva Cup")
    await page.fill("#tournament-rounds", "1")
    await page.fill("#tournament-round_minutes", "0.05")
    await page.fill("#tournament-round_end_warning", "0")
    await page.click("[data-action=create-tournament]")
    await page.wait_for_selector("[data-tournament-page][data-status=registration]")
    tid = int(await page.get_attribute("[data-tournament-page]", "data-tournament-page") or 0)

    player = await open_player(browser, server)
    await player.page.click("[data-nav=tournaments]")
    await player.page.click(f"[data-tournament='{tid}'] [data-action=register]")
    others = [await new_player(server, "b") for _ in range(2)]
    for api in others:
        await api.call("POST", f"/api/tournaments/{tid}/register", {})
    own_bot = await login(
        server, player.name, BROWSER_PASSWORD
    )  # a bot plays the browser player's seat on a second socket
    try:
        await page.click("[data-action=start-round]")
        await page.wait_for_selector("[data-round='1'][data-status=playing] [data-round-clock]")
        await player.page.goto(f"{server.url}/#/tournaments/{tid}")
        await player.page.click("[data-my-table] a")
        await player.page.wait_for_selector('[data-table][data-connection="online"]')
        bots = asyncio.gather(*(_bot(api, tid, i) for i, api in enumerate([own_bot, *others])))
        banner = player.page.locator("[data-round-end]")
        await banner.wait_for(timeout=60_000)
        assert (await banner.get_attribute("data-last-dealer")) != ""
        await player.page.screenshot(path=str(artifacts / "round-end.png"), full_page=True)
        await bots

        standings = await operator_api.call("GET", f"/api/tournaments/{tid}/standings")
        assert standings["tables_counted"] == 1
        await player.page.goto(f"{server.url}/#/tournaments/{tid}")
        rows = player.page.locator("[data-standing]")
        await rows.nth(2).wait_for()
        shown = {
            await rows.nth(i).get_attribute("data-standing"): Fraction(
                await rows.nth(i).get_attribute("data-score") or "x"
            )
            for i in range(3)
        }
        assert shown == {r["player"]: Fraction(r["score"]) for r in standings["standings"]}
        assert sum(shown.values()) == 0
        await player.page.screenshot(path=str(artifacts / "standings.png"), full_page=True)
        assert not errors and not player.errors
    finally:
        for api in (operator_api, own_bot, *others):
            await api.close()
