"""Readable at a glance (issue 22 §2): the room's rules in the lobby, "your turn" across the acting
player's page only, its browser notification (asked for on a click, switched off by the setting), the
sheet large on demand, card animations that stop under prefers-reduced-motion."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import Browser

from tests.server.conftest import ServerProcess
from tests.web.site import Player, play_deal, seat_players

ANIMATION = """() => {
    const trick = document.createElement('div');
    trick.className = 'trick';
    const card = document.createElement('span');
    card.className = 'card';
    trick.append(card);
    document.body.append(trick);
    const name = getComputedStyle(card).animationName;
    trick.remove();
    return name;
}"""

# Notifications recorded instead of shown, and the page taken for hidden (a player looking elsewhere).
RECORD_NOTIFICATIONS = """
window.__notes = [];
const Real = window.Notification;
class Recording extends Real {
    constructor(title, options) { super(title, options); window.__notes.push(title); }
}
Object.defineProperty(Recording, 'permission', { get: () => Real.permission });
Recording.requestPermission = (...a) => Real.requestPermission(...a);
window.Notification = Recording;
Object.defineProperty(document, 'hidden', { get: () => true, configurable: true });
"""


async def test_rules_turn_banner_notification_large_sheet_and_reduced_motion(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table_id, operator, observer, players = await seat_players(
        browser, sqlite_server, 3, {"pool_size": 30, "deal_time": 120, "reserve_time": 600}, phone_seat=2
    )
    try:
        # The room's rules in the lobby.
        lobby = players[1].page
        await lobby.goto(f"{sqlite_server.url}/#/lobby")
        rules = lobby.locator("[data-room-rules]").last
        await rules.wait_for()
        await rules.locator("summary").click()
        assert await rules.locator("[data-rule=pool]").text_content() == "30"
        clock = await rules.locator("[data-rule=clock]").text_content()
        assert clock == "2 минуты на раздачу + резерв 10 минут", clock
        await lobby.goto(f"{sqlite_server.url}/#/table/{table_id}")
        await lobby.wait_for_selector(f"[data-table='{table_id}'][data-version]")

        # Notifications: granted by the browser, switched on by the player's click.
        watcher = players[0]
        await watcher.context.grant_permissions(["notifications"])
        await watcher.page.add_init_script(RECORD_NOTIFICATIONS)
        await watcher.page.reload()
        await watcher.page.wait_for_selector("[data-setting=notify]")
        await watcher.page.check("[data-setting=notify]")
        assert await watcher.page.evaluate("localStorage.getItem('preferans.turn_notify')") == "on"

        banners: list[tuple[int | None, int]] = []

        async def look(player: Player, _: dict[str, Any]) -> None:
            for p in players:
                banners.append((p.seat, await p.page.locator("[data-your-turn]").count()))
            assert await player.page.locator("[data-your-turn]").count() == 1

        await play_deal(players, observer, "game", artifacts, each_step=look)
        # The banner showed on the acting player's page only (each step: one page of three).
        assert sum(count for _, count in banners) == len(banners) // 3
        notes = await watcher.page.evaluate("window.__notes")
        assert notes and all(note.startswith("Ваш ход") for note in notes), notes
        # Off: no more notifications.
        await watcher.page.uncheck("[data-setting=notify]")
        assert await watcher.page.evaluate("localStorage.getItem('preferans.turn_notify')") == "off"
        before = len(await watcher.page.evaluate("window.__notes"))
        await play_deal(players, observer, "allpass")
        assert len(await watcher.page.evaluate("window.__notes")) == before

        # The sheet large on demand.
        page = players[1].page
        await page.click("[data-action=sheet-large]")
        large = page.locator("[data-sheet-large] svg")
        await large.wait_for()
        box = await large.bounding_box()
        assert box is not None and box["width"] > 600
        await page.screenshot(path=str(artifacts / "sheet-large.png"), full_page=True)

        # Animations, and none for a player who asked the system for reduced motion.
        assert await page.evaluate(ANIMATION) == "card-to-trick"
        await page.emulate_media(reduced_motion="reduce")
        assert await page.evaluate(ANIMATION) == "none"
        for p in players:
            assert not p.errors, p.errors
    finally:
        await observer.stop()
        await operator.close()
