"""The duel's measure (whist balance per deal) and the duel command line."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from app.engine import Bid, Conventions, DealKind, DealResult, WhistCall
from app.robots import Robot
from app.robots.__main__ import main
from app.robots.duel import seatings
from app.robots.value import deal_balance
from tests.robots.helpers import play_robot_deal


def test_an_unwhisted_six_is_worth_a_pool_of_two() -> None:
    """6♠ made, both pass, 3 seats: declarer's pool +2, so his corrected mountain 2·(S − pool) drops by 4.
    Exact settlement 10·(mean mountain − own) moves by 10·(−4/3 + 4) = +80/3 for him, −40/3 for each other."""
    result = DealResult(seats=3, dealer=0, kind=DealKind.GAME, declarer=1, contract=Bid.parse("6s"),
                        calls=((2, WhistCall.PASS), (0, WhistCall.PASS)))  # fmt: skip
    assert deal_balance(result, Conventions()) == (Fraction(-40, 3), Fraction(80, 3), Fraction(-40, 3))


def test_all_pass_tricks_cost_more_later_in_a_series() -> None:
    """All-pass, 3 seats, tricks 4/3/3 (§6.3): a trick costs 6 in the mountain at step 3, 2 at step 1."""
    result = DealResult(seats=3, dealer=0, kind=DealKind.ALLPASS, tricks={0: 4, 1: 3, 2: 3})
    first = deal_balance(result, Conventions(), allpass_series=0)
    third = deal_balance(result, Conventions(), allpass_series=2)
    assert third == tuple(3 * x for x in first)
    assert first[0] < 0 < first[1]


@pytest.mark.parametrize("seats", [3, 4])
def test_every_deal_balances_to_zero(seats: int) -> None:
    rng = random.Random(seats)
    for deal in range(30):
        robots = {s: Robot("easy" if (deal + s) % 2 else "random") for s in range(seats)}
        state = play_robot_deal(seats, rng, robots)
        assert state.last_result is not None
        assert sum(deal_balance(state.last_result, state.conventions)) == 0


@pytest.mark.parametrize("names", [3, 4])
def test_a_board_seats_every_robot_at_every_seat_once(names: int) -> None:
    for board in (0, 1):
        plays = seatings(names, board)
        assert len(plays) == names
        for seat in range(names):
            assert sorted(p[seat] for p in plays) == list(range(names))


def test_odd_boards_turn_the_table_the_other_way() -> None:
    """With three robots, A sits before B on even boards and after B on odd ones."""
    assert seatings(3, 0)[0] == (0, 1, 2)
    assert seatings(3, 1)[0] == (0, 2, 1)


def test_duel_prints_one_json_line_and_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["duel", "--deals", "3", "--seed", "5", "--seats", "3", "easy", "easy", "random"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out == first
    lines = first.strip().splitlines()
    assert len(lines) == 1
    out = json.loads(lines[0])
    assert out["deals"] == 3
    assert len(out["whists"]) == 3 and len(out["ci95"]) == 3
    assert abs(sum(out["whists"])) < 0.01  # every deal balances; each robot played each deal once
    assert all(lo <= hi for lo, hi in out["ci95"])


def test_duel_rejects_a_level_count_that_does_not_fit_the_seats(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["duel", "--deals", "3", "--seats", "4", "easy", "easy", "random"])
    assert "needs 4 robot levels" in capsys.readouterr().err
