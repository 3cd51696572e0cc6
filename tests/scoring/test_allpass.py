"""All-pass deals on the score sheet (RULES.md §6.2–§6.5)."""

from __future__ import annotations

import pytest

from app.engine.result import DealResult
from tests.scoring.helpers import HALF, PASS, WHIST, allpass, game, misere, sheet_after, zastrel


def test_tricks_go_to_the_mountain_and_the_talon_tricks_to_the_dealer() -> None:
    """§6.2–§6.3, 3 seats «на четверых»: first deal of a series (price 2), dealer 2 took none himself but the
    talon won one trick: seat 0 4·2 = 8, seat 1 5·2 = 10, the dealer 1·2 = 2 and no write-off."""
    sheet = sheet_after(allpass(2, {0: 4, 1: 5, 2: 0}, talon=1))
    assert sheet.mountains == (8, 10, 2)
    assert sheet.allpass_series == 1


def test_zero_tricks_write_off_twice_the_price() -> None:
    """§6.4: a player without a trick writes off 2·2 = 4 from his mountain at step 1."""
    sheet = sheet_after(allpass(2, {0: 0, 1: 6, 2: 4}))
    assert sheet.mountains == (-4, 12, 8)


def test_three_seat_dealer_written_off_only_without_own_and_talon_tricks() -> None:
    """§6.4 [ours]: at 3 seats the dealer (seat 2) with no trick of his own and none by the talon writes
    off 4."""
    sheet = sheet_after(allpass(2, {0: 5, 1: 5, 2: 0}))
    assert sheet.mountains == (10, 10, -4)


def test_four_seat_dealer_writes_the_talon_tricks_but_is_never_written_off() -> None:
    """§6.4 (seed 002 «кроме Сдатчика»): 4 seats, dealer 3. No talon trick: nothing for the dealer, seat 0
    without tricks −4. Two talon tricks: the dealer writes 2·2 = 4."""
    none = sheet_after(allpass(3, {0: 0, 1: 6, 2: 4}, seats=4), seats=4)
    assert none.mountains == (-4, 12, 8, 0)
    two = sheet_after(allpass(3, {0: 1, 1: 4, 2: 3}, seats=4, talon=2), seats=4)
    assert two.mountains == (2, 8, 6, 4)


def test_progression_two_four_six_six() -> None:
    """§6.5: consecutive all-pass deals price a trick 2, 4, 6, 6: seat 0 with 1 trick each time writes
    2 + 4 + 6 + 6 = 18."""
    deals = [allpass(d % 3, {0: 1, 1: 5, 2: 4}) for d in range(4)]
    sheet = sheet_after(*deals)
    assert [line.writes[0].amount for line in sheet.history] == [2, 4, 6, 6]
    assert sheet.mountains[0] == 18
    assert sheet.allpass_series == 4


def _price_after(between: DealResult) -> int:
    """Trick price of the all-pass deal played right after ``between``, itself after one all-pass deal."""
    sheet = sheet_after(allpass(0, {0: 3, 1: 3, 2: 4}), between, allpass(2, {0: 1, 1: 5, 2: 4}))
    return sheet.history[-1].writes[0].amount  # seat 0's single trick


@pytest.mark.parametrize(
    ("between", "price"),
    [
        pytest.param(game(1, 2, "7s", [(0, PASS), (1, PASS)]), 2, id="made-7-unwhisted-exits"),
        pytest.param(game(1, 2, "7s", [(0, PASS), (1, HALF)]), 2, id="made-7-half-whisted-exits"),
        pytest.param(
            game(1, 2, "7s", [(0, WHIST), (1, WHIST)], {2: 6, 0: 2, 1: 2}), 4, id="failed-7-continues"
        ),
        pytest.param(game(1, 2, "8s", [(0, WHIST), (1, PASS)], {2: 8, 0: 1, 1: 1}), 2, id="whisted-8-exits"),
        pytest.param(game(1, 2, "8s", [(0, PASS), (1, PASS)]), 4, id="unwhisted-8-continues"),
        pytest.param(
            game(1, 2, "6s", [(0, WHIST), (1, WHIST)], {2: 6, 0: 2, 1: 2}), 4, id="made-6-continues"
        ),
        pytest.param(misere(1, 2, {2: 0, 0: 5, 1: 5}), 4, id="misere-continues"),
        pytest.param(zastrel(1, 2, "7s"), 4, id="zastrel-continues"),
    ],
)
def test_series_exit_rules(between: DealResult, price: int) -> None:
    """§6.5: after one all-pass deal (price 2) the next one costs 4 unless the deal between exits the series:
    a made 7 (whisted or not) or a made whisted 8/9/10; failures, 6s, unwhisted 8+, misère, zastrel don't."""
    assert _price_after(between) == price
