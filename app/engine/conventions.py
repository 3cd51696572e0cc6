"""The typed convention set of a table (RULES.md: every **convention** named there).

`Conventions()` is the seeds' preset ``fspr-leningrad``. A room may override any field; invalid values are
rejected by pydantic with the field named (`ConventionError` wraps that for callers).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

MAX_STAKE: Final = Decimal(1_000_000)
MAX_TRICK_PRICE: Final = 100


class ConventionError(ValueError):
    """An unknown preset or an invalid override; the message names the field."""


def seconds_to_ms(seconds: float) -> int:
    """A convention's time in whole milliseconds: the one rounding of every clock convention (§8.6)."""
    return round(seconds * 1000)


class Conventions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # §2 bidding
    no_talon_games: bool = True
    no_jumps: bool = True
    senior_must_hold: bool = True
    # §3 talon and contract
    zastrel: bool = True
    misere_with_dealer: bool = True
    # §4 whisting
    half_whist: bool = True
    gentleman: bool = True
    whist_return: bool = True
    ten_whisted: bool = True
    stalingrad: bool = False
    dealer_whist: bool = True
    claims: bool = True  # §4.10: the declarer may claim the rest of the tricks
    both_responsible_from: int = Field(8, ge=6, le=11)  # 11 = never both responsible
    # §6 all-pass deals
    allpass_progression: tuple[int, ...] = Field((2, 4, 6), max_length=20)  # then the last value repeats
    allpass_talon_at_three: bool = True  # "на четверых"
    # §7 pulya and settlement
    pool_size: int = Field(10, ge=1, le=1000)
    settlement_rounding: Literal["kodeks", "exact"] = "kodeks"
    # §7.7 life outside the deal: an adjournment not resumed within this many seconds ends the pulya
    # (default 7 days); a fourth player may join three with their consent (off by default).
    adjourn_limit: float = Field(7 * 24 * 3600.0, gt=0, le=366 * 24 * 3600, allow_inf_nan=False)
    fourth_may_join: bool = False
    # Money per whist: bounded so a settlement never overflows the decimal context.
    stake_per_whist: Decimal = Field(
        Decimal(0), ge=0, le=MAX_STAKE, max_digits=16, decimal_places=4, allow_inf_nan=False
    )
    # §8 clocks (seconds); no infinities or NaN (they would be stored as non-standard JSON)
    deal_time: float = Field(120.0, gt=0, le=24 * 3600, allow_inf_nan=False)
    reserve_time: float = Field(600.0, ge=0, le=7 * 24 * 3600, allow_inf_nan=False)
    misere_bonus: float = Field(300.0, ge=0, le=24 * 3600, allow_inf_nan=False)
    allpass_timeout_cap: int = Field(6, ge=0, le=10)
    # §9 tournament round
    round_end_warning: float = Field(600.0, ge=0, le=24 * 3600, allow_inf_nan=False)
    # §9: set by the tournament on the tables it seats, never by a room (`conventions_from` refuses it);
    # the pools then do not end the pulya (§7.1): the round does. Read it through
    # `app.tournament.is_tournament_table`.
    tournament: bool = False

    @field_validator("allpass_progression")
    @classmethod
    def _progression_not_empty(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if not value or any(not 0 < v <= MAX_TRICK_PRICE for v in value):
            raise ValueError(f"must be a non-empty list of trick prices 1..{MAX_TRICK_PRICE}")
        return value

    @field_validator("deal_time")
    @classmethod
    def _deal_time_counts(cls, value: float) -> float:
        # §8.6: a deal time that rounds to 0 ms would never let a table start.
        if seconds_to_ms(value) <= 0:
            raise ValueError("must be at least one millisecond once rounded to whole milliseconds")
        return value

    @property
    def deal_ms(self) -> int:
        return seconds_to_ms(self.deal_time)

    @property
    def reserve_ms(self) -> int:
        return seconds_to_ms(self.reserve_time)

    @property
    def misere_bonus_ms(self) -> int:
        return seconds_to_ms(self.misere_bonus)

    @property
    def reserve_on(self) -> bool:
        """§8.6: the one test of "reserve on" (§8.3) against "off" (§8.2): a reserve that rounds to 0 ms
        is off everywhere — the engine, the clock and the table step all ask this."""
        return self.reserve_ms > 0

    def allpass_trick_price(self, step: int) -> int:
        """Trick price of the ``step``-th all-pass deal of a series (1-based): 2, 4, 6, 6, … (§6.5)."""
        progression = self.allpass_progression
        return progression[min(step, len(progression)) - 1]

    def timeout_penalty(self, seats: int) -> int:
        """Whists of penalty for a timeout (§5.8): 50 written by each other player."""
        return 50 * (seats - 1)


PRESETS: Final[dict[str, Conventions]] = {"fspr-leningrad": Conventions()}


def conventions_from(preset: str = "fspr-leningrad", overrides: dict[str, Any] | None = None) -> Conventions:
    """The named preset with per-field overrides applied, validated as a whole."""
    try:
        base = PRESETS[preset]
    except KeyError:
        raise ConventionError(f"preset: unknown preset {preset!r} (known: {', '.join(PRESETS)})") from None
    if not overrides:
        return base
    if "tournament" in overrides:
        raise ConventionError("tournament: set by a tournament's draw, not by a room (§9.1)")
    try:
        return Conventions.model_validate({**base.model_dump(), **overrides})
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "overrides"
        raise ConventionError(f"{field}: {first['msg']}") from None
