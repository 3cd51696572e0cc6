"""Broadcast spectating, export and import in the browser (issue 21 §4): a spectator following a table
one deal behind never holds a card of the deal in play — not in any answer the page received, not in its
DOM — and the printed record and the imported analysis show what the server holds."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Response

from tests.server.conftest import OPERATOR, ServerProcess, login, new_player
from tests.web.site import Observer, open_player

CARD = re.compile(r'"[scdh][789TJQKA]"')


async def test_broadcast_spectator_never_sees_the_deal_in_play(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    server = sqlite_server
    operator = await login(server, OPERATOR)
    room = await operator.create_room("broadcast room", {"pool_size": 8, "deal_time": 60, "reserve_time": 60})
    await operator.call("PUT", f"/api/ratings/rooms/{room['id']}/settings", {"broadcast": True})
    table = await operator.open_table(room["id"], 3)
    people = [await new_player(server) for _ in range(3)]
    for api in people:
        await api.sit(table["id"])
    seats = [Observer(api, table["id"]) for api in people]  # each player's own socket, kept up to date
    for seat in seats:
        await seat.start()

    spectator = await open_player(browser, server)
    page = spectator.page
    answers: list[dict[str, Any]] = []

    async def on_response(response: Response) -> None:
        if "/api/broadcast/" in response.url and response.ok:
            answers.append(await response.json())

    page.on("response", on_response)
    await page.click(f'[data-action=broadcast][data-table="{table["id"]}"]')
    await page.wait_for_selector(f'[data-broadcast="{table["id"]}"] [data-live-deal]')

    async def read_dom() -> tuple[int, int | None, list[str], list[str]]:
        live, shown, inside, outside = await page.evaluate(
            """() => {
                const live = document.querySelector('[data-live-deal]');
                const deal = document.querySelector('[data-broadcast-deal]');
                const all = [...document.querySelectorAll('[data-card]')];
                return [Number(live?.dataset.liveDeal ?? 0), deal ? Number(deal.dataset.broadcastDeal) : null,
                        all.filter(e => deal && deal.contains(e)).map(e => e.dataset.card),
                        all.filter(e => !(deal && deal.contains(e))).map(e => e.dataset.card)];
            }"""
        )
        return live, shown, inside, outside

    # Random play, move by move; when the first deal is over the players wait until the spectator's page
    # shows it, so the page is seen following a finished deal while the next one is in play.
    rng = random.Random(11)
    dom: list[tuple[int, int | None, list[str], list[str]]] = []
    acted: dict[int, int] = {}
    waited = False
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 300
    while seats[0].client.last is None or seats[0].state["status"] == "playing":
        assert loop.time() < deadline, "the game did not end"
        dom.append(await read_dom())
        state = seats[0].client.last
        deal = (state or {}).get("view", {}) or {}
        if not waited and deal.get("deal_number", 1) >= 2:
            if not (dom[-1][0] >= 2 and dom[-1][1] == 1):
                await asyncio.sleep(0.2)
                continue
            waited = True
        for i, seat in enumerate(seats):
            last = seat.client.last
            if last and last["legal"] and acted.get(i) != seat.client.version:
                acted[i] = seat.client.version or 0
                await seat.client.act(rng.choice(last["legal"]))
        await asyncio.sleep(0.05)
    for seat in seats:
        await seat.stop()

    history = await operator.call("GET", f"/api/tables/{table['id']}/history")
    records = {d["deal"]: d["record"]["record"] for d in history["deals"]}
    # Every answer the page received: the deal in play is only a number; what it shows is an earlier deal.
    live_answers = [a for a in answers if a["live_deal"] is not None]
    assert live_answers
    for answer in live_answers:
        previous = answer.pop("previous")
        assert not CARD.search(json.dumps(answer))
        if previous is not None:
            assert previous["deal"] < answer["live_deal"] and previous["record"] == records[previous["deal"]]
    # Every DOM read while a deal was in play: cards only inside the earlier deal's replay.
    followed = set()
    for live, shown, inside, outside in dom:
        assert outside == [], f"cards outside the finished deal's replay: {outside}"
        if live and shown is not None:
            assert shown < live
            dealt = {c for hand in records[shown]["hands"].values() for c in hand}
            assert set(inside) <= dealt | set(records[shown]["talon"])
            followed.add(shown)
        elif live:
            assert inside == []
    assert followed, "the spectator never saw a finished deal while the game went on"
    await page.screenshot(path=str(artifacts / "broadcast.png"), full_page=True)

    # Export: the printed record holds every deal; import: the analysis the server gives for each.
    await page.goto(f"{server.url}/#/export/{table['id']}")
    await page.wait_for_selector("[data-printed-deal]")
    assert await page.locator("[data-printed-deal]").count() == len(records)
    exported = await operator.call("GET", f"/api/export/tables/{table['id']}")
    await page.goto(f"{server.url}/#/import")
    await page.fill("[data-import-text]", json.dumps(exported))
    await page.click("[data-action=analyse-import]")
    await page.wait_for_selector("[data-imported-deal]")
    assert await page.locator("[data-imported-deal]").count() == len(records)
    for deal in exported["deals"]:
        served = await operator.call("GET", f"/api/analysis/tables/{table['id']}/deals/{deal['deal']}")
        par = await page.get_attribute(f'[data-imported-deal="{deal["deal"]}"]', "data-par")
        assert par == ("" if served["analysis"] is None else str(served["analysis"]["start"]))
    assert spectator.errors == []
    for api in [operator, *people]:
        await api.close()
    await spectator.context.close()
