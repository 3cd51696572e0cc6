"""RULES §7.7 in the browser: three players adjourn and resume by clicking (the adjourned game listed in
"my games" with its way back to the table), and a substitute, who only watched, takes a seat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import Browser

from tests.server.conftest import ServerProcess
from tests.web.site import Player, open_spectator, play_deal, seat_players

TIMES = {"pool_size": 30, "deal_time": 120, "reserve_time": 600}


async def _click(player: Player, selector: str) -> None:
    await player.page.locator(selector).click()


async def test_three_players_adjourn_and_resume(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table_id, operator, observer, players = await seat_players(browser, sqlite_server, 3, TIMES)
    try:
        await _click(players[0], "[data-action=propose-adjourn]")
        for player in players[1:]:
            await player.page.wait_for_selector("[data-proposal=adjourn]")
            await _click(player, "[data-action=proposal-accept]")
        await players[0].page.wait_for_selector('[data-accepted="0,1,2"]')
        await observer.wait(lambda s: s["life"] is not None and len(s["life"]["proposal"]["accepted"]) == 3)
        await play_deal(players, observer, "allpass", artifacts)
        state = await observer.wait(lambda s: s["status"] == "adjourned")
        assert state["clock"]["frozen"] and state["view"]["deal_number"] == 1
        for player in players:
            await player.page.wait_for_selector("[data-status=adjourned]")
            await player.page.wait_for_selector("[data-adjourned]")
        await players[0].page.screenshot(path=str(artifacts / "adjourned.png"), full_page=True)

        page = players[0].page  # "my games" lists it with the way back in
        await page.goto(f"{page.url.split('#')[0]}#/games")
        await page.click(f"[data-action=back-to-table][data-table='{table_id}']")
        await page.wait_for_selector(f'[data-table="{table_id}"][data-version] [data-action=ready]')

        for i, player in enumerate(players):
            await _click(player, "[data-action=ready]")
            if i < 2:
                await players[0].page.wait_for_selector(
                    f'[data-ready="{",".join(str(s) for s in range(i + 1))}"]'
                )
        state = await observer.wait(lambda s: s["status"] == "playing")
        assert state["view"]["deal_number"] == 2 and not state["clock"]["frozen"]
        for player in players:
            await player.page.wait_for_selector("[data-status=playing]")
            assert await player.page.locator("[data-adjourned]").count() == 0
            assert not player.errors, player.errors
    finally:
        await observer.stop()
        await operator.close()
        for player in players:
            await player.context.close()


async def test_a_substitute_takes_a_seat(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table_id, operator, observer, players = await seat_players(browser, sqlite_server, 3, TIMES)
    dan = await open_spectator(browser, sqlite_server, table_id)
    try:
        leaver = players[1]
        await leaver.page.fill("[data-field=substitute]", dan.name)
        await _click(leaver, "[data-action=propose-substitute]")
        for player in (players[0], players[2], dan):
            await player.page.wait_for_selector("[data-proposal=substitute]")
            await _click(player, "[data-action=proposal-accept]")
        await leaver.page.wait_for_selector("[data-proposal=substitute]")
        # Every answer is a version of its own: the observer must have them all before the deal's moves.
        await observer.wait(lambda s: (s["life"] or {}).get("proposal", {}).get("substitute_accepted"))
        await play_deal(players, observer, "allpass", artifacts)
        line = f"seat 1: {leaver.name} → {dan.name} after deal 1"

        def substituted(s: dict[str, Any]) -> bool:
            sheet = observer.client.sheet or {"history": []}
            return s["life"] is None and any(h["summary"] == line for h in sheet["history"])

        state = await observer.wait(substituted)
        assert state["view"]["deal_number"] == 2
        await dan.page.wait_for_selector('[data-table][data-my-seat="1"]')
        await leaver.page.wait_for_selector('[data-table][data-my-seat=""]')
        dan.seat, leaver.seat = 1, None
        await dan.page.screenshot(path=str(artifacts / "substitute-seated.png"), full_page=True)
        end = await play_deal([players[0], dan, players[2]], observer, "allpass", artifacts)
        assert end["result"]["type"] == "allpass"  # the substitute plays the seat by clicking
        assert not dan.errors and not leaver.errors
    finally:
        await observer.stop()
        await operator.close()
        for player in [*players, dan]:
            await player.context.close()
