"""A team tournament's "call the captain" (RULES.md §9.6) in Chromium: at his turn in the auction a player
calls; his captain, on the tournament page, sees the caller's hand and the auction (and no other card,
§12) and sends one suggested bid, which the caller's table shows."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import Browser, Page

from app.engine.cards import DECK
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player
from tests.server.helpers import snapshot, snapshot_until, team_round
from tests.web.test_admin_pages import logged_in

PLAYER_PASSWORD = "player-password"  # `new_player`'s
ALL_CARDS = {c.text for c in DECK}


def _cards_in(text: str) -> set[str]:
    return {card for card in re.findall(r"\b[scdh][789TJQKA]\b", text) if card in ALL_CARDS}


async def test_a_player_calls_his_captain_who_sees_his_hand_and_suggests_a_bid(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    server = sqlite_server
    operator = await login(server, OPERATOR)
    players = [await new_player(server, "c") for _ in range(6)]
    apis = {(await api.call("GET", "/api/auth/me"))["name"]: api for api in players}
    pages: list[Page] = []
    try:
        tid, first, second = await team_round(operator, players)
        table_id = first["table_id"]
        dealt = await snapshot_until(apis[first["players"][0]], table_id, lambda s: s["view"] is not None)
        seat = dealt["view"]["to_act"]
        caller, captain = first["players"][seat], second["players"][0]
        for name, role in ((caller, None), (captain, "captain")):
            await operator.call(
                "POST", f"/api/tournaments/{tid}/teams", {"player": name, "team": "Neva", "role": role}
            )
        hand = (await snapshot(apis[caller], table_id))["view"]["deal"]["hands"][str(seat)]

        at_table, table_errors = await logged_in(browser, server, caller, "tournaments", PLAYER_PASSWORD)
        pages.append(at_table)
        await at_table.goto(f"{server.url}/#/table/{table_id}")
        await at_table.wait_for_selector('[data-table][data-connection="online"]')
        watching, captain_errors = await logged_in(browser, server, captain, "tournaments", PLAYER_PASSWORD)
        pages.append(watching)
        await watching.goto(f"{server.url}/#/tournaments/{tid}")
        await watching.wait_for_selector("[data-tournament-page]")
        assert await watching.locator("[data-captain-call]").count() == 0  # nobody has called yet

        await at_table.click("[data-action=call-captain]")
        called = at_table.locator("[data-captain-suggestion='']")  # called, nothing suggested yet
        await called.wait_for()
        assert captain in await called.inner_text()

        # The captain's page (it reads his calls every 2 s) shows the caller's hand and the auction.
        banner = watching.locator("[data-captain-call]")
        await banner.wait_for(timeout=30_000)
        shown = (await watching.locator("[data-captain-hand]").inner_text()).split()
        assert sorted(shown) == sorted(hand)
        assert _cards_in(await watching.locator("body").inner_text()) == set(hand)  # no other card (§12)
        await watching.screenshot(path=str(artifacts / "captain-call.png"), full_page=True)

        await watching.click("[data-captain-call] [data-suggest=pass]")
        await watching.locator("[data-captain-call] [data-suggest]").first.wait_for(state="detached")
        # The caller's table (it asks about its call every 2 s) shows the suggestion.
        await at_table.wait_for_selector("[data-captain-suggestion=pass]", timeout=30_000)
        await at_table.screenshot(path=str(artifacts / "captain-suggestion.png"), full_page=True)
        assert not table_errors and not captain_errors
    finally:
        for page in pages:
            await page.context.close()
        for api in (operator, *players):
            await api.close()
