"""axe-core in the pages (issue 22 §5): no serious or critical violation on the login page, the lobby,
the table in each phase of a deal (a player's and a spectator's page, on a desk and on a phone), the
deal's end, a game's sheet page, the operator's, the moderation and the admin pages; cards and bids are
named in words ("ten of spades", "seven hearts") in both languages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page

from tests.server.conftest import ADMIN, OPERATOR, PASSWORD, ServerProcess
from tests.web.measure import assert_accessible
from tests.web.site import Player, open_spectator, play_deal, seat_players


async def _staff_page(browser: Browser, server: ServerProcess, name: str) -> Page:
    page = await (await browser.new_context()).new_page()
    await page.goto(f"{server.url}/#/login")
    await assert_accessible(page, "login")
    await page.fill("#login-name", name)
    await page.fill("#login-password", PASSWORD)
    await page.click("[data-action=login]")
    await page.wait_for_selector("[data-lobby]")
    return page


async def test_no_serious_accessibility_violations_anywhere(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table_id, operator, observer, players = await seat_players(
        browser, sqlite_server, 3, {"pool_size": 30, "deal_time": 600, "reserve_time": 600}, phone_seat=2
    )
    await assert_accessible(players[0].page, "table, waiting")
    watcher = await open_spectator(browser, sqlite_server, table_id)
    await watcher.page.goto(f"{sqlite_server.url}/#/lobby")
    await watcher.page.wait_for_selector("[data-lobby-table]")
    await assert_accessible(watcher.page, "lobby")
    await watcher.page.click(f'[data-action=watch][data-table="{table_id}"]')
    await watcher.page.wait_for_selector(f'[data-table="{table_id}"][data-version]')
    checked: set[str] = set()

    async def each_phase(player: Player, view: dict[str, Any]) -> None:
        phase = view["phase"]
        if phase in checked:
            return
        checked.add(phase)
        await assert_accessible(player.page, f"table, {phase}, seat {player.seat}")
        await assert_accessible(watcher.page, f"table, {phase}, spectator")

    try:
        await play_deal([*players, watcher], observer, "game", artifacts, each_step=each_phase)
        assert {"bidding", "discard", "contract", "whisting", "play"} <= checked, checked
        for player in players:
            await player.page.wait_for_selector("[data-deal-end] [data-result]")
            await assert_accessible(player.page, f"deal end, seat {player.seat}")
        # Cards and bids are named in words.
        page = players[0].page
        await page.click('[data-lang="en"]')
        labels = await page.evaluate(
            """async () => {
                const {cardLabel, bidLabel} = await import("/static/js/cards.js");
                return [cardLabel("sT"), cardLabel("hQ"), bidLabel("7h"), bidLabel("6n-nt"),
                        bidLabel("misere")];
            }"""
        )
        assert labels == [
            "ten of spades",
            "queen of hearts",
            "seven hearts",
            "six no trumps without talon",
            "Misère (мизер)",
        ]
        await page.click('[data-lang="ru"]')
        labels = await page.evaluate(
            """async () => {
                const {cardLabel, bidLabel} = await import("/static/js/cards.js");
                return [cardLabel("sT"), cardLabel("dA"), bidLabel("7h"), bidLabel("8c")];
            }"""
        )
        assert labels == ["десятка пик", "туз бубён", "семь червей", "восемь треф"]
        named = await page.evaluate(
            """() => [...document.querySelectorAll('[data-bid], [data-card], [data-past-card]')]
                .filter(e => !/[a-zа-яё]{3}/i.test(e.getAttribute('aria-label') || '')).length"""
        )
        assert named == 0
        # The operator stops the game; the sheet page, the operator's, moderation and admin pages.
        await operator.call("POST", f"/api/tables/{table_id}/stop", {"reason": "closing"})
        await page.goto(f"{page.url.split('#')[0]}#/games/{table_id}")
        await page.wait_for_selector(f"[data-game-page='{table_id}'] [data-sheet]")
        await assert_accessible(page, "game page")
        staff = await _staff_page(browser, sqlite_server, OPERATOR)
        await staff.click("[data-nav=operator]")
        await staff.wait_for_selector("[data-op-room]")
        await assert_accessible(staff, "operator page")
        await staff.click("[data-nav=moderation]")
        await staff.wait_for_selector("[data-room-chat]")
        await assert_accessible(staff, "moderation page")
        admin = await _staff_page(browser, sqlite_server, ADMIN)
        await admin.click("[data-nav=admin]")
        await admin.wait_for_selector("[data-admin-archive]")
        await assert_accessible(admin, "admin archive")
    finally:
        await observer.stop()
        await operator.close()
