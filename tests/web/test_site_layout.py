"""What a player sees first (issue 22 §1.4–§1.5): the badges readable (contrast measured in the browser
at least 4.5:1), the settlement shown whole at 1280 and 375 px, on the table page and on the game page,
and an interrupted deal said in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import Browser

from tests.server.conftest import ServerProcess
from tests.web.measure import assert_fits, contrasts, sideways
from tests.web.site import Player, play_deal, seat_players

BADGES = "[data-table] .badge"


async def test_badges_are_readable_and_the_settlement_fits_at_1280_and_375_px(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table_id, operator, observer, players = await seat_players(
        browser, sqlite_server, 4, {"pool_size": 30, "deal_time": 120, "reserve_time": 600}, phone_seat=2
    )
    seen: dict[str, float] = {}  # badge class -> the lowest contrast measured

    async def measure(_: Player, __: dict[str, Any]) -> None:
        for player in players:
            for badge in await contrasts(player.page, BADGES):
                seen[badge["cls"]] = min(seen.get(badge["cls"], 99.0), badge["ratio"])
                assert badge["ratio"] >= 4.5, f"seat {player.seat}: badge {badge} below 4.5:1"

    try:
        await play_deal(players, observer, "dealer_whist", artifacts, each_step=measure)
        # The dealer, first hand, declarer and a whist call ("pass") were all measured.
        kinds = {cls.split()[-1] for cls in seen}
        assert {"dealer", "first", "declarer", "call"} <= kinds, seen
        # The operator stops the pulya mid-deal (§7.7): the game is over, its settlement shown.
        await operator.call("POST", f"/api/tables/{table_id}/stop", {"reason": "the club closes"})
        for player in players:
            page = player.page
            await page.wait_for_selector("[data-game-over] [data-settlement]")
            label = f"seat {player.seat} ({page.viewport_size})"
            await assert_fits(page, "[data-game-over] [data-settlement]", label)
            # A clock's note of a bonus (three seconds after a deal's reset or the misère bonus) does not
            # widen the page: on 375 px a "+3 с" beside the figures pushed the seat 6 px out of the window.
            notes = await page.evaluate(
                """() => [...document.querySelectorAll('[data-clock-seat] .note')]
                    .map(note => {
                        note.textContent = '+300 с';
                        return note.getBoundingClientRect().width;
                    })"""
            )
            assert notes and all(width > 0 for width in notes), notes
            wider = await sideways(page)
            assert not wider, f"{label} with a bonus note: {wider}"
            rows = await page.locator("[data-settlement] [data-settlement-seat]").count()
            assert rows == 4
            words = await page.text_content("[data-deal-interrupted] [data-result]")
            assert words and "the club closes" in words
            await page.screenshot(path=str(artifacts / f"over-seat{player.seat}.png"), full_page=True)
        # The finished game's own page, on a desk and on a phone.
        for player in (players[0], players[2]):
            page = player.page
            await page.goto(f"{page.url.split('#')[0]}#/games/{table_id}")
            await page.wait_for_selector(f"[data-game-page='{table_id}'] [data-settlement]")
            await assert_fits(page, "[data-settlement]", f"game page {page.viewport_size}")
            await page.screenshot(path=str(artifacts / f"game-page-seat{player.seat}.png"), full_page=True)
        for player in players:
            assert not player.errors, player.errors
    finally:
        await observer.stop()
        await operator.close()
