"""Broadcast and export (issue 21 §4).

Broadcast: polled all through a live game, every answer shows of the deal in play only its number; every
card in it belongs to a finished deal's record, byte for byte the record the table's history gives once
the game is over, and that deal is always an earlier one than the deal in play. Export: the game's JSON
record holds every finished deal; imported back, its analysis equals the one the site serves.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from app.bots.client import ApiError
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player
from tests.server.helpers import sit_and_play

CARD = re.compile(r'"[scdh][789TJQKA]"')


async def test_broadcast_shows_finished_deals_only_and_export_round_trips(
    shared_server: ServerProcess,
) -> None:
    operator = await login(shared_server, OPERATOR)
    room = await operator.create_room("broadcast", {"pool_size": 8, "deal_time": 60, "reserve_time": 60})
    quiet = await operator.create_room("no broadcast", {"pool_size": 3})
    await operator.call("PUT", f"/api/ratings/rooms/{room['id']}/settings", {"broadcast": True})
    table = await operator.open_table(room["id"], 3)
    other = await operator.open_table(quiet["id"], 3)
    watcher = await new_player(shared_server, "w")
    with pytest.raises(ApiError) as caught:
        await watcher.call("GET", f"/api/broadcast/tables/{other['id']}")
    assert caught.value.status == 403

    people = [await new_player(shared_server) for _ in range(3)]
    done = asyncio.Event()
    seen: list[dict[str, Any]] = []

    async def watch() -> None:
        while not done.is_set():
            seen.append(await watcher.call("GET", f"/api/broadcast/tables/{table['id']}"))
            await asyncio.sleep(0.05)

    await asyncio.gather(sit_and_play(people, table["id"], 4, done), watch())
    history = await operator.call("GET", f"/api/tables/{table['id']}/history")
    records = {d["deal"]: d["record"]["record"] for d in history["deals"]}
    live_views = [v for v in seen if v["live_deal"] is not None]
    assert live_views, "the game was never seen live"
    shown_deals = set()
    for view in live_views:
        previous = view.pop("previous")
        assert not CARD.search(json.dumps(view)), view  # nothing of the deal in play but its number
        if previous is not None:
            assert previous["deal"] < view["live_deal"]
            assert previous["record"] == records[previous["deal"]]
            shown_deals.add(previous["deal"])
    assert shown_deals, f"no finished deal was broadcast while the game went on ({len(records)} deals)"

    exported = await watcher.call("GET", f"/api/export/tables/{table['id']}")
    assert exported["schema"] == "preferans-game/1"
    assert [p["seat"] for p in exported["players"]] == [0, 1, 2]
    assert [(d["deal"], d["record"]) for d in exported["deals"]] == sorted(records.items())
    assert exported["settlement"] == history["settlement"]
    imported = await watcher.call("POST", "/api/analysis/record", {"deals": exported["deals"]})
    assert [d["deal"] for d in imported["deals"]] == [d["deal"] for d in exported["deals"]]
    for deal in imported["deals"]:
        served = await watcher.call("GET", f"/api/analysis/tables/{table['id']}/deals/{deal['deal']}")
        if deal["analysis"] is None:
            assert served["analysis"] is None
        else:
            assert deal["analysis"]["cards"] == served["analysis"]["cards"]
    broken = json.loads(json.dumps(exported["deals"][0]))
    if broken["record"]["tricks"]:
        broken["record"]["tricks"][0][1][1] = broken["record"]["tricks"][0][0][1]  # a card played twice
        with pytest.raises(ApiError) as caught:
            await watcher.call("POST", "/api/analysis/record", {"deals": [broken]})
        assert caught.value.status == 422
    for api in [operator, watcher, *people]:
        await api.close()
