"""The site with two server workers (``serve --workers 2``): pages served by the public port open each
table's socket on the worker that runs it (the ticket names it; the page's content security policy and
the origin check let it), seat from the lobby through either worker, and play."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.async_api import Browser, WebSocket

from tests.server.conftest import Workers, run_workers
from tests.web.site import Observer, open_player, open_table, sit_from_lobby


@pytest.fixture
def sqlite_workers(tmp_path: Path) -> Iterator[Workers]:
    yield from run_workers(f"sqlite+aiosqlite:///{tmp_path / 'preferans.db'}", tmp_path)


def _recorder(urls: list[str]) -> Callable[[WebSocket], None]:
    """Notes the URL of every socket a page opens."""
    return lambda ws: urls.append(ws.url)


async def test_pages_reach_each_tables_worker_and_play(
    sqlite_workers: Workers, browser: Browser, artifacts: Path
) -> None:
    server = sqlite_workers.server
    overrides = {"pool_size": 10, "deal_time": 120, "reserve_time": 600}
    opened = [await open_table(server, 3, overrides) for _ in range(2)]
    players = [await open_player(browser, server) for _ in range(3)]
    sockets: list[list[str]] = [[] for _ in players]
    for player, urls in zip(players, sockets, strict=True):
        player.page.on("websocket", _recorder(urls))
    observers = []
    try:
        ports = set()
        for table_id, operator in opened:
            observer = Observer(operator, table_id)
            await observer.start()
            observers.append(observer)
            ports.add(observer.client.ws.remote_address[1])
            for seat, player in enumerate(players):
                await sit_from_lobby(player, table_id, seat)
            await observer.wait(lambda s: s["status"] == "playing")
            # Every page's socket for this table went to the worker that runs it.
            owner_port = observer.client.ws.remote_address[1]
            for urls in sockets:
                mine = [u for u in urls if f"/ws/tables/{table_id}?" in u]
                assert mine and {urlparse(u).port for u in mine} == {owner_port}, urls
            # The seat to act bids from its page; every page shows the new version.
            state: dict[str, Any] = observer.state
            seat = state["view"]["to_act"]
            page = players[seat].page
            await page.wait_for_selector(f'[data-seat="{seat}"][data-turn="true"]')
            await page.click('[data-bid="6s"]:not([aria-disabled=true])')
            after = await observer.wait(lambda s, v=state["v"]: s["v"] > v)
            for player in players:
                await player.wait_version(after["v"])
            await page.screenshot(path=str(artifacts / f"table-{table_id}.png"))
        # The two tables run on the two workers (new tables go to the one with fewer).
        assert ports == set(sqlite_workers.ports)
        for player in players:
            assert not player.errors, player.errors
    finally:
        for observer in observers:
            await observer.stop()
        for _, operator in opened:
            await operator.close()
        for player in players:
            await player.context.close()
