"""The administrators' archive (issue 11 §2): filters and paging, a deal with everything to judge it, the
solver's suggestion, an award previewed then given with a reason, a revision recorded as a new entry and
followed by the sheet; a player and an operator are refused; a bad award is a 422 that changes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from app.bots.client import ApiError, play_table
from tests.server.conftest import ADMIN, ServerProcess, login
from tests.server.helpers import Table, open_table


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    yield shared_server


def scripted(shared: dict[str, int]) -> Any:
    """One seat bids, the others pass; the contract is the lowest, both defenders whist; after a few cards
    the bots stop acting, so the operator's stop interrupts a deal in card play."""

    def choose(legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        kinds = {a["type"] for a in legal}
        if shared["cards"] >= 4:
            return None
        if "bid" in kinds and not shared["bid"]:
            shared["bid"] = 1
            return next(a for a in legal if a["type"] == "bid")
        if "pass" in kinds:
            return next(a for a in legal if a["type"] == "pass")
        if "whist" in kinds:
            return next((a for a in legal if a.get("call") == "whist"), legal[0])
        if "play" in kinds:
            shared["cards"] += 1
        return legal[0]

    return choose


async def interrupted_in_play(server: ServerProcess) -> tuple[Table, list[asyncio.Task[Any]]]:
    table = await open_table(server, 3, {"pool_size": 10})
    shared = {"bid": 0, "cards": 0}
    tasks = [asyncio.create_task(play_table(c, scripted(shared), idle_timeout=60)) for c in table.clients]
    while shared["cards"] < 4:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)  # the last card is acknowledged
    await table.operator.call("POST", f"/api/tables/{table.id}/stop", {"reason": "venue closes"})
    await asyncio.wait_for(asyncio.gather(*tasks), 30)
    return table, tasks


async def stopped_at_once(server: ServerProcess) -> Table:
    table = await open_table(server, 3, {"pool_size": 10})
    while table.clients[0].last is None or table.clients[0].last["status"] != "playing":
        await table.clients[0].receive(timeout=10)
    await table.operator.call("POST", f"/api/tables/{table.id}/stop", {"reason": "power cut"})
    return table


async def test_the_archive_from_filter_to_revision(server: ServerProcess) -> None:
    in_play, _ = await interrupted_in_play(server)
    early = await stopped_at_once(server)
    admin = await login(server, ADMIN)
    try:
        # Refused to a player and to an operator (403).
        for who in (in_play.players[0], in_play.operator):
            for method, path, body in (
                ("GET", "/api/admin/archive", None),
                ("GET", "/api/admin/archive/1", None),
                ("GET", "/api/admin/archive/1/suggestion", None),
                ("POST", "/api/admin/archive/1/preview", {"tricks": None, "reason": "x"}),
                ("POST", "/api/admin/interrupted/1/award", {"tricks": None, "reason": "x"}),
            ):
                with pytest.raises(ApiError) as refused:
                    await who.call(method, path, body)
                assert refused.value.status == 403

        # Filters and paging.
        mine = await admin.call("GET", f"/api/admin/archive?table={in_play.id}")
        assert mine["total"] == 1 and mine["items"][0]["status"] == "awaiting"
        deal_id = mine["items"][0]["id"]
        me = (await in_play.players[1].call("GET", "/api/auth/me"))["name"]
        by_player = await admin.call("GET", f"/api/admin/archive?player={me}")
        assert [i["table"] for i in by_player["items"]] == [in_play.id]
        assert me in by_player["items"][0]["players"]
        page = await admin.call("GET", "/api/admin/archive?status=awaiting&limit=1")
        assert page["total"] >= 2 and len(page["items"]) == 1
        second = await admin.call("GET", "/api/admin/archive?status=awaiting&limit=1&offset=1")
        assert second["items"][0]["id"] != page["items"][0]["id"]
        room = mine["items"][0]["room"]
        assert deal_id in [
            i["id"] for i in (await admin.call("GET", f"/api/admin/archive?room={room}"))["items"]
        ]
        future = await admin.call("GET", "/api/admin/archive?since=9999999999")
        assert future["total"] == 0
        with pytest.raises(ApiError) as bad_filter:
            await admin.call("GET", "/api/admin/archive?status=lost")
        assert bad_filter.value.status == 422

        # The deal page's data: the record, the clocks, the players.
        deal = await admin.call("GET", f"/api/admin/archive/{deal_id}")
        record = deal["record"]
        declarer = record["declarer"]
        assert declarer is not None and record["contract"] and len(record["discard"]) == 2
        assert sum(len(t) for t in record["tricks"]) + len(record["trick"]) == 4
        assert (
            deal["clock"] is not None
            and deal["players"]
            == (await admin.call("GET", f"/api/admin/archive?table={in_play.id}"))["items"][0]["players"]
        )
        assert deal["awards"] == [] and deal["status"] == "awaiting"

        # The solver's suggestion: the double-dummy result of the position, labelled as a suggestion.
        hint = await admin.call("GET", f"/api/admin/archive/{deal_id}/suggestion")
        assert hint["label"] == "suggestion" and hint["kind"] == "position" and hint["complete"]
        made = hint["declarer_tricks"]
        assert record["taken"][str(declarer)] <= made <= 10
        defenders = [s for s in record["active"] if s != declarer]
        tricks = {str(declarer): made, str(defenders[0]): 10 - made, str(defenders[1]): 0}

        # Bad awards: a 422 naming the field, nothing changed.
        bad_awards: list[tuple[dict[str, Any], str]] = [
            (
                {"tricks": {str(declarer): 11, str(defenders[0]): 0, str(defenders[1]): 0}, "reason": "r"},
                "tricks",
            ),
            ({"tricks": tricks, "contract": "11x", "reason": "r"}, "contract"),
            ({"tricks": tricks, "reason": "r", "revise": True}, "revise"),
            ({"tricks": tricks}, "reason"),
        ]
        for body, field in bad_awards:
            with pytest.raises(ApiError) as bad:
                await admin.call("POST", f"/api/admin/interrupted/{deal_id}/award", body)
            assert bad.value.status == 422
            assert field in str(bad.value.body)
        with pytest.raises(ApiError) as unknown:
            await admin.call("POST", "/api/admin/interrupted/999999/award", {"tricks": None, "reason": "r"})
        assert unknown.value.status == 422 and "deal" in str(unknown.value.body)
        unchanged = await admin.call("GET", f"/api/admin/archive/{deal_id}")
        assert unchanged["status"] == "awaiting" and unchanged["table_status"] == "awaiting_adjudication"
        assert unchanged["sheet"] == deal["sheet"] and unchanged["awards"] == []

        # Preview, then the award: the same settlement; the preview stored nothing.
        award = {"tricks": tricks, "reason": "the solver's line"}
        preview = await admin.call("POST", f"/api/admin/archive/{deal_id}/preview", award)
        assert preview["preview"] and preview["status"] == "finished"
        assert (await admin.call("GET", f"/api/admin/archive/{deal_id}"))["status"] == "awaiting"
        given = await admin.call("POST", f"/api/admin/interrupted/{deal_id}/award", award)
        assert given["revision"] == 1 and given["settlement"] == preview["settlement"]
        with pytest.raises(ApiError) as again:
            await admin.call("POST", f"/api/admin/interrupted/{deal_id}/award", award)
        assert again.value.status == 422 and "revise" in str(again.value.body)

        # A revision: a new recorded entry; the sheet and settlement follow it.
        # One trick the other way (the solver may have said the declarer makes none: then one more).
        other = made - 1 if made > 0 else made + 1
        worse = {str(declarer): other, str(defenders[0]): 10 - other, str(defenders[1]): 0}
        revised_body = {"tricks": worse, "reason": "one trick was conceded", "revise": True}
        revised_preview = await admin.call("POST", f"/api/admin/archive/{deal_id}/preview", revised_body)
        revised = await admin.call("POST", f"/api/admin/interrupted/{deal_id}/award", revised_body)
        assert revised["revision"] == 2 and revised["settlement"] == revised_preview["settlement"]
        assert revised["settlement"] != given["settlement"]
        after = await admin.call("GET", f"/api/admin/archive/{deal_id}")
        assert [(a["revision"], a["admin"], a["reason"]) for a in after["awards"]] == [
            (1, ADMIN, "the solver's line"),
            (2, ADMIN, "one trick was conceded"),
        ]
        assert after["settlement"] == revised["settlement"] and after["status"] == "awarded"
        summaries = [line["summary"] for line in after["sheet"]["history"]]
        assert any("awarded" in s for s in summaries) and any("award revised" in s for s in summaries)
        # The players' game page reads the final result.
        history = await in_play.players[0].call("GET", f"/api/tables/{in_play.id}/history")
        assert history["status"] == "finished" and history["settlement"] == revised["settlement"]

        # A deal stopped before the auction ended has no declarer: only void, and the suggestion says so.
        early_id = (await admin.call("GET", f"/api/admin/archive?table={early.id}"))["items"][0]["id"]
        assert (await admin.call("GET", f"/api/admin/archive/{early_id}/suggestion"))["kind"] == "none"
    finally:
        await admin.close()
        await in_play.close()
        await early.close()
