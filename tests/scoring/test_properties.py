"""Property tests: any legal sequence of deals settles to whole numbers summing to zero, and the two
variants differ from the exact settlement only by the 4.2.12 rounding (RULES.md §7.3–§7.5)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.scoring import ScoreSheet
from app.engine.scoring.settlement import Settlement, settle, variant1, variant2
from tests.scoring.strategies import deal_results

# How far one 4.2.12 adjustment can move a result away from the exact one: the owner of the adjusted
# mountain gains or loses |10·(n−1)/n − (n−1)·⌊10/n⌋| (2/3 at 3 seats, 3/2 at 4), every other player
# |10/n − ⌊10/n⌋| (1/3, 1/2). Variant 1 may adjust every mountain, variant 2 only one.
OWNER = {3: Fraction(2, 3), 4: Fraction(3, 2)}
OTHER = {3: Fraction(1, 3), 4: Fraction(1, 2)}


def check_settlement(result: Settlement, seats: int) -> None:
    assert all(isinstance(v, int) for v in (*result.variant1, *result.variant2))
    assert sum(result.variant1) == 0
    assert sum(result.variant2) == 0
    assert sum(result.exact) == 0
    bound1 = OWNER[seats] + (seats - 1) * OTHER[seats]
    for v1, v2, exact in zip(result.variant1, result.variant2, result.exact, strict=True):
        assert abs(v1 - exact) <= bound1
        assert abs(v2 - exact) <= OWNER[seats]
    low = min(result.mountains)
    if all(10 * (g - low) % seats == 0 for g in result.mountains) and 10 * sum(result.mountains) % seats == 0:
        assert result.variant1 == result.variant2 == tuple(int(x) for x in result.exact)


@st.composite
def columns(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    n = draw(st.sampled_from([3, 4]))
    mountains = tuple(draw(st.lists(st.integers(-300, 600), min_size=n, max_size=n)))
    rows = draw(st.lists(st.lists(st.integers(0, 900), min_size=n, max_size=n), min_size=n, max_size=n))
    whists = tuple(tuple(0 if i == j else row[j] for j in range(n)) for i, row in enumerate(rows))
    return mountains, whists


@given(columns())
def test_any_records_settle_whole_and_balanced(
    data: tuple[tuple[int, ...], tuple[tuple[int, ...], ...]],
) -> None:
    """§7.3–§7.5 on arbitrary mountains and whists: whole, zero-sum, within the 4.2.12 rounding."""
    mountains, whists = data
    n = len(mountains)
    sheet = ScoreSheet(n, ScoreSheet.new(n).conventions, (10,) * n, mountains, whists)
    result = settle(sheet)
    assert result.variant1 == variant1(mountains, whists)
    assert result.variant2 == variant2(mountains, whists)
    check_settlement(result, n)


@st.composite
def pulyas(draw: st.DrawFn) -> ScoreSheet:
    seats = draw(st.sampled_from([3, 4]))
    dealer = draw(st.integers(0, seats - 1))
    sheet = ScoreSheet.new(seats)
    for _ in range(draw(st.integers(1, 40))):
        sheet = sheet.apply(draw(deal_results(seats, dealer)))
        dealer = (dealer + 1) % seats
        if sheet.finished:
            break
    return sheet


@settings(max_examples=150, deadline=None)
@given(pulyas())
def test_random_rule_consistent_pulyas_settle_whole_and_balanced(sheet: ScoreSheet) -> None:
    """§7.5: any sequence of rule-consistent deals (all kinds, 3 and 4 seats) settles whole and zero-sum in
    both variants, which differ from the exact result only by the 4.2.12 rounding; the sheet survives JSON."""
    check_settlement(settle(sheet), sheet.seats)
    assert ScoreSheet.from_json(sheet.to_json()) == sheet


@pytest.mark.parametrize("seats", [3, 4])
def test_engine_played_pulyas_settle_whole_and_balanced(seats: int) -> None:
    """§7.5 on deals played by the engine with random legal actions: every prefix of each pulya settles
    whole and zero-sum, within the 4.2.12 rounding of the exact result; the sheet's all-pass series (§6.5)
    is the one the engine bids under."""
    randomplay = pytest.importorskip("app.engine.randomplay")
    from app.engine.state import new_table

    for seed in range(12):
        rng = random.Random(seed)
        state = new_table(seats, ScoreSheet.new(seats).conventions, first_dealer=seed % seats)
        sheet = ScoreSheet.new(seats)
        for _ in range(40):
            state = randomplay.play_deal(state, rng)
            assert sheet.allpass_series == state.allpass_series
            sheet = sheet.apply(state.last_result)
            check_settlement(settle(sheet), seats)
            if sheet.finished:
                break
        assert ScoreSheet.from_json(sheet.to_json()) == sheet
