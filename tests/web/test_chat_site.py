"""Table chat in the browser (issue 22 §4): HTML typed into a message is shown as text and never runs (the
test listens for dialogs), links are not clickable, the spectators' channel never reaches a player's page,
presets read in the reader's language, a reload shows the stored messages, a mute for oneself and a
report, the moderation page removes a message (gone from the pages at once) and mutes its writer (told
in his page), the players' chat closed during deals where the room says so; no chat frame held a card."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, Dialog, Page

from app.bots.client import Api, ApiError
from tests.server.conftest import ADMIN, OPERATOR, PASSWORD, ServerProcess, login
from tests.web.hidden import assert_no_leak
from tests.web.site import open_spectator, seat_players

XSS = "<img src=x onerror=alert(1)> see http://evil.example/x"


async def _say(page: Page, text: str) -> None:
    await page.fill("#chat-text", text)
    await page.click("[data-action=chat-send]:not([aria-disabled=true])")


def _message(page: Page, text: str) -> str:
    return f"[data-chat-message]:has([data-chat-text]:text-is({text!r}))"


async def test_chat_at_the_table_and_its_moderation(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table_id, operator, observer, players = await seat_players(
        browser, sqlite_server, 3, {"pool_size": 30, "deal_time": 600, "reserve_time": 600}, phone_seat=2
    )
    watcher = await open_spectator(browser, sqlite_server, table_id)
    pages = [*players, watcher]
    dialogs: list[str] = []

    async def on_dialog(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        await dialog.dismiss()

    for p in pages:
        p.page.on("dialog", on_dialog)
    try:
        for p in pages:
            await p.page.wait_for_selector("[data-chat]")
        assert await players[0].page.get_attribute("[data-chat]", "data-chat") == "players"
        assert await watcher.page.get_attribute("[data-chat]", "data-chat") == "spectators"

        # HTML typed into a message is text: nothing runs, no element is made, the link is not a link.
        await _say(players[0].page, XSS)
        for p in pages:
            shown = p.page.locator(_message(p.page, XSS))
            await shown.wait_for()
            assert await shown.locator("img, a, script").count() == 0
        assert await watcher.page.locator("[data-chat-log] img, [data-chat-log] a").count() == 0

        # The spectators' channel: the watcher's page shows it, a player's never does.
        await _say(watcher.page, "he should lead the ace")
        await watcher.page.locator(_message(watcher.page, "he should lead the ace")).wait_for()
        await players[2].page.click("[data-chat-preset=thanks]")  # a preset, read in each page's language
        await players[1].page.locator(_message(players[1].page, "Спасибо")).wait_for()
        await watcher.page.locator(_message(watcher.page, "Спасибо")).wait_for()
        for p in players:
            await p.page.locator(_message(p.page, "Спасибо")).wait_for()
            assert await p.page.locator("[data-chat-message][data-channel=spectators]").count() == 0

        # Stored with the table: a reload shows what was said.
        await players[1].page.reload()
        await players[1].page.locator(_message(players[1].page, XSS)).wait_for()
        assert await players[1].page.locator("[data-chat-message]").count() == 2

        # A report, and a mute for oneself.
        rude = players[1].page.locator(_message(players[1].page, XSS))
        await rude.locator("[data-action=chat-report]").click()
        await rude.locator("[data-chat-reported]").wait_for()
        await rude.locator("[data-action=chat-ignore]").click()
        await (
            players[1]
            .page.locator(f"[data-chat-message][data-chat-user='{players[0].name}']")
            .wait_for(state="detached")
        )
        await players[1].page.screenshot(path=str(artifacts / "chat-player.png"), full_page=True)

        # The room's operator: the report with its context; removes the message, mutes its writer.
        context = await browser.new_context()
        moderator = await context.new_page()
        moderator.on("dialog", on_dialog)
        await moderator.goto(f"{sqlite_server.url}/#/login")
        await moderator.fill("#login-name", OPERATOR)
        await moderator.fill("#login-password", PASSWORD)
        await moderator.click("[data-action=login]")
        await moderator.click("[data-nav=moderation]")
        report = moderator.locator("[data-report]").first
        await report.wait_for()
        assert XSS in (await report.text_content() or "")
        assert await report.locator("img, a").count() == 0
        await moderator.fill("[data-report] input[id^=mod-reason]", "insults")
        # Mute first: removing the message closes its report (and the report's buttons go with it).
        await moderator.click("[data-action=mute-room]")
        await moderator.wait_for_selector(f"[data-mute][data-user='{players[0].name}']")
        await moderator.click("[data-action=remove-message]")
        await watcher.page.locator(_message(watcher.page, XSS)).wait_for(state="detached")
        await players[2].page.locator(_message(players[2].page, XSS)).wait_for(state="detached")
        await moderator.wait_for_selector("[data-no-reports]")
        await players[0].page.wait_for_selector("[data-chat-state=muted]")
        note = await players[0].page.text_content("[data-chat] .chat-note")
        assert note and "insults" in note
        assert await players[0].page.get_attribute("[data-action=chat-send]", "aria-disabled") == "true"
        await moderator.wait_for_selector(f"[data-mute][data-user='{players[0].name}']")
        await moderator.screenshot(path=str(artifacts / "moderation.png"), full_page=True)

        # The room closes the players' chat during deals (as in a tournament): a deal is on.
        room = await moderator.locator("[data-room-chat]").first.get_attribute("data-room-chat")
        await moderator.check(f"[data-chat-closed='{room}']")
        await moderator.click(f"[data-action=save-room-chat][data-room='{room}']")
        await players[2].page.reload()
        await players[2].page.wait_for_selector("[data-chat-state=closed]")
        assert await players[2].page.get_attribute("[data-chat-preset=thanks]", "aria-disabled") == "true"
        await players[2].page.screenshot(path=str(artifacts / "chat-closed-phone.png"), full_page=True)
        await watcher.page.reload()
        await watcher.page.wait_for_selector("[data-chat-state=open]")  # spectators talk among themselves
        await context.close()

        assert dialogs == []
        # Names with HTML are refused at registration: only text names reach a chat line.
        api = Api(sqlite_server.url)
        with pytest.raises(ApiError) as refused:
            await api.register("<img src=x onerror=alert(1)>", "player-password")
        assert refused.value.status == 422
        await api.close()
        admin = await login(sqlite_server, ADMIN)
        audit = (await admin.call("GET", "/api/admin/audit?limit=50"))["items"]
        await admin.close()
        assert {"chat_remove", "chat_mute", "room_chat"} <= {e["action"] for e in audit}
        # The hidden-card audit over every frame the pages got, chat frames included.
        chat_frames = [f for p in pages for f in p.frames if str(f.get("type", "")).startswith("chat")]
        assert len(chat_frames) >= 6
        await assert_no_leak(sqlite_server, table_id, pages, dom_recorded=False)
        for p in pages:
            assert not p.errors, p.errors
    finally:
        await observer.stop()
        await operator.close()
