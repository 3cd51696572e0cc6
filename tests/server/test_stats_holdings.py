"""Statistics by seat holding (RULES.md §7.7, §9.7), read over REST from rows written straight into the
database, so every case is exact: a seat that changed hands counts for each holder only the deals he
played and the analyses of those deals; the settled index goes to the seat's holder at the end, at a
tournament's table to the player the draw seated there; a seat of a game begun before holdings were
recorded counts for its holder at the end from the first deal. The pages that name a past deal's players
(the game's analysis, the broadcast's last deal, the export) name that deal's own."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import insert

from app.db.engine import make_engine
from app.db.models import (
    DealAnalysis,
    DealRecord,
    GameTable,
    SeatHolder,
    TableSeat,
    TournamentRound,
    TournamentTable,
)
from tests.server.conftest import OPERATOR, ServerProcess, login, new_player

GAME_6S_BY_1 = {"type": "game", "declarer": 1, "contract": "6s", "tricks": {"0": 2, "1": 6, "2": 2},
                "calls": [[0, "whist"], [2, "pass"]]}  # fmt: skip
MISERE_BY_1 = {"type": "misere", "declarer": 1, "tricks": {"0": 5, "1": 1, "2": 4}}
GAME_7H_BY_1 = {"type": "game", "declarer": 1, "contract": "7h", "tricks": {"0": 2, "1": 7, "2": 1},
                "calls": [[0, "whist"], [2, "whist"]]}  # fmt: skip
ALLPASS = {"type": "allpass", "tricks": {"0": 3, "1": 4, "2": 3}}


async def _write(url: str, rows: list[tuple[Any, list[dict[str, Any]]]]) -> None:
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            for model, values in rows:
                if values:
                    await conn.execute(insert(model.__table__), values)
    finally:
        await engine.dispose()


async def test_each_holder_counts_his_own_deals_and_the_index_goes_to_the_seats_owner(
    sqlite_server: ServerProcess,
) -> None:
    server = sqlite_server
    operator = await login(server, OPERATOR)
    people = [await new_player(server, "h") for _ in range(5)]
    try:
        me = [await api.call("GET", "/api/auth/me") for api in people]
        names = [m["name"] for m in me]
        ids = {m["name"]: m["id"] for m in me}
        a, b, c, d, e = names
        room = await operator.create_room("holdings", {})
        body = {"room_id": room["id"], "name": "Cup", "rounds": 1, "round_minutes": 60}
        tid = (await operator.call("POST", "/api/tournaments", body))["id"]
        now = time.time()

        def table(table_id: int, exact: list[str]) -> dict[str, Any]:
            return {"id": table_id, "room_id": room["id"], "seats": 3, "conventions": {},
                    "status": "finished", "created_at": now, "started_at": now,
                    "finished_at": now + table_id, "settlement": {"exact": exact}}  # fmt: skip

        def holding(table_id: int, seat: int, name: str, first: int, last: int | None) -> dict[str, Any]:
            return {"table_id": table_id, "seat": seat, "user_id": ids[name], "first_deal": first,
                    "last_deal": last}  # fmt: skip

        def deal(deal_id: int, table_id: int, number: int, result: dict[str, Any]) -> dict[str, Any]:
            return {"id": deal_id, "table_id": table_id, "deal_number": number, "result": result,
                    "record": {}, "at": now}  # fmt: skip

        casual, cup, live = 9001, 9002, 9003
        # live: still played; seat 1 went from b to d after deal 1 (deal 2 is under way).
        playing = {**table(live, []), "status": "playing", "finished_at": None, "settlement": None}
        await _write(server.database_url, [
            (GameTable, [table(casual, ["10", "-4", "-6"]), table(cup, ["1", "2", "-3"]), playing]),
            # casual: seat 1 went from b to d after deal 2; seat 2 (c) has no holding, as in a game begun
            # before holdings were recorded.
            (TableSeat, [{"table_id": casual, "seat": 0, "user_id": ids[a]},
                         {"table_id": casual, "seat": 1, "user_id": ids[d]},
                         {"table_id": casual, "seat": 2, "user_id": ids[c]},
                         {"table_id": cup, "seat": 0, "user_id": ids[a]},
                         {"table_id": cup, "seat": 1, "user_id": ids[e]},
                         {"table_id": cup, "seat": 2, "user_id": ids[c]},
                         {"table_id": live, "seat": 0, "user_id": ids[a]},
                         {"table_id": live, "seat": 1, "user_id": ids[d]},
                         {"table_id": live, "seat": 2, "user_id": ids[c]}]),
            (SeatHolder, [holding(casual, 0, a, 1, None), holding(casual, 1, b, 1, 2),
                          holding(casual, 1, d, 3, None),
                          holding(cup, 0, a, 1, None), holding(cup, 1, b, 1, 1), holding(cup, 1, e, 2, None),
                          holding(cup, 2, c, 1, None),
                          holding(live, 0, a, 1, None), holding(live, 1, b, 1, 1),
                          holding(live, 1, d, 2, None), holding(live, 2, c, 1, None)]),
            (DealRecord, [deal(90011, casual, 1, GAME_6S_BY_1), deal(90012, casual, 2, MISERE_BY_1),
                          deal(90013, casual, 3, GAME_7H_BY_1), deal(90014, casual, 4, ALLPASS),
                          deal(90021, cup, 1, ALLPASS), deal(90022, cup, 2, ALLPASS),
                          deal(90031, live, 1, ALLPASS)]),
            # Deal 1's analysis: one card of seat 1 (b's) cost a trick; deal 3's: one of seat 1 (d's) two.
            (DealAnalysis, [
                {"deal_id": 90011, "seats": [1, 2, 0], "node_budget": 1, "solver": "t", "at": now,
                 "analysis": {"start": 6, "taken": 6,
                              "cards": [{"seat": 0, "loss": 1}, {"seat": 1, "loss": 0}]}},
                {"deal_id": 90013, "seats": [1, 2, 0], "node_budget": 1, "solver": "t", "at": now,
                 "analysis": {"start": 7, "taken": 7,
                              "cards": [{"seat": 0, "loss": 2}, {"seat": 2, "loss": 1}]}},
            ]),
            (TournamentRound, [{"id": 9001, "tournament_id": tid, "number": 1, "seed": 1, "draw": {},
                                "status": "finished"}]),
            (TournamentTable, [{"round_id": 9001, "number": 1, "table_id": cup, "players": [a, b, c]}]),
        ])  # fmt: skip

        stats = {n: await operator.call("GET", f"/api/stats/players/{n}") for n in names}
        declared = {
            n: {x["level"]: (x["declared"], x["made"]) for x in s["contracts"]} for n, s in stats.items()
        }
        # b held seat 1 of the casual game for deals 1-2 and of the cup's table for deal 1.
        assert stats[b]["games_read"] == 2 and stats[b]["deals"] == 3
        assert declared[b][6] == (1, 1) and declared[b][7] == (0, 0)
        assert stats[b]["misere"]["played"] == 1 and stats[b]["misere"]["caught"] == 1
        assert stats[b]["allpass"]["deals"] == 1
        assert (stats[b]["analysis"]["deals"], stats[b]["analysis"]["tricks_lost"]) == (1, 1)
        # d held it for deals 3-4 of the casual game: the 7h, whisted by both, and the all-pass.
        assert stats[d]["games_read"] == 1 and stats[d]["deals"] == 2
        assert declared[d][7] == (1, 1) and declared[d][6] == (0, 0) and stats[d]["misere"]["played"] == 0
        assert (stats[d]["analysis"]["deals"], stats[d]["analysis"]["tricks_lost"]) == (1, 2)
        # c (no holding at the casual game: its seat row from deal 1) whisted deal 3, where a lost a trick.
        assert stats[c]["deals"] == 6 and stats[c]["whists"]["called"] == 1
        assert (stats[c]["analysis"]["deals"], stats[c]["analysis"]["tricks_lost"]) == (2, 0)
        assert (stats[a]["analysis"]["deals"], stats[a]["analysis"]["tricks_lost"]) == (2, 1)
        # The index: the casual seat's to its holder at the end (d), the cup seat's to the player drawn (b).
        per_pulya = {n: {p["table"]: p["index"] for p in s["index"]["per_pulya"]} for n, s in stats.items()}
        assert per_pulya[b] == {cup: 2.0} and stats[b]["pulyas"] == 1
        assert per_pulya[d] == {casual: -4.0}
        assert per_pulya[e] == {} and stats[e]["deals"] == 1 and stats[e]["games_read"] == 1
        assert per_pulya[a] == {casual: 10.0, cup: 1.0} and per_pulya[c] == {casual: -6.0, cup: -3.0}

        club = await operator.call("GET", f"/api/stats/rooms/{room['id']}")
        assert sorted(club["players"]) == sorted(names)
        assert club["players"][b]["deals"] == 3 and club["players"][d]["deals"] == 2

        # §7.7: a past deal is named with its own players; "players" alone are the holders at the end.
        final = {"0": a, "1": d, "2": c}
        game = await operator.call("GET", f"/api/analysis/tables/{casual}")
        named = {x["deal"]: {s: p["name"] for s, p in x["players"].items()} for x in game["deals"]}
        assert named == {1: {**final, "1": b}, 2: {**final, "1": b}, 3: final, 4: final}
        assert {s: p["name"] for s, p in game["players"].items()} == final
        assert game["deals"][0]["analysis"]["mistakes"]["1"] == {"mistakes": 1, "tricks_lost": 1}
        exported = await operator.call("GET", f"/api/export/tables/{casual}")
        assert {(h["seat"], h["name"], h["first_deal"], h["last_deal"]) for h in exported["holders"]} == {
            (0, a, 1, None),
            (1, b, 1, 2),
            (1, d, 3, None),
            (2, c, 1, None),
        }
        assert {str(p["seat"]): p["name"] for p in exported["players"]} == final
        await operator.call("PUT", f"/api/ratings/rooms/{room['id']}/settings", {"broadcast": True})
        shown = await operator.call("GET", f"/api/broadcast/tables/{live}")
        assert shown["previous"]["deal"] == 1 and shown["live_deal"] == 2
        assert shown["previous"]["players"] == {**final, "1": b} and shown["players"] == final
    finally:
        for api in (operator, *people):
            await api.close()
