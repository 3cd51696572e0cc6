"""The lobby, "my games" with a finished game's sheet and deals, and the language switch (issue 10)."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Browser

from tests.server.conftest import ServerProcess
from tests.web.hidden import assert_no_leak
from tests.web.site import open_player, open_table, seat_players, sit_from_lobby


async def test_my_games_shows_the_sheet_settlement_and_deals_and_the_language_sticks(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    # Nobody moves and the clocks are tiny: the game ends by timeout within seconds (RULES §8.3).
    overrides = {"pool_size": 10, "deal_time": 0.3, "reserve_time": 0.3, "stake_per_whist": 1}
    table_id, operator, observer, players = await seat_players(browser, sqlite_server, 3, overrides)
    try:
        await observer.wait(lambda s: s["status"] != "playing", timeout=60)
        # The whole game, to its end: no frame any page received held a card its seat may not see.
        await assert_no_leak(sqlite_server, table_id, players, dom_recorded=False)
        history = await operator.call("GET", f"/api/tables/{table_id}/history")
        sheet = history["sheet"]
        page = players[0].page

        await page.goto(f"{sqlite_server.url}/#/lobby")
        card = page.locator(f'[data-lobby-table="{table_id}"]')
        await card.wait_for()
        assert await card.get_attribute("data-status") == history["status"]
        for player in players:
            assert await card.locator(f'text="{player.name}"').count() == 1

        await page.goto(f"{sqlite_server.url}/#/games")
        await page.click(f'[data-game="{table_id}"] a')
        await page.wait_for_selector(f'[data-game-page="{table_id}"] [data-sheet]')
        for seat in range(3):
            group = page.locator(f'[data-sheet] [data-sheet-seat="{seat}"]')
            assert int(await group.get_attribute("data-pool") or -1) == sheet["pools"][seat]
            assert int(await group.get_attribute("data-mountain") or -1) == sheet["mountains"][seat]
            for other in range(3):
                if other != seat:
                    written = await group.get_attribute(f"data-whists-on-{other}")
                    assert int(written or -1) == sheet["whists"][seat][other]
        assert await page.locator("[data-settlement]").count() == 1
        assert await page.locator("[data-deal]").count() == len(history["deals"])
        # Tapping a written figure says which entry wrote it.
        figure = page.locator("[data-sheet] tspan[data-history]").first
        await figure.dispatch_event("click")
        caption = await page.text_content(".sheet-caption")
        assert caption and caption.startswith("Раздача")
        await page.screenshot(path=str(artifacts / "my-game-ru.png"), full_page=True)

        # Russian by default; the switch sticks across a reload.
        assert await page.evaluate("document.documentElement.lang") == "ru"
        await page.click('[data-lang="en"]')
        await page.wait_for_selector('[data-status] >> text="finished"')
        await page.reload()
        await page.wait_for_selector(f'[data-game-page="{table_id}"]')
        assert await page.evaluate("document.documentElement.lang") == "en"
        assert "My games" in (await page.text_content("#nav") or "")
        await page.screenshot(path=str(artifacts / "my-game-en.png"), full_page=True)
        await page.click('[data-lang="ru"]')
        assert "Мои игры" in (await page.text_content("#nav") or "")
        # Signing out revokes the token on the server: the page is back at the login form.
        await page.click('[data-action="logout"]')
        await page.wait_for_selector("#login-name")
        assert await page.evaluate("localStorage.getItem('preferans.session')") is None
        for player in players:
            assert not player.errors, player.errors
    finally:
        await observer.stop()
        await operator.close()


async def test_sit_and_leave_at_the_table_page_then_the_game_starts_there(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table_id, operator = await open_table(sqlite_server, 3, {"pool_size": 10})
    try:
        first = await open_player(browser, sqlite_server)
        page = first.page
        await page.click(f'[data-action=watch][data-table="{table_id}"]')
        await page.wait_for_selector('[data-table][data-my-seat=""] [data-status="waiting"]')
        await page.click('[data-seat="0"] [data-action="sit"]')
        await page.wait_for_selector('[data-table][data-my-seat="0"]')
        await page.click('[data-action="leave"]')
        await page.wait_for_selector('[data-table][data-my-seat=""]')
        await page.click('[data-seat="1"] [data-action="sit"]')
        await page.wait_for_selector('[data-table][data-my-seat="1"]')
        others = [await open_player(browser, sqlite_server) for _ in range(2)]
        for seat, player in zip((0, 2), others, strict=True):
            await sit_from_lobby(player, table_id, seat)
        await page.wait_for_selector('[data-status="playing"]')
        await page.wait_for_selector('[data-hand-seat="1"] [data-card] >> nth=9')
        for seat, player in enumerate((others[0], first, others[1])):
            assert await player.page.text_content(f'[data-seat="{seat}"] .name')
        await page.screenshot(path=str(artifacts / "seated-at-table.png"))
        for player in (first, *others):
            assert not player.errors, player.errors
    finally:
        await operator.close()
