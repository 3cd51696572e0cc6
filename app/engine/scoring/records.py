"""The pulya's three columns and one written entry (RULES.md §5): pool (пуля), mountain (гора), whists.

Every change to a score sheet is a list of `Write` values with the reason spelled out, so each history
line of the sheet says what was written where and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class ScoringError(ValueError):
    """A deal result or sanction the score sheet cannot write; ``field`` names the offending field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class Column(StrEnum):
    POOL = "pool"  # пуля
    MOUNTAIN = "mountain"  # гора
    WHISTS = "whists"  # висты, written by ``seat`` on ``target``


@dataclass(frozen=True, slots=True)
class Write:
    column: Column
    seat: int
    amount: int
    reason: str
    target: int | None = None  # whists only: the seat the whists are written on

    def __post_init__(self) -> None:
        if (self.column is Column.WHISTS) != (self.target is not None):
            raise ValueError("whists and only whists name a target seat")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"column": self.column.value, "seat": self.seat, "amount": self.amount}
        if self.target is not None:
            out["on"] = self.target
        out["reason"] = self.reason
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> Write:
        on = data.get("on")
        return Write(
            column=Column(data["column"]),
            seat=int(data["seat"]),
            amount=int(data["amount"]),
            reason=str(data["reason"]),
            target=None if on is None else int(on),
        )

    def __str__(self) -> str:
        sign = f"{self.amount:+d}"
        if self.target is not None:
            return f"seat {self.seat} writes {self.amount} whists on seat {self.target} ({self.reason})"
        return f"seat {self.seat} {self.column.value} {sign} ({self.reason})"


def pool(seat: int, amount: int, reason: str) -> Write:
    return Write(Column.POOL, seat, amount, reason)


def mountain(seat: int, amount: int, reason: str) -> Write:
    return Write(Column.MOUNTAIN, seat, amount, reason)


def whists(seat: int, on: int, amount: int, reason: str) -> Write:
    return Write(Column.WHISTS, seat, amount, reason, on)


def net_writes(writes: list[Write]) -> dict[tuple[Column, int, int | None], int]:
    """Totals per (column, seat, target); entries that cancel out are dropped."""
    totals: dict[tuple[Column, int, int | None], int] = {}
    for w in writes:
        key = (w.column, w.seat, w.target)
        totals[key] = totals.get(key, 0) + w.amount
    return {key: amount for key, amount in totals.items() if amount}
