"""Whist balance of a deal: what one deal is worth to each seat, in whists (the robots' and duel's measure).

The exact settlement of a pulya (RULES.md §7.2, §7.5 `exact`) is linear in the sheet: each seat gets
10·(mean mountain − own mountain) + net whists, the mountains corrected by 2·(S − pool). So the change a
deal makes to every seat's exact settlement — its **whist balance** — is a function of that deal alone,
independent of the pool size and of the deals before it, and the balances of a deal sum to zero. It is
computed by the scoring engine itself (`ScoreSheet.apply`, `settle`), never re-derived here: one rule,
one home. The all-pass series step is the one exception carried in: it prices all-pass tricks (§6.5).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from app.engine.conventions import Conventions
from app.engine.result import DealKind, DealResult
from app.engine.scoring.settlement import settle
from app.engine.scoring.sheet import ScoreSheet

_HUGE_POOL = 1000  # no single deal finishes a pulya this large, so `apply` never refuses a deal


def _fresh_sheet(seats: int, conventions: Conventions, series: int) -> ScoreSheet:
    sheet = ScoreSheet.new(seats, conventions.model_copy(update={"pool_size": _HUGE_POOL}))
    # An all-pass deal at step k of a series: the sheet counts the step from its own series (§6.5).
    return replace(sheet, allpass_series=series)


def deal_balance(
    result: DealResult, conventions: Conventions, allpass_series: int = 0
) -> tuple[Fraction, ...]:
    """Each seat's whist balance from one deal (sums to 0). ``allpass_series``: all-pass deals before it."""
    key = (
        result.seats,
        result.dealer,
        result.kind,
        result.declarer,
        None if result.contract is None else result.contract.text,
        result.calls,
        result.play,
        None if result.tricks is None else tuple(sorted(result.tricks.items())),
        result.talon_tricks,
        result.misere_partner,
    )
    series = allpass_series if result.kind is DealKind.ALLPASS else 0
    full_key = (key, conventions, series)
    cached = _CACHE.get(full_key)
    if cached is None:
        before = _fresh_sheet(result.seats, conventions, series)
        after = before.apply(result)
        start, end = settle(before).exact, settle(after).exact
        cached = tuple(b - a for a, b in zip(start, end, strict=True))
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        _CACHE[full_key] = cached
    return cached


# A pure memo (same inputs, same value): decisions evaluate the same few outcomes many times.
_CACHE: dict[object, tuple[Fraction, ...]] = {}
_CACHE_LIMIT = 65536
