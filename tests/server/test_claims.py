"""Claims over real websockets against a running server (RULES.md §4.10, §12).

Three bots play the first deal by a script: first hand bids 6♠, the first defender whists, the other
passes, closed play; at his first turn to play after the lone whister's choice the declarer claims all the
remaining tricks. The whister accepts, or rejects: then the server has the solver judge the claim from the
true position (off the event loop), and every seat and the spectator get the same verdict.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from app.autoplay.claims import judge_claim
from app.bots.client import Chooser, TableClient, play_table
from app.engine import AnswerClaim, Claim, Phase, action_from_json, apply, new_table
from app.engine.conventions import Conventions
from tests.server.conftest import ADMIN, ServerProcess, login
from tests.server.helpers import Table, open_table


def scripted(client: TableClient, accept: bool, errors: list[dict[str, Any]]) -> Chooser:
    """The first deal's script (module docstring); after a void claim the declarer tries a second one
    once (refused), then plays on."""
    second_tried = False

    def choose(legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        nonlocal second_tried
        view = (client.last or {}).get("view") or {}
        deal = view.get("deal") or {}
        phase = view.get("phase")
        seat = view.get("viewer")

        def first(**match: Any) -> dict[str, Any] | None:
            return next((a for a in legal if all(a.get(k) == v for k, v in match.items())), None)

        if phase == "bidding":
            nobody = all(bid is None for _, bid in deal["auction"])
            return (first(type="bid", bid="6s") if nobody else None) or first(type="pass") or legal[0]
        if phase == "whisting":
            calls = deal["calls"]
            mine = any(s == seat and c == "whist" for s, c in calls)
            anyone = any(c == "whist" for _, c in calls)
            wanted = "whist" if mine or not anyone else "pass"
            return first(type="whist", call=wanted) or legal[0]
        if phase == "play_mode":
            return first(type="play_mode", mode="closed")
        if phase == "claim":
            return first(type="claim_answer", accept=accept)
        if phase == "play" and view.get("claims") and deal.get("claim") is None:
            return {"type": "claim", "tricks": max(view["claims"])}
        claim = deal.get("claim")
        void = claim is not None and claim["verdict"] not in (None, "stands")
        if phase == "play" and void and seat == deal["declarer"] and not second_tried:
            second_tried = True
            return {"type": "claim", "tricks": 1}
        return legal[0]

    def record(message: dict[str, Any]) -> None:
        if message.get("type") == "error":
            errors.append(message)

    choose.record = record  # type: ignore[attr-defined]
    return choose


async def _first_deal(server: ServerProcess, accept: bool) -> tuple[Table, list[dict[str, Any]], list[Any]]:
    """Play the first deal by the script; the spectator's update frames and every seat's errors."""
    table = await open_table(server, 3, {"pool_size": 10, "deal_time": 60, "reserve_time": 60},
                             record=True, spectator=True)  # fmt: skip
    errors: list[list[dict[str, Any]]] = [[] for _ in table.clients]
    games = []
    for seat, client in enumerate(table.clients):
        choose = scripted(client, accept, errors[seat])
        games.append(asyncio.create_task(play_table(client, choose, observe=choose.record)))  # type: ignore[attr-defined]
    spectator = table.spectator
    assert spectator is not None
    try:
        async with asyncio.timeout(240):
            while not any(
                e["kind"] == "deal_over"
                for f in spectator.frames
                if f["type"] == "update"
                for e in f["events"]
            ):
                await spectator.receive()
    finally:
        for game in games:
            game.cancel()
            with contextlib.suppress(BaseException):
                await game
    return table, [f for f in spectator.frames if f["type"] == "update"], errors


def _events(frames: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e["data"] for f in frames for e in f["events"] if e["kind"] == kind]


async def test_a_claim_accepted_over_websockets(sqlite_server: ServerProcess) -> None:
    table, frames, errors = await _first_deal(sqlite_server, accept=True)
    try:
        (claim,) = _events(frames, "claim")
        declarer = claim["seat"]
        assert claim["tricks"] == claim["remaining"] and len(claim["hand"]) == claim["remaining"]
        (answer,) = _events(frames, "claim_answer")
        assert answer["accept"] is True and answer["seat"] != declarer
        assert _events(frames, "claim_verdict") == []
        (over,) = _events(frames, "deal_over")
        tricks = over["result"]["tricks"]
        assert over["record"]["claim"]["answers"] == [[answer["seat"], True]]
        # The claimed tricks are the declarer's; the tricks played before the claim stay where they went.
        assert tricks[str(declarer)] >= claim["remaining"] and sum(tricks.values()) == 10
        for client in table.clients:  # every seat got the claim, the declarer's hand with it
            updates = [f for f in client.frames if f["type"] == "update"]
            assert [e["hand"] for e in _events(updates, "claim")] == [claim["hand"]]
        history = await table.players[0].call("GET", f"/api/tables/{table.id}/history")
        assert history["deals"][0]["record"]["record"]["claim"]["tricks"] == claim["tricks"]
        assert not any(errors)
    finally:
        await table.close()


async def test_a_claim_rejected_is_judged_by_the_solver_from_the_true_position(
    sqlite_server: ServerProcess,
) -> None:
    table, frames, errors = await _first_deal(sqlite_server, accept=False)
    try:
        (verdict,) = _events(frames, "claim_verdict")
        (claim,) = _events(frames, "claim")
        declarer = claim["seat"]
        (answer,) = _events(frames, "claim_answer")
        assert answer["accept"] is False and answer["seat"] != declarer
        admin = await login(sqlite_server, ADMIN)
        log_json = await admin.call("GET", f"/api/admin/tables/{table.id}/log")
        await admin.close()
        log = [action_from_json(row["action"]) for row in log_json["actions"]]
        # The same verdict as the solver gives the position the claim was rejected in (node budgets).
        state = new_table(3, Conventions.model_validate(log_json["conventions"]), log_json["first_dealer"])
        for action in log:
            state, _ = apply(state, action)
            if isinstance(action, AnswerClaim):
                break
        assert state.phase is Phase.CLAIM
        assert judge_claim(state).verdict == verdict["verdict"]
        assert [a.type for a in log].count("claim_verdict") == 1
        (over,) = _events(frames, "deal_over")
        assert over["record"]["claim"]["verdict"] == verdict["verdict"]
        if verdict["verdict"] == "stands":
            assert not any(errors)
        else:  # void: play went on with his hand open; the second claim was refused, typed
            declarer_errors = errors[declarer]
            assert [e["code"] for e in declarer_errors] == ["illegal_action"], declarer_errors
            assert "no second claim" in declarer_errors[0]["message"]
            assert sum(isinstance(a, Claim) for a in log) == 1
            views = [f["view"] for f in frames if f["view"] and f["view"]["phase"] == "play"]
            assert views and all(str(declarer) in v["deal"]["hands"] for v in views if v["deal"]["claim"])
            assert any(v["deal"]["claim"] for v in views)
    finally:
        await table.close()
