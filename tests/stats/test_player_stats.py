"""A player's statistics (issue 21 §3) from hand-made deal results, each figure worked out by hand."""

from __future__ import annotations

from fractions import Fraction

from app.stats import GameFacts, player_stats

# Seat 0 is the player throughout.
DEALS = [
    # 7♠ declared by seat 0, whisted by 1 and 2; seat 0 took 7: made.
    {
        "seats": 3,
        "dealer": 2,
        "type": "game",
        "declarer": 0,
        "contract": "7s",
        "calls": [[1, "whist"], [2, "whist"]],
        "play": "closed",
        "tricks": {"0": 7, "1": 2, "2": 1},
    },
    # 8♥ declared by seat 0 and taken 7: not made.
    {
        "seats": 3,
        "dealer": 0,
        "type": "game",
        "declarer": 0,
        "contract": "8h",
        "calls": [[1, "whist"], [2, "pass"]],
        "play": "closed",
        "tricks": {"0": 7, "1": 3, "2": 0},
    },
    # 6♣ of seat 1, whisted by seat 0 (took 3) and seat 1 went down with 5: a set whist.
    {
        "seats": 3,
        "dealer": 1,
        "type": "game",
        "declarer": 1,
        "contract": "6c",
        "calls": [[2, "pass"], [0, "whist"]],
        "play": "open",
        "tricks": {"0": 3, "1": 5, "2": 2},
    },
    # 6♦ of seat 2 with both defenders passing: not played, made without play; seat 0 did not whist.
    {
        "seats": 3,
        "dealer": 1,
        "type": "game",
        "declarer": 2,
        "contract": "6d",
        "calls": [[0, "pass"], [1, "pass"]],
    },
    # A misère of seat 0, caught with one trick.
    {
        "seats": 3,
        "dealer": 2,
        "type": "misere",
        "declarer": 0,
        "contract": "misere",
        "tricks": {"0": 1, "1": 5, "2": 4},
    },
    # An all-pass: seat 0 took 2.
    {"seats": 3, "dealer": 0, "type": "allpass", "tricks": {"0": 2, "1": 4, "2": 4}, "talon_tricks": 0},
    # Seat 0 ran out of time in this one.
    {
        "seats": 3,
        "dealer": 1,
        "type": "allpass",
        "tricks": {"0": 4, "1": 3, "2": 3},
        "talon_tricks": 0,
        "timed_out": [0],
    },
]

# One analysed deal: solver seats → table seats (1, 2, 0); the player (solver seat 2) lost 1 then 2 tricks.
ANALYSIS = {
    "start": 6,
    "cards": [
        {"seat": 2, "card": "sA", "before": 6, "after": 5, "best": ["sK"], "loss": 1},
        {"seat": 0, "card": "s7", "before": 5, "after": 4, "best": ["s8"], "loss": 1},
        {"seat": 2, "card": "hA", "before": 5, "after": 7, "best": ["h7"], "loss": 2},
        {"seat": 1, "card": "h8", "before": 7, "after": 7, "best": ["h8"], "loss": 0},
    ],
}


def test_every_figure_of_a_players_statistics() -> None:
    games = [
        GameFacts(
            1, 0, 100.0, Fraction(15, 2), DEALS[:4], thinking_ms=4_000, analyses=[(ANALYSIS, [1, 2, 0])]
        ),
        GameFacts(2, 0, 50.0, Fraction(-3), DEALS[4:], thinking_ms=2_000),
        GameFacts(3, 0, None, None, [], thinking_ms=0),  # awaiting an award: no index yet
    ]
    out = player_stats(games).to_json()
    assert out["pulyas"] == 2 and out["deals"] == 7
    contracts = {c["level"]: c for c in out["contracts"]}
    assert (contracts[7]["declared"], contracts[7]["made"], contracts[7]["made_pct"]) == (1, 1, 100.0)
    assert (contracts[8]["declared"], contracts[8]["made"], contracts[8]["made_pct"]) == (1, 0, 0.0)
    assert contracts[6]["declared"] == 0 and contracts[6]["made_pct"] is None  # others' sixes are not his
    assert out["misere"] == {"played": 1, "caught": 1, "caught_pct": 100.0}
    # Whists: deal 3 only (a set, 3 tricks).
    assert out["whists"] == {"called": 1, "contract_set": 1, "tricks_per_whist": 3.0}
    assert out["allpass"] == {"deals": 2, "tricks": 6, "tricks_per_deal": 3.0}
    # Index: 7.5 and −3, ordered by when the games finished (game 2 first).
    assert out["index"]["average"] == 2.25
    assert [p["table"] for p in out["index"]["per_pulya"]] == [2, 1]
    assert out["time"] == {"thinking_s": 6.0, "per_deal_s": round(6 / 7, 1), "timeouts": 1}
    assert out["analysis"] == {"deals": 1, "mistakes": 2, "tricks_lost": 3, "mistakes_per_deal": 2.0}


def test_the_four_seat_dealer_is_not_counted_in_an_analysed_deal() -> None:
    out = player_stats([GameFacts(1, 3, 1.0, Fraction(0), [], analyses=[(ANALYSIS, [1, 2, 0])])]).to_json()
    assert out["analysis"]["deals"] == 0
