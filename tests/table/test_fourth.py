"""A fourth joins three (RULES §7.7, [K 3.1.2]): the Kodeks averages (pool rounded down, mountain rounded
up), his seat left of the last dealer with every later seat moved up, the smallest reserve left, and the new
end of §7.1 at 4·S."""

from __future__ import annotations

import pytest

from app.clock import ClockSettings, ReserveClock, SeatTime
from app.engine import conventions_from
from app.engine.scoring import ScoreSheet
from app.engine.scoring.records import ScoringError, mountain, pool, whists
from app.engine.scoring.sheet import HistoryLine
from app.table.fourth import join_clock, join_sheet, seat_map


def _three(pools: tuple[int, int, int], mountains: tuple[int, int, int], pool_size: int = 10) -> ScoreSheet:
    sheet = ScoreSheet.new(3, conventions_from(overrides={"pool_size": pool_size}))
    writes = [pool(s, p, "deal") for s, p in enumerate(pools) if p]
    writes += [mountain(s, m, "remise") for s, m in enumerate(mountains) if m]
    writes.append(whists(0, 2, 12, "whists"))
    return sheet.write(HistoryLine("game", "deals so far", tuple(writes)))


def test_the_newcomer_writes_the_averages_rounded_against_him() -> None:
    sheet = _three((4, 6, 1), (2, 0, 5))  # pools 11/3 = 3.67 → 3; mountains 7/3 = 2.33 → 3
    joined = join_sheet(sheet, last_dealer=1, name="dan")  # seat 1 dealt: dan sits in seat 2
    assert seat_map(1) == (0, 1, 3)
    assert joined.seats == 4
    assert joined.pools == (4, 6, 3, 1) and joined.mountains == (2, 0, 3, 5)
    assert joined.whists[0][3] == 12 and sum(joined.whists[2]) == 0 and sum(r[2] for r in joined.whists) == 0
    assert joined.history[-1].kind == "join"
    assert joined.history[-1].summary == "seat 2: dan joins after the deal dealt by seat 1"
    assert joined.deals == sheet.deals  # the join is no deal
    again = ScoreSheet.from_json(joined.to_json())  # the stored sheet rebuilds to the same columns
    assert again.pools == joined.pools and again.whists == joined.whists


def test_the_end_counts_four_times_the_pool_size_after_the_join() -> None:
    sheet = _three((10, 9, 9), (0, 0, 0))  # 28 of 30: three would end at 30
    joined = join_sheet(sheet, last_dealer=2, name="dan")  # seat 2 dealt: dan is seat 3, nobody moves
    assert seat_map(2) == (0, 1, 2) and joined.pools == (10, 9, 9, 9)
    assert not joined.finished  # 37 of 40
    assert not joined.write(HistoryLine("game", "+2", (pool(3, 2, "deal"),))).finished
    assert joined.write(HistoryLine("game", "+3", (pool(3, 3, "deal"),))).finished  # 40 = 4·S


def test_nobody_joins_after_the_end_or_a_table_of_four() -> None:
    with pytest.raises(ScoringError):
        join_sheet(_three((10, 10, 10), (0, 0, 0)), last_dealer=0, name="dan")
    with pytest.raises(ScoringError):
        join_sheet(ScoreSheet.new(4), last_dealer=0, name="dan")


def test_the_newcomer_gets_a_full_deal_time_and_the_smallest_reserve_left() -> None:
    settings = ClockSettings(deal_ms=60_000, reserve_ms=300_000, misere_bonus_ms=0)
    clock = ReserveClock(
        settings, (SeatTime(60_000, 250_000), SeatTime(60_000, 120_000), SeatTime(60_000, 90_000))
    )
    joined = join_clock(clock, last_dealer=0)  # dan sits in seat 1; old seats 1, 2 become 2, 3
    assert [(s.deal_ms, s.reserve_ms) for s in joined.seats] == [
        (60_000, 250_000),
        (60_000, 90_000),
        (60_000, 120_000),
        (60_000, 90_000),
    ]
