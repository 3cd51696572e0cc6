"""RULES §7.7, [K 3.1.2] in the browser: a user watching a table of three asks to join as a fourth by
clicking, the three accept by clicking, and from the next deal he sits left of the last dealer, deals it,
then plays his cards at a table of four."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Browser

from tests.server.conftest import ServerProcess
from tests.web.site import Player, open_spectator, play_deal, seat_players

CONVENTIONS = {"pool_size": 30, "deal_time": 120, "reserve_time": 600, "fourth_may_join": True}


async def _click(player: Player, selector: str) -> None:
    await player.page.locator(selector).click()


async def test_a_fourth_asks_to_join_three_and_plays_at_four(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table_id, operator, observer, players = await seat_players(browser, sqlite_server, 3, CONVENTIONS)
    dan = await open_spectator(browser, sqlite_server, table_id)
    try:
        await _click(dan, "[data-action=ask-join]")
        for player in players:
            await player.page.wait_for_selector("[data-proposal=join]")
            await _click(player, "[data-action=proposal-accept]")
        await dan.page.wait_for_selector("[data-proposal=join] >> text=" + dan.name)
        await observer.wait(lambda s: len(((s["life"] or {}).get("proposal") or {}).get("accepted", [])) == 3)
        dealer = observer.state["view"]["dealer"]
        await play_deal(players, observer, "allpass", artifacts)

        seat = dealer + 1  # left of the player who has just dealt; the seats after it move up
        state = await observer.wait(lambda s: s["view"]["seats"] == 4 and s["view"]["deal_number"] == 2)
        assert state["view"]["dealer"] == seat and state["life"] is None
        for player in players:
            assert player.seat is not None
            player.seat = player.seat if player.seat <= dealer else player.seat + 1
        dan.seat = seat
        for player in [*players, dan]:
            await player.page.wait_for_selector(f'[data-table][data-my-seat="{player.seat}"]')
        await dan.page.wait_for_selector('[data-sheet] [data-sheet-seat="3"]')  # the sheet has four columns
        await dan.page.screenshot(path=str(artifacts / "fourth-joined.png"), full_page=True)

        await play_deal([*players, dan], observer, "allpass", artifacts)  # dan deals and sits it out
        third = await observer.wait(lambda s: s["view"]["deal_number"] == 3)
        assert third["view"]["dealer"] == (seat + 1) % 4 and seat in third["view"]["deal"]["active"]
        end = await play_deal([*players, dan], observer, "allpass", artifacts)
        assert str(seat) in end["result"]["tricks"]  # the newcomer played his cards by clicking
        await operator.call("POST", f"/api/tables/{table_id}/stop", {"reason": "closing"})
        await observer.wait(lambda s: s["status"] in ("finished", "awaiting_adjudication"))
        page = dan.page  # the game record names each deal's seats by who held them then
        await page.goto(f"{page.url.split('#')[0]}#/games/{table_id}")
        await page.wait_for_selector('[data-deal="3"] .reveal-hand', state="attached")  # closed <details>

        async def labels(deal: int) -> set[str]:
            shown = page.locator(f'[data-deal="{deal}"] .reveal-hand .label')
            return {(await shown.nth(i).text_content() or "") for i in range(await shown.count())}

        assert await labels(1) == {p.name for p in players}  # deal 1: the three, in their seats then
        assert dan.name in await labels(3)
        for player in [*players, dan]:
            assert not player.errors, player.errors
    finally:
        await observer.stop()
        await operator.close()
        for player in [*players, dan]:
            await player.context.close()
