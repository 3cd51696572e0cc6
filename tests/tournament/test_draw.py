"""The draw of a round (RULES.md §9.2)."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import combinations

import pytest

from app.tournament.draw import (
    DrawError,
    RoundDraw,
    draw_round,
    greedy_tables,
    meetings,
    repeat_meetings,
    standings_order,
    table_plan,
)


def names(n: int) -> list[str]:
    return [f"p{i:02d}" for i in range(n)]


def fake_standings(players: list[str], round_number: int) -> dict[str, Fraction]:
    rng = random.Random(round_number)
    return {p: Fraction(rng.randint(-300, 300)) for p in players}


def five_rounds(n: int, teams: dict[str, str] | None = None) -> list[RoundDraw]:
    players, history = names(n), list[RoundDraw]()
    for r in range(5):
        history.append(draw_round(players, history, fake_standings(players, r), seed=1000 + r, teams=teams))
    return history


def greedy_repeats(
    draw_players: list[str], history: list[RoundDraw], standings: dict[str, Fraction], seed: int
) -> int:
    """New repeat meetings of the simple greedy seating on the same history (the bound of §9.2's test)."""
    plan = table_plan(len(draw_players))
    order = standings_order(draw_players, standings, random.Random(seed))
    met = meetings(history)
    tables = greedy_tables(list(order), plan.sizes, met)
    return sum(
        frozenset((a, b)) in met for t in tables for a, b in combinations([p for p in t if p is not None], 2)
    )


@pytest.mark.parametrize("n", range(3, 41))
def test_everyone_seated_once_per_round_at_tables_of_four_then_three(n: int) -> None:
    for draw in five_rounds(n):
        seated = [p for t in draw.tables for p in t.players]
        assert len(seated) == len(set(seated))
        assert set(seated) | set(draw.byes) == set(names(n))
        sizes = draw.sizes
        assert all(s in (3, 4) for s in sizes)
        if n == 5:
            assert sizes == (4,) and len(draw.byes) == 1  # the only bye: n = 5
        else:
            assert not draw.byes and sum(sizes) == n
            # most tables of 4: fewer than 4 tables of 3 (four 3s would be three 4s)
            assert sizes.count(3) < 4 and list(sizes) == sorted(sizes, reverse=True)
        for table in draw.tables:
            assert None not in table.seats  # no robot unless the organiser chose it
            assert 0 <= table.first_dealer < len(table.seats)


@pytest.mark.parametrize("n", range(3, 41))
def test_repeat_meetings_never_exceed_the_greedy_seating_on_the_same_history(n: int) -> None:
    """The bound: each round's new repeat meetings ≤ those of the greedy seating (players in standings
    order, each to the open table where he met fewest), and ≥ the counting bound over 5 rounds."""
    players, history = names(n), list[RoundDraw]()
    for r in range(5):
        standings = fake_standings(players, r)
        draw = draw_round(players, history, standings, seed=1000 + r)
        seated = sorted(p for t in draw.tables for p in t.players)
        assert repeat_meetings(draw, history) <= greedy_repeats(seated, history, standings, 1000 + r)
        history.append(draw)
    pairs_seated = sum(len(t.players) * (len(t.players) - 1) // 2 for d in history for t in d.tables)
    total = sum(repeat_meetings(d, history[:i]) for i, d in enumerate(history))
    assert total >= max(0, pairs_seated - n * (n - 1) // 2)


def test_round_two_meets_no_one_again_when_it_can() -> None:
    """16 players, 4 tables of 4: round 2 can seat everyone with new opponents, and does."""
    players = names(16)
    first = draw_round(players, [], {}, seed=7)
    second = draw_round(players, [first], fake_standings(players, 1), seed=8)
    assert repeat_meetings(second, [first]) == 0


@pytest.mark.parametrize("n", [8, 12, 13, 20, 27, 40])
def test_teammates_never_share_a_table_when_it_can_be_avoided(n: int) -> None:
    tables = len(table_plan(n).sizes)
    teams_count = -(-n // tables)  # no team larger than the number of tables: avoidable
    teams = {p: f"T{i % teams_count}" for i, p in enumerate(names(n))}
    for draw in five_rounds(n, teams):
        for table in draw.tables:
            assert len({teams[p] for p in table.players}) == len(table.players), table


def test_same_seed_same_draw_and_a_different_seed_another() -> None:
    players, history = names(23), five_rounds(23)[:2]
    standings = fake_standings(players, 9)
    again = draw_round(list(reversed(players)), history, standings, seed=42)
    assert draw_round(players, history, standings, seed=42) == again
    assert RoundDraw.from_json(again.to_json()) == again
    assert draw_round(players, history, standings, seed=43) != again


def test_later_rounds_seat_close_standings_together() -> None:
    """Swiss: with no repeat to avoid between the groups, the top four share a table."""
    players = names(8)
    # round 1 seated the evens and the odds: the top four below (p00, p01, p02, p03) never met
    history = [
        RoundDraw(1, 0, (
            draw_round(players[0::2], [], {}, 1).tables[0],
            draw_round(players[1::2], [], {}, 2).tables[0],
        ))
    ]  # fmt: skip
    standings = {p: Fraction(100 - 10 * i) for i, p in enumerate(players)}
    draw = draw_round(players, history, standings, seed=5)
    tops = {frozenset(t.players) for t in draw.tables}
    assert frozenset(players[:4]) in tops and frozenset(players[4:]) in tops


def test_the_bye_at_five_goes_to_the_fewest_byes_then_the_lowest_standing() -> None:
    players = names(5)
    standings = {
        "p00": Fraction(50),
        "p01": Fraction(-20),
        "p02": Fraction(0),
        "p03": Fraction(-90),
        "p04": Fraction(10),
    }
    first = draw_round(players, [], standings, seed=1)
    assert first.byes == ("p03",)
    second = draw_round(players, [first], standings, seed=2)
    assert second.byes == ("p01",)  # p03 has had one; the lowest of the rest


def test_robot_seats_only_when_the_organiser_chose_them() -> None:
    assert table_plan(5, robots=True).sizes == (3, 3) and table_plan(5, robots=True).robot_seats == 1
    draw = draw_round(names(5), [], {}, seed=3, robots=True)
    assert not draw.byes and Counter(p is None for t in draw.tables for p in t.seats)[True] == 1
    assert draw_round(names(2), [], {}, seed=3, robots=True).sizes == (3,)
    with pytest.raises(DrawError):
        draw_round(names(2), [], {}, seed=3)
    with pytest.raises(DrawError):
        draw_round(["a", "a", "b"], [], {}, seed=3)
