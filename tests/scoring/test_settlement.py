"""Final settlement (RULES.md §7.2–§7.6; Kodeks 4.2.3.3, 4.2.12–4.2.14)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from app.engine.conventions import Conventions
from app.engine.scoring import ScoreSheet
from app.engine.scoring.settlement import settle, variant1, variant2


def _sheet(
    pools: tuple[int, ...],
    mountains: tuple[int, ...],
    whists: tuple[tuple[int, ...], ...] | None = None,
    **conventions: object,
) -> ScoreSheet:
    n = len(pools)
    table = whists or ((0,) * n,) * n
    return ScoreSheet(n, Conventions.model_validate(conventions), pools, mountains, table)


def _zero(n: int) -> tuple[tuple[int, ...], ...]:
    return ((0,) * n,) * n


def test_pool_over_and_under_s_moves_the_mountain_twice() -> None:
    """§7.2, [K 4.2.3.3] example: S = 50, pools 54, 48, 48: mountains −8, +4, +4."""
    result = settle(_sheet((54, 48, 48), (0, 0, 0), pool_size=50))
    assert result.mountains == (-8, 4, 4)


def test_write_off_at_three_seats_is_compensated_with_three_whists() -> None:
    """§7.3, 4.2.12 example: mountains 1, 0, 0: 10/3 is not whole, 1 → 0 (write-off), the two others write
    3 whists each on its owner: −6, +3, +3; exact −20/3, +10/3, +10/3."""
    assert variant1((1, 0, 0), _zero(3)) == (-6, 3, 3)


def test_add_on_at_three_seats() -> None:
    """§7.3: mountain 2 at 3 seats: 20/3 not whole, the nearest whole is 3 (+1): the owner writes 3 on each
    other player (+6) and pays 10 to each (−20): −14, +7, +7."""
    assert variant1((2, 0, 0), _zero(3)) == (-14, 7, 7)


def test_four_seats_round_down_with_two_whists() -> None:
    """§7.3 [ours ⌊10/4⌋ = 2]: mountain 3 at 4 seats: 30/4 not whole, 2 and 4 are equally near: down to 2;
    the three others write 2 each on the owner and 10·2/4 = 5 each: owner −21, others +7."""
    assert variant1((3, 0, 0, 0), _zero(4)) == (-21, 7, 7, 7)


def test_amnesty_removes_the_smallest_mountain_first() -> None:
    """§7.3: mountains 13, 10, 10 are settled as 3, 0, 0 after the amnesty: 10·3/3 = 10 from each: −20, +10,
    +10 (no adjustment needed)."""
    assert variant1((13, 10, 10), _zero(3)) == (-20, 10, 10)


def test_variant2_adjusts_the_largest_mountain_first_by_seat() -> None:
    """§7.4: mountains 5, 5, 0 (sum 10, 100/3 not whole): seat 0 (first of the equal largest) goes to 4 and
    the others write 3 on it; average 3: seat 0 10·(3−4) − 6 = −16, seat 1 10·(3−5) + 3 = −17, seat 2
    30 + 3 = 33."""
    assert variant2((5, 5, 0), _zero(3)) == (-16, -17, 33)


def test_variants_agree_when_no_rounding_is_needed() -> None:
    """§7.5: mountains 9, 3, 0 and seat 1 wrote 20 whists on seat 0: 10·sum/3 = 40 and every 10·g/3 are
    whole, so both variants are exact: average 4, seat 0 10·(4−9) − 20 = −70, seat 1 10·(4−3) + 20 = +30,
    seat 2 10·4 = +40."""
    whists = ((0, 0, 0), (20, 0, 0), (0, 0, 0))
    result = settle(_sheet((10, 10, 10), (9, 3, 0), whists))
    assert result.variant1 == result.variant2 == (-70, 30, 40)
    assert result.exact == (Fraction(-70), Fraction(30), Fraction(40))


def test_stakes_turn_whists_into_money() -> None:
    """§7.6, 4.2.13: at 0.50 a whist, variant 1 −20, +10, +10 (mountains 3, 0, 0) is −10.00, +5.00, +5.00."""
    result = settle(_sheet((10, 10, 10), (3, 0, 0), stake_per_whist=Decimal("0.50")))
    assert result.money == (Decimal("-10.00"), Decimal("5.00"), Decimal("5.00"))
    assert sum(result.money) == 0


def test_exact_rounding_takes_the_fractions_and_balances_the_money() -> None:
    """§7.5 `settlement_rounding = exact`: mountains 1, 0, 0 settle to −20/3, +10/3, +10/3; at 1 per whist
    the money is rounded to cents (−6.67, 3.33, 3.33 leaves one cent over, which one amount absorbs) and
    sums to zero."""
    result = settle(_sheet((10, 10, 10), (1, 0, 0), settlement_rounding="exact", stake_per_whist=Decimal(1)))
    assert result.result == (Fraction(-20, 3), Fraction(10, 3), Fraction(10, 3))
    assert sum(result.money) == 0
    assert all(
        abs(m - Decimal(x.numerator) / Decimal(x.denominator)) <= Decimal("0.02")
        for m, x in zip(result.money, result.exact, strict=True)
    )


def test_early_end_settles_by_the_same_formula() -> None:
    """§7.7: a pulya stopped with pools 6, 4, 0 (S = 10): mountains 8, 12, 20; amnesty → 0, 4, 12.
    Seat 1: 4 → 3 (seats 0 and 2 write 3 on it), then 10·3/3 = 10 each; seat 2: 10·12/3 = 40 each.
    Seat 0 wrote 3 + 10 + 40 = 53: +53. Seat 1 wrote 40, received 13 + 13: +14. Seat 2 wrote 13,
    received 80: −67."""
    result = settle(_sheet((6, 4, 0), (0, 0, 0)))
    assert result.mountains == (8, 12, 20)
    assert result.variant1 == (53, 14, -67)
