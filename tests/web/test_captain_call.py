"""A team tournament's "call the captain" (RULES.md §9.6) in Chromium: at his turn in the auction a player
calls; his captain, on the tournament page, sees the caller's hand and the auction (and no other card,
§12) and sends one suggested bid, which the caller's table shows."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page

from app.bots.client import Api
from app.engine.cards import DECK
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player

PLAYER_PASSWORD = "player-password"  # `new_player`'s
ALL_CARDS = {c.text for c in DECK}


async def _page(browser: Browser, server: ServerProcess, name: str, route: str) -> tuple[Page, list[str]]:
    """A page logged in as the player ``name`` at ``route``, and the list its uncaught errors go to."""
    context = await browser.new_context(viewport={"width": 1280, "height": 1000})
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(f"{server.url}/#/login")
    await page.fill("#login-name", name)
    await page.fill("#login-password", PLAYER_PASSWORD)
    await page.click("[data-action=login]")
    await page.wait_for_selector("[data-lobby]")
    await page.goto(f"{server.url}/#/{route}")
    return page, errors


async def _snapshot(api: Api, table_id: int) -> dict[str, Any]:
    client = api.table(table_id)
    await client.connect()
    try:
        while client.last is None or client.last.get("view") is None:
            await client.receive(timeout=30)
        return client.last
    finally:
        await client.close()


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
        room = await operator.create_room("team room", {"deal_time": 600})
        body = {"room_id": room["id"], "name": "Teams", "rounds": 1, "round_minutes": 60, "teams": True}
        tid = (await operator.call("POST", "/api/tournaments", body))["id"]
        for api in players:
            await api.call("POST", f"/api/tournaments/{tid}/register", {})
        first, second = (await operator.call("POST", f"/api/tournaments/{tid}/rounds"))["tables"]
        table_id = first["table_id"]
        seat = (await _snapshot(apis[first["players"][0]], table_id))["view"]["to_act"]
        caller, captain = first["players"][seat], second["players"][0]
        for name, role in ((caller, None), (captain, "captain")):
            await operator.call(
                "POST", f"/api/tournaments/{tid}/teams", {"player": name, "team": "Neva", "role": role}
            )
        hand = (await _snapshot(apis[caller], table_id))["view"]["deal"]["hands"][str(seat)]

        at_table, table_errors = await _page(browser, server, caller, f"table/{table_id}")
        pages.append(at_table)
        await at_table.wait_for_selector('[data-table][data-connection="online"]')
        watching, captain_errors = await _page(browser, server, captain, f"tournaments/{tid}")
        pages.append(watching)
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
