"""The worked check of RULES.md §7, end to end through the score sheet and the settlement."""

from __future__ import annotations

from fractions import Fraction

from app.engine.result import PlayMode
from app.engine.scoring import ScoreSheet
from app.engine.scoring.settlement import settle
from tests.scoring.helpers import PASS, WHIST, game, misere, sheet_after

A, B, C = 0, 1, 2


def worked_check_sheet() -> ScoreSheet:
    return sheet_after(
        game(C, A, "7h", [(B, WHIST), (C, WHIST)], {A: 6, B: 3, C: 1}),
        game(A, B, "8d", [(C, PASS), (A, WHIST)], {B: 8, C: 0, A: 2}, play=PlayMode.OPEN),
        misere(B, C, {C: 0, A: 5, B: 5}),
        game(C, A, "9h", [(B, PASS), (C, WHIST)], {A: 9, B: 1, C: 0}, play=PlayMode.CLOSED),
        game(A, B, "8s", [(C, WHIST), (A, WHIST)], {B: 10, C: 0, A: 0}),
    )


def test_worked_check_records() -> None:
    """RULES.md §7 worked check: pools A 8, B 12, C 10; mountains A 14, C 6; whists B→A 32, C→A 32, A→B 24.

    By hand: 7♥ down one (P=4): A mountain 8; B 3 tricks ·8 + consolation 8 = 32, C 1·8 + 8 = 16.
    8♦ made (P=6): B pool 6, A alone writes both hands' 2 tricks ·12 = 24 on B. Misère clean: C pool 10.
    9♥ made (P=8): A pool 8, C writes 1 trick ·16 = 16 on A (C→A 32 in all). 8♠ made with 10: B pool 12;
    both whisters took nothing of the obligation 1 and both are responsible on 8: A and C mountain +6.
    """
    sheet = worked_check_sheet()
    assert sheet.pools == (8, 12, 10)
    assert sheet.mountains == (14, 0, 6)
    assert sheet.whists == ((0, 24, 0), (32, 0, 0), (32, 0, 0))
    assert sheet.finished


def test_worked_check_settlement() -> None:
    """RULES.md §7 worked check: variant 1 −153, +114, +39; variant 2 −154, +115, +39; exact −153⅓ …

    By hand: mountains after 2·(S − pool): A 18, B −4, C 6. Variant 1: amnesty −(−4) → 22, 0, 10;
    22 → 21 (B, C write 3 on A), 10 → 9 (A, B write 3 on C); shares 70 on A, 30 on C.
    A: 24 + 33 − 105 − 105 = −153; B: 105 + 33 − 24 = 114; C: 105 − 66 = 39.
    Variant 2: sum 20 → A 19 (A writes 3 on B and C), average 7: A −120 − 34 = −154, B 110 + 5 = 115,
    C 10 + 29 = 39. Exact: A 10·20/3 − 180 − 40 = −460/3.
    """
    result = settle(worked_check_sheet())
    assert result.mountains == (18, -4, 6)
    assert result.variant1 == (-153, 114, 39)
    assert result.variant2 == (-154, 115, 39)
    assert result.exact == (Fraction(-460, 3), Fraction(344, 3), Fraction(116, 3))
    assert result.result == result.variant1
