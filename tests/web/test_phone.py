"""Phones (issue 22 §3): two players on touch phones in Playwright's mobile emulation (375×667 and
390×844) play a whole deal by tapping — a card is lifted by a first tap and played by a second —, the
bidding box and the sheet come up as sheets from the bottom, the own hand is fanned across the bottom,
nothing sticks out sideways; each phase's screen matches its committed reference within a tolerance."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.async_api import Browser

from tests.server.conftest import ServerProcess
from tests.web.hidden import assert_no_leak
from tests.web.screens import compare_with_reference, masked_shot
from tests.web.site import Observer, Player, open_player, open_table, play_deal, sit_from_lobby

PHONES = {1: (375, 667), 2: (390, 844)}
# Where an element's bottom edge rests once its slide-up has finished.
SETTLED_BOTTOM = (
    "el => { el.getAnimations().forEach(a => a.finish()); return el.getBoundingClientRect().bottom; }"
)
TOLERANCE = 0.12  # share of pixels: room for who acts, how long the names are; not for a broken layout


async def test_a_whole_deal_on_two_phones(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table_id, operator = await open_table(
        sqlite_server, 3, {"pool_size": 30, "deal_time": 600, "reserve_time": 600}
    )
    observer = Observer(operator, table_id)
    await observer.start()
    players = [await open_player(browser, sqlite_server, phone=PHONES.get(seat)) for seat in range(3)]
    for seat, player in enumerate(players):
        await sit_from_lobby(player, table_id, seat)
    await observer.wait(lambda s: s["status"] != "waiting")
    phones = [p for p in players if p.touch]
    assert await phones[0].page.evaluate("matchMedia('(pointer: coarse)').matches")
    shots: dict[str, float] = {}

    async def shoot(player: Player, view: dict[str, Any]) -> None:
        await look_at_phones(view["phase"])

    async def look_at_phones(phase: str) -> None:
        for phone in phones:
            page = phone.page
            width, height = PHONES[phone.seat or 0]
            name = f"phone-{width}x{height}-{phase}.png"
            if name in shots:
                continue
            overflow = await page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
            assert overflow <= 1, f"{name}: {overflow}px wider than the screen"
            if phase == "bidding" and view_turn(phone):
                # The bidding box is a sheet fixed to the bottom of the screen.
                # The bidding box comes up as a sheet resting on the own hand, which lies along the bottom.
                bottom = await page.locator(".panel.bidding").evaluate(SETTLED_BOTTOM)
                hand = await page.locator(f"[data-hand-seat='{phone.seat}']").bounding_box()
                assert hand is not None and abs(hand["y"] + hand["height"] - height) <= 2, hand
                assert abs(bottom - hand["y"]) <= 2, (bottom, hand)
            shot = await masked_shot(page)
            (artifacts / name).write_bytes(shot)
            shots[name] = await compare_with_reference(page.context.browser or _no(), shot, name, TOLERANCE)

    def view_turn(phone: Player) -> bool:
        return bool(observer.state["view"]["to_act"] == phone.seat)

    try:
        end = await play_deal(players, observer, "game", artifacts, each_step=shoot)
        assert end["result"]["type"] == "game"
        for phone in phones:
            await phone.page.wait_for_selector("[data-deal-end] [data-result]")
            # The own hand lies across the bottom of the screen, fanned (its cards turned).
            hand = phone.page.locator(f"[data-hand-seat='{phone.seat}']")
            box = await hand.bounding_box()
            width, height = PHONES[phone.seat or 0]
            assert box is not None and box["width"] <= width and abs(box["y"] + box["height"] - height) <= 2
            turned = await hand.locator("[data-card]").evaluate_all(
                "cards => cards.filter(c => getComputedStyle(c).transform !== 'none').length"
            )
            assert turned >= 8
        await look_at_phones("deal_end")
        # The sheet comes up from the bottom on demand and closes again.
        page = phones[0].page
        await page.locator("[data-action=sheet-large]").tap()
        sheet = page.locator("[data-sheet-large]")
        await sheet.wait_for()
        bottom = await sheet.evaluate(SETTLED_BOTTOM)
        assert abs(bottom - PHONES[1][1]) <= 2, bottom
        await look_at_phones("sheet")
        await page.locator("[data-action=sheet-close]").tap()
        await sheet.wait_for(state="detached")
        (artifacts / "differences.json").write_text(json.dumps(shots, indent=1))  # how close each came
        expected = {
            f"phone-{w}x{h}-{p}.png" for w, h in PHONES.values() for p in ("bidding", "play", "deal_end")
        }
        assert expected <= set(shots), sorted(shots)
        await assert_no_leak(sqlite_server, table_id, players)
        for player in players:
            assert not player.errors, player.errors
    finally:
        await observer.stop()
        await operator.close()


def _no() -> Browser:
    raise AssertionError("the page has no browser")
