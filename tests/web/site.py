"""Driving the site like players do: register in the page, sit from the lobby, click the table's controls.

`Observer` is a spectator websocket (the bots' client) that tells the test whose turn it is; every move
itself is a click in the acting player's page, on a control the page enabled.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from app.bots.client import Api, TableClient
from tests.server.conftest import OPERATOR, ServerProcess, login

PASSWORD = "browser-password"


@dataclass
class Player:
    name: str
    context: BrowserContext
    page: Page
    frames: list[dict[str, Any]] = field(default_factory=list)  # every websocket frame the page received
    errors: list[str] = field(default_factory=list)  # uncaught page errors
    dom: list[tuple[int, list[str]]] = field(default_factory=list)  # (log length shown, its data-card values)
    clock_notes: list[str] = field(default_factory=list)  # clock notes seen (misère bonus, deal reset)
    seat: int | None = None  # None: a spectator
    touch: bool = False  # a phone: plays by tapping

    async def wait_version(self, version: int, timeout: float = 15) -> None:
        await self.page.wait_for_function(
            "v => Number(document.querySelector('[data-table]')?.dataset.version ?? -1) >= v",
            arg=version,
            timeout=timeout * 1000,
        )

    async def record_dom(self) -> None:
        """The action-log length the page shows and every card it holds in its DOM (one atomic read)."""
        actions, cards, notes = await self.page.evaluate(
            """() => [Number(document.querySelector('[data-table]')?.dataset.actions ?? -1),
                     [...document.querySelectorAll('[data-card]')].map(e => e.dataset.card),
                     [...document.querySelectorAll('[data-clock-seat] .note')].map(e => e.textContent)]"""
        )
        self.dom.append((actions, cards))
        self.clock_notes.extend(note for note in notes if note)


async def open_player(
    browser: Browser, server: ServerProcess, width: int = 1280, phone: tuple[int, int] | None = None
) -> Player:
    """A new browser context; the player registers through the login page and lands in the lobby.
    ``phone``: a touch phone's screen (width, height) in Playwright's mobile emulation."""
    if phone is None:
        context = await browser.new_context(viewport={"width": width, "height": 1000})
    else:
        context = await browser.new_context(
            viewport={"width": phone[0], "height": phone[1]},
            screen={"width": phone[0], "height": phone[1]},
            is_mobile=True,
            has_touch=True,
        )
    page = await context.new_page()
    # Digits only: they are all as wide (tabular), so a name never changes where the phone's top bar wraps
    # (hex letters did: a 2- or 3-line bar, 20% of a screenshot).
    player = Player(f"p{secrets.randbelow(10**6):06d}", context, page, touch=phone is not None)

    def on_socket(ws: Any) -> None:
        def received(payload: str | bytes) -> None:
            player.frames.append(json.loads(payload))

        ws.on("framereceived", received)

    page.on("websocket", on_socket)
    page.on("pageerror", lambda exc: player.errors.append(str(exc)))
    await page.goto(f"{server.url}/")
    await page.fill("#login-name", player.name)
    await page.fill("#login-password", PASSWORD)
    await page.click("[data-action=register]")
    await page.wait_for_selector("[data-lobby]")
    return player


async def open_table(server: ServerProcess, seats: int, overrides: dict[str, Any]) -> tuple[int, Api]:
    operator = await login(server, OPERATOR)
    room = await operator.create_room(f"room {secrets.randbelow(10**4):04d}", overrides)
    table = await operator.open_table(room["id"], seats)
    return int(table["id"]), operator


async def sit_from_lobby(player: Player, table_id: int, seat: int) -> None:
    page = player.page
    await page.goto(f"{page.url.split('#')[0]}#/lobby")
    button = page.locator(f'[data-action=sit][data-table="{table_id}"][data-seat="{seat}"]')
    await button.click()
    await page.wait_for_selector(f'[data-table="{table_id}"][data-version]')
    player.seat = seat


async def seat_players(
    browser: Browser,
    server: ServerProcess,
    seats: int,
    overrides: dict[str, Any],
    phone_seat: int | None = None,
) -> tuple[int, Api, Observer, list[Player]]:
    """A fresh table; every player registers in a browser and sits from the lobby; the game starts.
    ``phone_seat`` plays in a 375 px wide window."""
    table_id, operator = await open_table(server, seats, overrides)
    observer = Observer(operator, table_id)
    await observer.start()
    players = [
        await open_player(browser, server, width=375 if i == phone_seat else 1280) for i in range(seats)
    ]
    for seat, player in enumerate(players):
        await sit_from_lobby(player, table_id, seat)
    await observer.wait(lambda s: s["status"] != "waiting")
    return table_id, operator, observer, players


async def open_spectator(browser: Browser, server: ServerProcess, table_id: int) -> Player:
    """A registered user who is not seated opens the table from the lobby's "watch" link."""
    player = await open_player(browser, server)
    await player.page.click(f'[data-action=watch][data-table="{table_id}"]')
    await player.page.wait_for_selector(f'[data-table="{table_id}"][data-version]')
    return player


class Observer:
    """A spectator socket kept up to date in the background."""

    def __init__(self, api: Api, table_id: int) -> None:
        self.client = TableClient(api, table_id, record=True)
        self.task: asyncio.Task[None] | None = None
        self.deal_overs: list[dict[str, Any]] = []  # each deal's end: its result and record
        self.timeouts: list[tuple[float, int]] = []  # (monotonic time received, seat) of timeout events
        self.changed = asyncio.Event()

    async def start(self) -> None:
        await self.client.connect()
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            message = await self.client.receive()
            if message.get("type") == "update":
                for event in message.get("events", []):
                    if event["kind"] == "deal_over":  # the next shuffle may follow in the same step
                        self.deal_overs.append(event["data"])
                    if event["kind"] == "timeout":
                        self.timeouts.append((time.monotonic(), event["data"]["seat"]))
            self.changed.set()

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task
        await self.client.close()

    @property
    def state(self) -> dict[str, Any]:
        assert self.client.last is not None
        return self.client.last

    async def wait(self, predicate: Any, timeout: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            if self.client.last is not None and predicate(self.client.last):
                return self.client.last
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"observer: condition not met; last state {self.client.last}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 1))


async def click_enabled(page: Page, selector: str, touch: bool = False) -> bool:
    """Click (a phone: tap) the first enabled element matching ``selector``; False if there is none."""
    locator = page.locator(f"{selector}:not([disabled]):not([aria-disabled=true])")
    if await locator.count() == 0:
        return False
    await (locator.first.tap() if touch else locator.first.click())
    return True


async def act(player: Player, view: dict[str, Any], plan: str) -> str:
    """Make the planned move for this deal kind by clicking in the player's page; returns what it did.

    Plans: ``game`` (first bidder 6♠, the first defender whists, the other passes, open play), ``misere``
    (first bidder misère, played with the keyboard), ``allpass`` (all pass), ``dealer_whist`` (4 seats:
    6♠, both defenders pass, the dealer looks at a hand and whists), ``invite`` (4 seats: the first
    bidder invites the dealer to misère, the dealer accepts).
    """
    page = player.page
    touch = player.touch
    deal = view["deal"]
    phase = view["phase"]
    nobody_bid = all(bid is None for _, bid in deal["auction"])
    if phase == "bidding":
        if plan == "invite" and nobody_bid and await click_enabled(page, '[data-action="invite"]', touch):
            return "invite"
        wanted = {"game": "6s", "dealer_whist": "6s", "misere": "misere"}.get(plan)
        if wanted and nobody_bid and await click_enabled(page, f'[data-bid="{wanted}"]', touch):
            return f"bid {wanted}"
        assert await click_enabled(page, '[data-bid="pass"]', touch), "pass must always be enabled in bidding"
        return "pass"
    if phase == "dealer_invitation":
        answer = "accept" if plan == "invite" else "decline"
        assert await click_enabled(page, f'[data-action="{answer}"]', touch)
        return answer
    if phase == "discard":
        hand = page.locator(f'[data-hand-seat="{player.seat}"] button[data-card]:not([aria-disabled=true])')
        assert await hand.count() == 12
        for card in (hand.nth(0), hand.nth(1)):
            await (card.tap() if touch else card.click())
        assert await click_enabled(page, '[data-action="discard"]', touch)
        return "discard"
    if phase == "contract":
        assert await click_enabled(page, "[data-contract]", touch)
        return "contract"
    if phase == "whisting":
        whisted = any(call == "whist" for _, call in deal["calls"])
        dealer = view["seats"] == 4 and view["dealer"] == player.seat
        if plan == "dealer_whist" and dealer and await click_enabled(page, '[data-action="look"]', touch):
            return "look"  # §4.8: the dealer may look at one defender's hand before answering
        want = ("whist" if dealer else "pass") if plan == "dealer_whist" else ("pass" if whisted else "whist")
        if await click_enabled(page, f'[data-call="{want}"]', touch):
            return want
        assert await click_enabled(page, "[data-call]", touch)
        return "whist call"
    if phase == "play_mode":
        assert await click_enabled(page, '[data-play="open"]', touch)
        return "open"
    if phase == "play":
        cards = page.locator("[data-hand-seat] button[data-card]:not([aria-disabled=true])")
        try:
            # The cards enable once the page may send: its socket online and its last command acknowledged
            # (on a loaded CI machine that can come a moment after the turn is shown).
            await cards.first.wait_for(timeout=10_000)
        except PlaywrightTimeout:
            link = await page.get_attribute("[data-table]", "data-connection")
            raise AssertionError(f"no playable card (the page's connection: {link})") from None
        if touch:  # the first tap lifts the card, the second plays it
            card = cards.first
            await card.tap()
            await page.wait_for_selector("[data-hand-seat] button[data-card][aria-pressed=true]")
            await page.locator("[data-hand-seat] button[data-card][aria-pressed=true]").tap()
            return "card (two taps)"
        if plan == "misere":  # the keyboard: arrows move between the playable cards, Enter plays
            await cards.first.focus()
            await page.keyboard.press("ArrowRight")
            await page.keyboard.press("ArrowLeft")
            await page.keyboard.press("Enter")
            return "card (keyboard)"
        await cards.first.click()
        return "card"
    raise AssertionError(f"no plan for phase {phase}")


async def play_deal(
    players: list[Player],
    observer: Observer,
    plan: str,
    shots: Path | None = None,
    max_steps: int = 120,
    *,
    each_step: Callable[[Player, dict[str, Any]], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    """Play one deal to its end by clicking; returns the deal's ``deal_over`` event (result, record).
    ``each_step`` is awaited with the acting player and the view before each move."""
    ends = len(observer.deal_overs)
    shot_phases: set[str] = set()
    for _ in range(max_steps):
        if len(observer.deal_overs) > ends:
            return observer.deal_overs[ends]
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
        if shots is not None and view["phase"] not in shot_phases:
            shot_phases.add(view["phase"])
            name = f"deal{view['deal_number']}-{plan}-{view['phase']}-seat{seat}.png"
            await player.page.screenshot(path=str(shots / name))
        await player.page.wait_for_selector(f'[data-seat="{seat}"][data-turn="true"]')
        if each_step is not None:
            await each_step(player, view)
        await act(player, view, plan)
        await observer.wait(lambda s, v=state["v"]: s["v"] > v)
    raise AssertionError(f"the deal did not end in {max_steps} steps")


async def assert_sheets_match(players: list[Player], sheet: dict[str, Any], timeout: float = 10) -> None:
    """Every page's `[data-sheet]` shows the server's pools, mountains and whists."""
    expected = {
        "pools": sheet["pools"],
        "mountains": sheet["mountains"],
        "whists": sheet["whists"],
    }
    script = """exp => {
        const n = exp.pools.length;
        for (let i = 0; i < n; i++) {
            const g = document.querySelector(`[data-sheet] [data-sheet-seat="${i}"]`);
            if (!g) return false;
            if (Number(g.dataset.pool) !== exp.pools[i]) return false;
            if (Number(g.dataset.mountain) !== exp.mountains[i]) return false;
            for (let j = 0; j < n; j++) {
                const on = Number(g.getAttribute(`data-whists-on-${j}`));
                if (j !== i && on !== exp.whists[i][j]) return false;
            }
        }
        return true;
    }"""
    for player in players:
        await player.page.wait_for_function(script, arg=expected, timeout=timeout * 1000)
