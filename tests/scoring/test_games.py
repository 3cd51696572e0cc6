"""Trick games, misère, zastrel and the timeout penalty on the score sheet (RULES.md §3.2–§3.3, §5)."""

from __future__ import annotations

import pytest

from app.engine.conventions import Conventions
from app.engine.scoring import ScoreSheet, ScoringError
from tests.scoring.helpers import HALF, PASS, WHIST, game, misere, sheet_after, zastrel


def test_unwhisted_contract_writes_its_price_to_the_pool() -> None:
    """§5.1, §4.7: 6♠ with both defenders passing is counted made unplayed: pool +2, nothing else."""
    sheet = sheet_after(game(2, 0, "6s", [(1, PASS), (2, PASS)]))
    assert sheet.pools == (2, 0, 0)
    assert sheet.mountains == (0, 0, 0)
    assert sheet.whists == ((0, 0, 0),) * 3


def test_made_contract_with_two_whisters_each_writes_his_tricks() -> None:
    """§5.1–§5.2: 7♠ made with 7 (P=4), whisters took 2 and 1: pool +4; 2·4·2 = 16 and 2·4·1 = 8 whists."""
    sheet = sheet_after(game(2, 0, "7s", [(1, WHIST), (2, WHIST)], {0: 7, 1: 2, 2: 1}))
    assert sheet.pools == (4, 0, 0)
    assert sheet.whists[1][0] == 16
    assert sheet.whists[2][0] == 8
    assert sheet.mountains == (0, 0, 0)


def test_remiz_goes_to_the_mountain_with_consolation_from_everyone() -> None:
    """§5.3: 8♥ down two (P=6), both whist, tricks 6/2/2: declarer mountain 2·6·2 = 24;
    each whister 2·6·2 = 24 for his tricks plus 2·6·2 = 24 consolation = 48."""
    sheet = sheet_after(game(2, 0, "8h", [(1, WHIST), (2, WHIST)], {0: 6, 1: 2, 2: 2}))
    assert sheet.pools == (0, 0, 0)
    assert sheet.mountains == (24, 0, 0)
    assert sheet.whists[1][0] == 48
    assert sheet.whists[2][0] == 48


def test_four_seat_dealer_writes_consolation() -> None:
    """§1.2, §5.3: 4 seats, dealer 3; 6♦ down one (P=2), whisters 1 and 2 took 3 and 2: mountain 4;
    seat 1: 3·4 + 4 = 16, seat 2: 2·4 + 4 = 12, the dealer: consolation 4 only."""
    sheet = sheet_after(game(3, 0, "6d", [(1, WHIST), (2, WHIST)], {0: 5, 1: 3, 2: 2}, seats=4), seats=4)
    assert sheet.mountains == (4, 0, 0, 0)
    assert [sheet.whists[s][0] for s in (1, 2, 3)] == [16, 12, 4]


def test_two_whisters_on_six_each_answer_for_half_the_obligation() -> None:
    """§5.4, [K 3.8.6] example 2: 6♦ (P=2) made with 9, whisters took 1 and 0 of the obligation 4 (half 2):
    the first writes P·(2−1) = 2, the second P·(2−0) = 4 to the mountain; the first also 2·2·1 = 4 whists."""
    sheet = sheet_after(game(2, 0, "6d", [(1, WHIST), (2, WHIST)], {0: 9, 1: 1, 2: 0}))
    assert sheet.pools == (2, 0, 0)
    assert sheet.mountains == (0, 2, 4)
    assert sheet.whists[1][0] == 4


def test_whister_below_half_writes_only_when_the_pair_fell_short() -> None:
    """§5.4, [K 3.8.6] example 1: 6♦ made with 7, whisters 2 and 1 (together 3 < 4): the second writes
    P·(2−1) = 2. With 3 and 1 (together 4) nobody writes, although the second took less than his half."""
    short = sheet_after(game(2, 0, "6d", [(1, WHIST), (2, WHIST)], {0: 7, 1: 2, 2: 1}))
    assert short.mountains == (0, 0, 2)
    enough = sheet_after(game(2, 0, "6d", [(1, WHIST), (2, WHIST)], {0: 6, 1: 3, 2: 1}))
    assert enough.mountains == (0, 0, 0)


def test_both_whisters_answer_on_nine() -> None:
    """§5.4 (seed 002 «оба вистующих»): 9♠ (P=8) made with 10 against two whisters: each writes P·1 = 8."""
    sheet = sheet_after(game(2, 0, "9s", [(1, WHIST), (2, WHIST)], {0: 10, 1: 0, 2: 0}))
    assert sheet.pools == (8, 0, 0)
    assert sheet.mountains == (0, 8, 8)


def test_second_whister_answers_when_both_responsible_is_off() -> None:
    """§5.4 with `both_responsible_from` = 11, [K 3.8.6]: on 8 the second to whist answers: 8♠ (P=6) made
    with 10, seat 2 whisted first and seat 1 second: only seat 1 writes 6."""
    conventions = Conventions(both_responsible_from=11)
    sheet = sheet_after(
        game(0, 0, "8s", [(2, WHIST), (1, WHIST)], {0: 10, 1: 0, 2: 0}), conventions=conventions
    )
    assert sheet.mountains == (0, 6, 0)


def test_lone_whister_answers_for_the_whole_obligation() -> None:
    """§5.4: 6♣ (P=2), whist–pass, declarer 7, the defence 3 of 4: the whister writes P·1 = 2 to the
    mountain and 2·2·3 = 12 whists for both hands' tricks."""
    sheet = sheet_after(game(2, 0, "6c", [(1, WHIST), (2, PASS)], {0: 7, 1: 2, 2: 1}))
    assert sheet.mountains == (0, 2, 0)
    assert sheet.whists[1][0] == 12
    assert sheet.whists[2][0] == 0


def test_gentleman_whister_and_passer_share_the_trick_whists_on_a_remiz() -> None:
    """§5.5: 7♦ (P=4) down one, whist–pass, the defence took 4: 2·4·4 = 32 trick whists, 16 each;
    consolation 2·4·1 = 8 each: whister 24, passer 24; declarer mountain 8."""
    sheet = sheet_after(game(2, 0, "7d", [(1, WHIST), (2, PASS)], {0: 6, 1: 1, 2: 3}))
    assert sheet.mountains == (8, 0, 0)
    assert sheet.whists[1][0] == 24
    assert sheet.whists[2][0] == 24


def test_gentleman_whister_keeps_the_whists_on_a_made_contract() -> None:
    """§5.5: 7♦ (P=4) made with 7, whist–pass, the defence took 3: the whister writes 2·4·3 = 24, the
    passer nothing."""
    sheet = sheet_after(game(2, 0, "7d", [(1, WHIST), (2, PASS)], {0: 7, 1: 1, 2: 2}))
    assert sheet.pools == (4, 0, 0)
    assert sheet.whists[1][0] == 24
    assert sheet.whists[2][0] == 0


def test_without_gentleman_the_whister_keeps_the_whists_on_a_remiz() -> None:
    """§5.3, §5.5 with `gentleman` off: 7♦ down one, defence 4: whister 32 + 8 = 40; passer consolation 8."""
    sheet = sheet_after(
        game(2, 0, "7d", [(1, WHIST), (2, PASS)], {0: 6, 1: 1, 2: 3}),
        conventions=Conventions(gentleman=False),
    )
    assert sheet.whists[1][0] == 40
    assert sheet.whists[2][0] == 8


@pytest.mark.parametrize(("contract", "price"), [("6s", 2), ("7h", 4)])
def test_half_whist_writes_half_the_obligation(contract: str, price: int) -> None:
    """§5.6: pass, half-whist: counted made (pool +P); the half-whister writes half the obligation at 2P:
    6: 2 tricks·2·2 = 8; 7: 1 trick·2·4 = 8."""
    sheet = sheet_after(game(2, 0, contract, [(1, PASS), (2, HALF)]))
    assert sheet.pools == (price, 0, 0)
    assert sheet.whists[2][0] == 8
    assert sheet.whists[1][0] == 0


def test_gentleman_switch_to_half_whist() -> None:
    """§4.4 «вист – пас – полвиста»: the first defender switches to half-whist: 6♠ not played, pool +2,
    he writes 8."""
    sheet = sheet_after(game(2, 0, "6s", [(1, WHIST), (2, PASS), (1, HALF)]))
    assert sheet.pools == (2, 0, 0)
    assert sheet.whists[1][0] == 8


def test_returned_whist_on_a_remiz_writes_everything_for_the_defenders() -> None:
    """§5.5 (seed 002: the half-whister «лишается всех вистов»): 6♥ (P=2), pass – half-whist – whist, the
    declarer takes 5, the defence 5: mountain 4; the returner writes 2·2·5 = 20 trick whists plus his own and
    the half-whister's consolation 2·4 = 8 = 28; the half-whister nothing."""
    sheet = sheet_after(game(0, 0, "6h", [(1, PASS), (2, HALF), (1, WHIST)], {0: 5, 1: 3, 2: 2}))
    assert sheet.mountains == (4, 0, 0)
    assert sheet.whists[1][0] == 28
    assert sheet.whists[2][0] == 0


def test_returned_whist_on_a_made_contract_keeps_the_trick_whists() -> None:
    """§4.5, §5.2: 6♥ made with 6 after a returned whist: pool 2, the returner writes 2·2·4 = 16 for both
    hands, the half-whister (who could then only pass) writes nothing."""
    sheet = sheet_after(game(0, 0, "6h", [(1, PASS), (2, HALF), (1, WHIST), (2, PASS)], {0: 6, 1: 3, 2: 1}))
    assert sheet.pools == (2, 0, 0)
    assert sheet.whists[1][0] == 16
    assert sheet.whists[2][0] == 0


def test_dealer_whist_on_a_remiz_writes_everything() -> None:
    """§4.8, §5.5: 4 seats, dealer 3 whists after pass–pass on 8♠ (P=6), declarer 7: mountain 12; the
    dealer writes 2·6·3 = 36 trick whists and the consolation of three, 3·12 = 36: 72; defenders nothing."""
    sheet = sheet_after(
        game(3, 0, "8s", [(1, PASS), (2, PASS), (3, WHIST)], {0: 7, 1: 2, 2: 1}, seats=4), seats=4
    )
    assert sheet.mountains == (12, 0, 0, 0)
    assert [sheet.whists[s][0] for s in (1, 2, 3)] == [0, 0, 72]


def test_dealer_whist_answers_for_the_obligation() -> None:
    """§5.4: the dealer whisting alone on 8♠ (P=6) when the declarer takes 10 writes P·1 = 6 to his
    mountain; the declarer pool +6."""
    sheet = sheet_after(
        game(3, 0, "8s", [(1, PASS), (2, PASS), (3, WHIST)], {0: 10, 1: 0, 2: 0}, seats=4), seats=4
    )
    assert sheet.pools == (6, 0, 0, 0)
    assert sheet.mountains == (0, 0, 0, 6)


def test_dealer_whist_after_a_half_whist_counts_as_a_returned_whist() -> None:
    """§4.8: pass – half-whist – pass – dealer whist on 6♠ (P=2), made with 6: pool 2; the dealer writes
    2·2·4 = 16; the half-whist is void."""
    calls = [(1, PASS), (2, HALF), (1, PASS), (3, WHIST)]
    sheet = sheet_after(game(3, 0, "6s", calls, {0: 6, 1: 2, 2: 2}, seats=4), seats=4)
    assert sheet.pools == (2, 0, 0, 0)
    assert [sheet.whists[s][0] for s in (1, 2, 3)] == [0, 0, 16]


def test_misere_clean_and_caught() -> None:
    """§5.7: misère without a trick: pool +10; with 2 tricks: mountain 2·10·2 = 40; no whists at all."""
    clean = sheet_after(misere(1, 2, {2: 0, 0: 5, 1: 5}))
    assert clean.pools == (0, 0, 10)
    caught = sheet_after(misere(1, 2, {2: 2, 0: 4, 1: 4}))
    assert caught.mountains == (0, 0, 40)
    assert caught.whists == ((0, 0, 0),) * 3


def test_misere_for_two_splits_every_write() -> None:
    """§3.3: 4 seats, seat 0 invites dealer 3: clean → pool 5 each; 1 trick → 20 split, mountain 10 each."""
    clean = sheet_after(misere(3, 0, {0: 0, 1: 5, 2: 5}, seats=4, partner=3), seats=4)
    assert clean.pools == (5, 0, 0, 5)
    caught = sheet_after(misere(3, 0, {0: 1, 1: 5, 2: 4}, seats=4, partner=3), seats=4)
    assert caught.mountains == (10, 0, 0, 10)


@pytest.mark.parametrize(("contract", "points"), [("6s", 12), ("7s", 24)])
def test_zastrel_is_three_down_without_whists(contract: str, points: int) -> None:
    """§3.2: zastrel after 6♠ writes 3·2·2 = 12, after 7♠ 3·2·4 = 24, to the declarer's mountain only."""
    sheet = sheet_after(zastrel(2, 0, contract))
    assert sheet.mountains == (points, 0, 0)
    assert sheet.whists == ((0, 0, 0),) * 3


@pytest.mark.parametrize(("seats", "total"), [(3, 100), (4, 150)])
def test_timeout_penalty(seats: int, total: int) -> None:
    """§5.8: each other player writes 50 whists on the player who ran out: 100 at 3 seats, 150 at 4."""
    sheet = ScoreSheet.new(seats).timeout(1)
    assert [sheet.whists[s][1] for s in range(seats)] == [50 if s != 1 else 0 for s in range(seats)]
    assert sum(row[1] for row in sheet.whists) == total
    assert sheet.history[-1].kind == "timeout"


def test_pulya_ends_when_the_pools_reach_n_times_s() -> None:
    """§7.1: S = 10 at 3 seats: one pool may pass 10 (12 after two 7s and a 6) without ending the pulya;
    it ends after the deal in which the sum reaches 30, and no deal is written after that."""
    made = [game(2, 0, c, [(1, PASS), (2, PASS)]) for c in ("7s", "7s", "6s")]
    sheet = sheet_after(*made)
    assert sheet.pools == (10, 0, 0)
    assert not sheet.finished
    sheet = sheet_after(*made, misere(0, 1, {1: 0, 0: 5, 2: 5}), game(0, 2, "9s", [(0, PASS), (1, PASS)]))
    assert sheet.pools == (10, 10, 8)
    assert not sheet.finished
    sheet = sheet.apply(game(1, 2, "6s", [(0, PASS), (1, PASS)]))
    assert sheet.pools == (10, 10, 10)
    assert sheet.finished
    with pytest.raises(ScoringError, match="over"):
        sheet.apply(game(2, 0, "6s", [(1, PASS), (2, PASS)]))


def test_history_line_says_what_was_written_and_why() -> None:
    """§5: every deal adds one history line with its writes and reasons."""
    sheet = sheet_after(game(2, 0, "7h", [(1, WHIST), (2, WHIST)], {0: 6, 1: 3, 2: 1}))
    (line,) = sheet.history
    assert "7h" in line.summary
    reasons = [w.reason for w in line.writes]
    assert "7h down 1" in reasons
    assert sum("consolation" in r for r in reasons) == 2


def test_inconsistent_results_are_refused() -> None:
    """§4.7: tricks on an unwhisted deal, or no tricks on a whisted one, are refused naming the field."""
    with pytest.raises(ScoringError) as caught:
        sheet_after(game(2, 0, "6s", [(1, PASS), (2, PASS)], {0: 6, 1: 2, 2: 2}))
    assert caught.value.field == "tricks"
    with pytest.raises(ScoringError) as caught:
        sheet_after(game(2, 0, "6s", [(1, WHIST), (2, PASS)]))
    assert caught.value.field == "tricks"
    with pytest.raises(ScoringError) as caught:
        sheet_after(game(2, 0, "8s", [(1, PASS), (2, HALF)]))
    assert caught.value.field == "calls"
