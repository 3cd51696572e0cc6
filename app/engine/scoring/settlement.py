"""Final settlement of a pulya (RULES.md §7.2–§7.6; Kodeks 4.2.12–4.2.14, seed 003).

Both variants of 4.2.14 are computed in whole whists with the one-point mountain adjustment of 4.2.12;
``exact`` is the same settlement in fractions, without any adjustment.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any

from app.engine.scoring.records import ScoringError
from app.engine.scoring.sheet import ScoreSheet


@dataclass(frozen=True, slots=True)
class Settlement:
    mountains: tuple[int, ...]  # after the pool correction 2·(S − pool), before amnesty (§7.2)
    variant1: tuple[int, ...]
    variant2: tuple[int, ...]
    exact: tuple[Fraction, ...]
    rounding: str  # the table's `settlement_rounding`: "kodeks" or "exact"
    money: tuple[Decimal, ...]  # the result times `stake_per_whist` (§7.6)

    @property
    def result(self) -> tuple[int, ...] | tuple[Fraction, ...]:
        """The table's result: variant 1 under ``kodeks`` rounding, else the exact fractions."""
        return self.variant1 if self.rounding == "kodeks" else self.exact

    def to_json(self) -> dict[str, Any]:
        """As the protocol sends it and the table's row stores it: fractions and money as strings (exact),
        ``result`` and ``sum`` the table's result (variant 1, or the fractions) for a reader who wants one."""
        result = self.result
        return {
            "rounding": self.rounding,
            "result": [v if isinstance(v, int) else str(v) for v in result],
            "sum": str(sum(result)) if not all(isinstance(v, int) for v in result) else sum(result),
            "variant1": list(self.variant1),
            "variant2": list(self.variant2),
            "exact": [str(v) for v in self.exact],
            "money": [str(v) for v in self.money],
            "mountains": list(self.mountains),
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Settlement:
        """`to_json` read back; ``result`` and ``sum`` follow from the rest, so they are not read."""
        return Settlement(
            mountains=tuple(int(v) for v in data["mountains"]),
            variant1=tuple(int(v) for v in data["variant1"]),
            variant2=tuple(int(v) for v in data["variant2"]),
            exact=tuple(Fraction(v) for v in data["exact"]),
            rounding=str(data["rounding"]),
            money=tuple(Decimal(v) for v in data["money"]),
        )


def settle(sheet: ScoreSheet) -> Settlement:
    """Settle the sheet as it stands (a finished pulya or an early end, §7.2 and §7.7)."""
    n, size = sheet.seats, sheet.conventions.pool_size
    mountains = tuple(g + 2 * (size - p) for g, p in zip(sheet.mountains, sheet.pools, strict=True))
    nets = _nets(sheet.whists)
    exact = tuple(
        Fraction(10 * sum(mountains), n) - 10 * g + net for g, net in zip(mountains, nets, strict=True)
    )
    v1, v2 = variant1(mountains, sheet.whists), variant2(mountains, sheet.whists)
    for name, values in (("variant1", v1), ("variant2", v2)):
        if sum(values) != 0:  # pragma: no cover - the arithmetic guarantees it; a bug must not pass silently
            raise ScoringError(name, f"does not balance: {values}")
    rounding = sheet.conventions.settlement_rounding
    stake = sheet.conventions.stake_per_whist
    money = tuple(stake * v + 0 for v in v1) if rounding == "kodeks" else _exact_money(exact, stake)
    return Settlement(mountains, v1, v2, exact, rounding, money)


def _nets(table: tuple[tuple[int, ...], ...] | list[list[int]]) -> tuple[int, ...]:
    n = len(table)
    return tuple(sum(table[i]) - sum(table[j][i] for j in range(n)) for i in range(n))


def _adjust(g: int, n: int) -> int:
    """The one-point step (−1, 0 or +1) that makes 10·g/n whole; a write-off wins a tie (§7.3)."""
    if 10 * g % n == 0:
        return 0
    for step in (-1, 1):
        if 10 * (g + step) % n == 0:
            return step
    raise ScoringError("seats", f"no one-point adjustment makes 10·{g}/{n} whole")


def _compensate(table: list[list[int]], owner: int, step: int) -> None:
    """4.2.12: a write-off is paid by the others' whists on the owner, an add-on by the owner's on them."""
    n = len(table)
    each = 10 // n  # ⌊10/n⌋: 3 at three seats, 2 at four [ours, §7.3]
    for other in range(n):
        if other != owner:
            if step < 0:
                table[other][owner] += each
            elif step > 0:
                table[owner][other] += each


def variant1(mountains: tuple[int, ...], whists: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """Amnesty, then every mountain paid to each other player as whists (4.2.14, variant 1)."""
    n = len(mountains)
    table = [list(row) for row in whists]
    low = min(mountains)
    for owner, raw in enumerate(mountains):
        g = raw - low
        step = _adjust(g, n)
        _compensate(table, owner, step)
        share = 10 * (g + step) // n
        for other in range(n):
            if other != owner:
                table[other][owner] += share
    return _nets(table)


def variant2(mountains: tuple[int, ...], whists: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """The average mountain: each player gets 10·(average − own) plus the net whists (4.2.14, variant 2)."""
    n = len(mountains)
    table = [list(row) for row in whists]
    adjusted = list(mountains)
    step = _adjust(sum(mountains), n)
    if step:
        largest = adjusted.index(max(adjusted))  # the first seat among equals
        adjusted[largest] += step
        _compensate(table, largest, step)
    total_share = 10 * sum(adjusted) // n  # 10·average, whole after the adjustment
    nets = _nets(table)
    return tuple(total_share - 10 * g + net for g, net in zip(adjusted, nets, strict=True))


def _exact_money(exact: tuple[Fraction, ...], stake: Decimal) -> tuple[Decimal, ...]:
    """Exact results in money, rounded to the stake's precision plus two places, still summing to zero."""
    exponent = stake.as_tuple().exponent
    quantum = min(Decimal("0.01"), Decimal(1).scaleb(exponent - 2 if isinstance(exponent, int) else 0))
    amounts = [
        (Decimal(x.numerator) * stake / Decimal(x.denominator)).quantize(quantum, ROUND_HALF_EVEN)
        for x in exact
    ]
    # Rounding may leave a few quanta over; the largest amounts absorb them, one quantum each.
    residue = sum(amounts, Decimal(0))
    order = sorted(range(len(amounts)), key=lambda i: -abs(amounts[i]))
    k = 0
    while residue != 0:
        delta = quantum if residue < 0 else -quantum
        amounts[order[k % len(order)]] += delta
        residue += delta
        k += 1
    return tuple(amounts)
