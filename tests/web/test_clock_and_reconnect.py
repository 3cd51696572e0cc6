"""Clocks that reach zero with the server's timeout; sockets that drop and reconnect; a reload that
resumes the table (issue 10)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from playwright.async_api import Browser

from tests.server.conftest import ServerProcess
from tests.web.site import click_enabled, seat_players


async def test_page_clock_reaches_zero_with_the_servers_timeout_and_autoplay_shows_everywhere(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """RULES §8: deal time, then the reserve (red while used); the page counts down from the server's
    figures and never decides the timeout; the server's timeout ends the game and every page shows it."""
    deal_time, reserve = 2.0, 1.5
    _, operator, observer, players = await seat_players(
        browser, sqlite_server, 3, {"pool_size": 10, "deal_time": deal_time, "reserve_time": reserve}
    )
    try:
        seat = observer.state["view"]["to_act"]
        page = players[seat].page
        clock = f'[data-clock-seat="{seat}"]'
        zero_at = None
        saw_reserve_red = False
        deadline = time.monotonic() + deal_time + reserve + 10
        while time.monotonic() < deadline and zero_at is None:
            deal_ms, reserve_ms, red = await page.evaluate(
                """sel => { const el = document.querySelector(sel);
                    return [Number(el.dataset.dealMs), Number(el.dataset.reserveMs),
                            el.classList.contains('in-reserve')]; }""",
                clock,
            )
            saw_reserve_red |= bool(red and deal_ms == 0 and reserve_ms > 0)
            if deal_ms == 0 and reserve_ms == 0:
                zero_at = time.monotonic()
            await asyncio.sleep(0.05)
        assert zero_at is not None, "the page's clock never reached zero"
        assert saw_reserve_red, "the reserve was not shown red while it was being used"
        await page.screenshot(path=str(artifacts / "clock-zero.png"))
        await observer.wait(lambda s: s["status"] != "playing", timeout=30)
        server_at = next(at for at, who in observer.timeouts if who == seat)
        assert abs(zero_at - server_at) < 1.0, f"page zero {zero_at:.3f}, server timeout {server_at:.3f}"
        final = observer.state
        for player in players:
            await player.page.wait_for_selector(f'[data-status="{final["status"]}"]')
            await player.page.wait_for_selector("[data-game-over] [data-settlement]")
            # The auto-played seat is marked, and the sheet carries the §5.8 penalty like the server's.
            assert await player.page.locator(f'{clock}.out, [data-seat="{seat}"] .badge.out').count() >= 1
        await players[0].page.screenshot(path=str(artifacts / "game-over.png"), full_page=True)
    finally:
        await observer.stop()
        await operator.close()


async def test_a_clock_going_from_10_00_to_9_59_moves_nothing_on_its_seat_line(
    sqlite_server: ServerProcess, browser: Browser
) -> None:
    """The figures keep their width: the running clock's reserve, and the clock's own edges, stay where they
    were when its deal time loses a digit."""
    _, operator, observer, players = await seat_players(
        browser, sqlite_server, 3, {"pool_size": 10, "deal_time": 605, "reserve_time": 600}
    )
    try:
        seat = observer.state["view"]["to_act"]
        page = players[(seat + 1) % 3].page
        clock = f'[data-clock-seat="{seat}"]'
        where = """sel => { const el = document.querySelector(sel);
            const box = (node) => { const r = node.getBoundingClientRect(); return [r.left, r.right]; };
            const deal = el.querySelector('.deal'), reserve = el.querySelector('.reserve');
            return [deal.textContent, ...box(el), ...box(reserve)]; }"""

        async def shown(prefix: str) -> list[float]:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                text, *edges = await page.evaluate(where, clock)
                if str(text).startswith(prefix):
                    return [float(edge) for edge in edges]
                await asyncio.sleep(0.05)
            raise AssertionError(f"the running clock never showed {prefix}...")

        before = await shown("10:0")
        after = await shown("9:59")
        assert after == before, f"clock and reserve edges moved: {before} at 10:0x, {after} at 9:59"
    finally:
        await observer.stop()
        await operator.close()


async def test_dropped_socket_reconnects_and_a_reloaded_page_resumes(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    _, operator, observer, players = await seat_players(
        browser, sqlite_server, 3, {"pool_size": 10, "deal_time": 120, "reserve_time": 600}
    )
    try:
        state = observer.state
        seat = state["view"]["to_act"]
        player = players[seat]
        page = player.page
        # Only the legal bids are enabled (RULES §2: no jumps, so 6♠ and 6♠ without talon open the ladder);
        # the no-talon ladder unfolds on demand and stays unfolded across re-renders.
        await page.wait_for_selector(f'[data-seat="{seat}"][data-turn="true"]')
        # Another player's page: its own cards stay reachable by keyboard while inert; the card it focuses
        # and the live region saying whose turn it is must be the same nodes after the frames that follow.
        watcher = players[(seat + 1) % 3]
        await watcher.page.focus(f'[data-hand-seat="{watcher.seat}"] button[data-card]')
        inert = await watcher.page.evaluate(
            """() => { window.kept = {card: document.activeElement, turn: document.querySelector('.turn-of')};
                       return window.kept.card.getAttribute('aria-disabled'); }"""
        )
        assert inert == "true"
        assert await page.locator('[data-bid="6s"]:not([aria-disabled=true])').count() == 1
        assert await page.locator('[data-bid="7s"][aria-disabled=true]').count() == 1
        assert await page.locator('[data-bid="hold"][aria-disabled=true]').count() == 1
        # The title flashes for the seat to act only; every control has an accessible name.
        assert (await page.title()).startswith("●")
        assert not (await players[(seat + 1) % 3].page.title()).startswith("●")
        unnamed = await page.evaluate(
            """() => [...document.querySelectorAll('button, a, input')]
                     .filter(e => !(e.getAttribute('aria-label') || e.textContent.trim() || e.labels?.length))
                     .map(e => e.outerHTML.slice(0, 80))"""
        )
        assert not unnamed, unnamed
        await page.click('[data-action="no-talon"]')
        assert await page.locator('[data-bid="6s-nt"]:not([aria-disabled=true])').is_visible()
        assert await page.locator('[data-bid="7s-nt"][aria-disabled=true]').count() == 1
        await page.evaluate("() => window.preferans.dropSocket()")
        await page.wait_for_selector('[data-banner="reconnecting"]', timeout=5000)
        # While the banner shows, nothing can be clicked (one read of the DOM: the page may be back already).
        banner, enabled = await page.evaluate(
            """() => [!!document.querySelector('[data-banner="reconnecting"]'),
                     document.querySelectorAll('button:not([aria-disabled=true])[data-bid]').length]"""
        )
        assert not (banner and enabled), "controls stayed enabled while offline"
        await page.screenshot(path=str(artifacts / "reconnecting.png"))
        await page.wait_for_selector('[data-table][data-connection="online"]', timeout=10000)
        assert await page.locator('[data-banner="reconnecting"]').count() == 0
        assert await page.locator('[data-bid="6s-nt"]').is_visible()
        # The game goes on from the reconnected page, and the move is applied exactly once.
        assert await click_enabled(page, '[data-bid="pass"]')
        after = await observer.wait(lambda s: s["v"] > state["v"])
        auction = after["view"]["deal"]["auction"]
        assert auction == [[seat, None]]
        await watcher.wait_version(after["v"])
        kept = await watcher.page.evaluate(
            """() => [document.activeElement === window.kept.card, window.kept.card.isConnected,
                      document.querySelector('.turn-of') === window.kept.turn,
                      window.kept.turn.textContent]"""
        )
        assert kept[:3] == [True, True, True], kept
        assert kept[3], "the turn's live region lost its text"

        # A reload puts the next player back at the table where the game stands, and it plays on.
        nxt = players[after["view"]["to_act"]]
        await nxt.page.reload()
        await nxt.page.wait_for_selector(f'[data-table][data-version="{after["v"]}"]')
        assert await nxt.page.locator(f'[data-hand-seat="{nxt.seat}"] [data-card]').count() == 10
        assert await click_enabled(nxt.page, '[data-bid="pass"]')
        again = await observer.wait(lambda s: s["v"] > after["v"])
        assert again["view"]["deal"]["auction"] == [[seat, None], [nxt.seat, None]]
        await nxt.page.screenshot(path=str(artifacts / "after-reload.png"))

        # A click whose socket dies right after sending: applied once or not at all, never twice.
        third = players[again["view"]["to_act"]]
        await third.page.evaluate(
            """() => { document.querySelector('[data-bid="pass"]:not([aria-disabled=true])').click();
                       window.preferans.dropSocket(); }"""
        )
        await third.page.wait_for_selector('[data-table][data-connection="online"]', timeout=10000)
        await asyncio.sleep(0.5)
        if observer.state["v"] == again["v"]:  # lost with the socket: the page offers the move again
            assert await click_enabled(third.page, '[data-bid="pass"]')
        final = await observer.wait(lambda s: s["v"] > again["v"])
        await asyncio.sleep(0.5)
        auction = observer.state["view"]["deal"]["auction"]
        assert auction == [[seat, None], [nxt.seat, None], [third.seat, None]], auction
        assert final["view"]["deal"]["allpass"]
        for p in players:
            assert not p.errors, p.errors
    finally:
        await observer.stop()
        await operator.close()


async def test_after_a_restart_the_pages_show_the_clocks_held_until_the_seat_to_move_is_back(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """RULES §8.6 [ours]: after a kill -9 and a restart the players' pages reconnect by themselves; while
    the seat to move is not back its clock stands still and the pages say why; after the 10 s grace it
    runs again without it."""
    _, operator, observer, players = await seat_players(
        browser, sqlite_server, 3, {"pool_size": 10, "deal_time": 60, "reserve_time": 60}
    )
    try:
        mover = observer.state["view"]["to_act"]
        await observer.stop()
        await players[mover].page.close()  # the seat to move's browser is away for now
        page = players[(mover + 1) % 3].page
        await asyncio.to_thread(sqlite_server.kill)
        await asyncio.to_thread(sqlite_server.start)
        await page.wait_for_selector('[data-banner="paused-reconnect"]', timeout=30_000)
        await page.screenshot(path=str(artifacts / "clocks-held-after-restart.png"))
        clock = f'[data-clock-seat="{mover}"]'

        async def left() -> int:
            deal, reserve = await page.evaluate(
                "s => { const d = document.querySelector(s).dataset; return [d.dealMs, d.reserveMs]; }",
                clock,
            )
            return int(deal) + int(reserve)

        held = await left()
        await asyncio.sleep(1.0)
        if await page.locator('[data-banner="paused-reconnect"]').count():
            assert await left() == held, "the held clock counted down on the page"
        # The grace passes: the clock runs again, and the banner is gone.
        await page.wait_for_selector('[data-banner="paused-reconnect"]', state="detached", timeout=30_000)
        running = await left()
        await asyncio.sleep(1.2)
        assert await left() < running, "the clock did not run again after the grace"
    finally:
        await operator.close()
