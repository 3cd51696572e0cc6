"""Leaving a page before its answer came (the site's router, `app.js`): the page left must not draw that
answer over the page that came after it. Seen in CI as a tournament's page replaced by the list of
tournaments that the login had opened just before (`test_captain_call`, one run in three on a busy
machine)."""

from __future__ import annotations

import asyncio
import re

from playwright.async_api import Browser, Route

from tests.server.conftest import OPERATOR, ServerProcess, login
from tests.web.test_admin_pages import logged_in


async def test_a_page_left_before_its_answer_came_does_not_draw_over_the_next(
    sqlite_server: ServerProcess, browser: Browser
) -> None:
    server = sqlite_server
    operator = await login(server, OPERATOR)
    try:
        room = await operator.create_room("Cup room", {})
        body = {"room_id": room["id"], "name": "Cup", "rounds": 1, "round_minutes": 60}
        tid = (await operator.call("POST", "/api/tournaments", body))["id"]
    finally:
        await operator.close()
    page, errors = await logged_in(browser, server, OPERATOR, "ratings")
    try:
        asked, answer = asyncio.Event(), asyncio.Event()

        async def hold(route: Route) -> None:  # the list's answer waits until the next page is shown
            asked.set()
            await answer.wait()
            await route.continue_()

        await page.route(re.compile(r".*/api/tournaments$"), hold)
        await page.click("[data-nav=tournaments]")
        await asked.wait()
        await page.goto(f"{server.url}/#/tournaments/{tid}")
        await page.wait_for_selector(f"[data-tournament-page='{tid}']")

        async with page.expect_response(re.compile(r".*/api/tournaments$")):
            answer.set()
        # The tournament's page asks again every 2 s: by its next answer the list's has long been read.
        async with page.expect_response(re.compile(rf".*/api/tournaments/{tid}/page$"), timeout=30_000):
            pass
        assert await page.locator(f"[data-tournament-page='{tid}']").count() == 1
        assert await page.locator("[data-tournaments]").count() == 0
        assert not errors
    finally:
        await page.context.close()
