"""Claims in the browser (RULES.md §4.10, §12): the declarer presses "claim", every page shows the claim
and his hand, the lone whister accepts or rejects by clicking, and a rejection's verdict is shown in words.

Three players click through a deal ("game": first bidder 6♠, the first defender whists, open play); at
the declarer's first turn after the whister's choice he claims all the remaining tricks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import Browser

from tests.server.conftest import ServerProcess
from tests.web.hidden import assert_no_leak
from tests.web.site import Observer, Player, act, click_enabled, open_spectator, seat_players


async def _claim_deal(
    players: list[Player], observer: Observer, answer: str, shots: Path, max_steps: int = 120
) -> dict[str, Any]:
    """Play the first deal by clicking; the declarer claims once; the whister answers ``answer``."""
    claimed = False
    for _ in range(max_steps):
        if observer.deal_overs:
            return observer.deal_overs[0]
        state = observer.state
        view = state["view"]
        seat = view["to_act"]
        if state["status"] != "playing" or seat is None:
            await observer.wait(lambda s, v=state["v"]: s["v"] > v)
            continue
        player = next(p for p in players if p.seat == seat)
        await player.wait_version(state["v"])
        for p in players:
            await p.record_dom()
        await player.page.wait_for_selector(f'[data-seat="{seat}"][data-turn="true"]')
        page = player.page
        deal = view["deal"]
        if view["phase"] == "play" and seat == deal["declarer"] and not claimed and deal["mode"] is not None:
            offer = page.locator('[data-claim-panel="offer"] [data-claim].primary')
            await offer.wait_for()
            await page.screenshot(path=str(shots / "claim-offer.png"))
            assert await click_enabled(page, '[data-claim-panel="offer"] [data-claim].primary')
            claimed = True
        elif view["phase"] == "claim":
            declarer = deal["declarer"]
            for other in players:  # §12: the claim shows his hand on every page
                await other.page.wait_for_selector(f'[data-hand-seat="{declarer}"] [data-card]')
                await other.page.wait_for_selector("[data-claim-panel=open] .claim-head")
            await page.screenshot(path=str(shots / "claim-answer.png"))
            assert await click_enabled(page, f'[data-claim-answer="{answer}"]')
            judged = await observer.wait(lambda s, v=state["v"]: s["v"] > v)
            claim = (judged["view"].get("deal") or {}).get("claim")
            if judged["view"]["phase"] == "play" and claim and claim["verdict"]:
                for other in players:  # void: the verdict in words while play goes on, his hand open
                    await other.page.wait_for_selector(f'[data-claim-verdict="{claim["verdict"]}"]')
                    await other.page.wait_for_selector(f'[data-hand-seat="{declarer}"] [data-card]')
                await page.screenshot(path=str(shots / "claim-void.png"))
            continue
        else:
            await act(player, view, "game")
        await observer.wait(lambda s, v=state["v"]: s["v"] > v)
    raise AssertionError(f"the deal did not end in {max_steps} steps")


async def test_a_claim_accepted_by_clicking(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table_id, operator, observer, players = await seat_players(
        browser, sqlite_server, 3, {"pool_size": 30, "deal_time": 120, "reserve_time": 600}
    )
    watcher = await open_spectator(browser, sqlite_server, table_id)
    pages = [*players, watcher]
    try:
        end = await _claim_deal(pages, observer, "accept", artifacts)
        claim = end["record"]["claim"]
        assert claim is not None and claim["answers"] == [[claim["answerers"][0], True]]
        assert claim["verdict"] is None
        declarer = end["result"]["declarer"]
        assert end["result"]["tricks"][str(declarer)] >= claim["tricks"]
        for page in pages:  # the deal's end says what was claimed and who accepted
            words = page.page.locator('[data-deal-claim="accepted"]')
            await words.wait_for()
            assert (await words.text_content() or "").strip()
        await pages[0].page.screenshot(path=str(artifacts / "claim-accepted.png"), full_page=True)
        assert await assert_no_leak(sqlite_server, table_id, pages) > 50
        for player in pages:
            assert not player.errors, player.errors
    finally:
        await observer.stop()
        await operator.close()


async def test_a_claim_rejected_and_judged_by_clicking(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table_id, operator, observer, players = await seat_players(
        browser, sqlite_server, 3, {"pool_size": 30, "deal_time": 120, "reserve_time": 600}
    )
    watcher = await open_spectator(browser, sqlite_server, table_id)
    pages = [*players, watcher]
    try:
        end = await _claim_deal(pages, observer, "reject", artifacts)
        claim = end["record"]["claim"]
        verdict = claim["verdict"]
        assert verdict in ("stands", "fails", "undecided") and claim["answers"][-1][1] is False
        for page in pages:  # the verdict in words (the page's language, Russian by default)
            words = page.page.locator(f'[data-deal-claim="{verdict}"]')
            await words.wait_for()
            text = await words.text_content() or ""
            assert "Решатель" in text, text
        await pages[0].page.screenshot(path=str(artifacts / "claim-rejected.png"), full_page=True)
        assert await assert_no_leak(sqlite_server, table_id, pages) > 50
        for player in pages:
            assert not player.errors, player.errors
    finally:
        await observer.stop()
        await operator.close()
