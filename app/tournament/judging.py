"""Judges' tournament-point adjustments and the appeals against them (RULES.md §9.5), as pure records.

A judge (the room's operator or an administrator) gives a player tournament points outside the pulya, e.g.
seed 002's −100 for arguing with the judge; each adjustment records the judge, the time and the reason.
The §11 sanctions inside a pulya stay on the table's sheet (`app.engine.scoring.violations`).

A player appeals a judge's decision concerning him. Appeals are heard after the tournament [K 4.2.16] by
an administrator other than the judge who decided and the appellant (the seed's «апелляционная комиссия»)
**[ours]**, who
upholds the decision or changes it (the new points, 0 annulling it); the standings follow the latest
hearing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any, Final

ARGUING_WITH_THE_JUDGE: Final = -100  # seed 002: «Нарушитель штрафуется -100 турнирными баллами»
MAX_POINTS: Final = 100_000
MAX_TEXT: Final = 2_000


class JudgingError(ValueError):
    """A decision or an appeal that the rules do not allow; the message says which rule."""


class Verdict(StrEnum):
    DECISION_UPHELD = "decision_upheld"  # the judge's decision stands: the appeal is dismissed
    DECISION_CHANGED = "decision_changed"  # the appeal succeeds: the points become the hearing's


@dataclass(frozen=True, slots=True)
class Adjustment:
    """A judge's tournament-point decision about one player."""

    id: int
    player: str
    points: int
    judge: str
    at_ms: int
    reason: str
    round: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "player": self.player,
            "points": self.points,
            "judge": self.judge,
            "at_ms": self.at_ms,
            "reason": self.reason,
            "round": self.round,
        }


@dataclass(frozen=True, slots=True)
class Appeal:
    """A player's appeal against adjustment ``adjustment``, and its hearing once heard."""

    id: int
    adjustment: int
    player: str
    reason: str
    filed_ms: int
    verdict: Verdict | None = None
    heard_by: str | None = None
    heard_ms: int | None = None
    points: int | None = None  # the points in force after a DECISION_CHANGED verdict
    note: str | None = None

    @property
    def heard(self) -> bool:
        return self.verdict is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "adjustment": self.adjustment,
            "player": self.player,
            "reason": self.reason,
            "filed_ms": self.filed_ms,
            "verdict": None if self.verdict is None else self.verdict.value,
            "heard_by": self.heard_by,
            "heard_ms": self.heard_ms,
            "points": self.points,
            "note": self.note,
        }


def _text(name: str, value: str) -> str:
    value = value.strip()
    if not value:
        raise JudgingError(f"{name}: a decision states its reason")
    if len(value) > MAX_TEXT:
        raise JudgingError(f"{name}: at most {MAX_TEXT} characters")
    return value


def _points(points: int) -> int:
    if not -MAX_POINTS <= points <= MAX_POINTS:
        raise JudgingError(f"points: at most {MAX_POINTS} either way")
    return points


def adjust(
    id: int,
    player: str,
    points: int,
    *,
    judge: str,
    at_ms: int,
    reason: str,
    round: int | None = None,
    judge_plays: bool = False,
) -> Adjustment:
    """A judge's adjustment (§9.5): a non-zero number of tournament points with its reason. A judge who
    plays in the tournament (registered, not withdrawn: ``judge_plays``) judges none of it, so that nobody
    judges his own cause or his rivals' **[ours]**."""
    if judge_plays:
        raise JudgingError("a judge who plays in the tournament does not judge it")
    if points == 0:
        raise JudgingError("points: an adjustment of 0 changes nothing")
    return Adjustment(id, player, _points(points), judge, at_ms, _text("reason", reason), round)


def file_appeal(id: int, adjustment: Adjustment, player: str, *, reason: str, filed_ms: int) -> Appeal:
    """The player concerned appeals the decision (§9.5); anyone else may not."""
    if player != adjustment.player:
        raise JudgingError("only the player a decision concerns may appeal it")
    return Appeal(id, adjustment.id, player, _text("reason", reason), filed_ms)


def hear_appeal(
    appeal: Appeal,
    adjustment: Adjustment,
    *,
    admin: str,
    tournament_over: bool,
    verdict: Verdict,
    points: int | None = None,
    note: str,
    heard_ms: int,
) -> Appeal:
    """An administrator hears the appeal after the tournament (§9.5): upholds or changes the decision."""
    if appeal.heard:
        raise JudgingError("the appeal has already been heard")
    if not tournament_over:
        raise JudgingError("appeals are heard after the tournament [K 4.2.16]")
    if admin == adjustment.judge:
        raise JudgingError("the judge who decided does not hear the appeal against his decision")
    if admin == appeal.player:
        raise JudgingError("the appellant does not hear his own appeal")
    if verdict is Verdict.DECISION_CHANGED:
        if points is None:
            raise JudgingError("points: a changed decision states the points in force (0 annuls it)")
        points = _points(points)
    else:
        points = None
    return replace(
        appeal, verdict=verdict, heard_by=admin, heard_ms=heard_ms, points=points, note=_text("note", note)
    )


def points_in_force(adjustment: Adjustment, appeals: Iterable[Appeal]) -> int:
    """The adjustment's points after the latest hearing that changed it."""
    points = adjustment.points
    heard = sorted(
        (a for a in appeals if a.adjustment == adjustment.id and a.heard), key=lambda a: a.heard_ms or 0
    )
    for appeal in heard:
        if appeal.verdict is Verdict.DECISION_CHANGED and appeal.points is not None:
            points = appeal.points
    return points


def net_adjustments(adjustments: Iterable[Adjustment], appeals: Iterable[Appeal]) -> dict[str, Fraction]:
    """Each player's net tournament points in force (the standings' adjustments)."""
    appeals = list(appeals)
    out: dict[str, Fraction] = {}
    for adjustment in adjustments:
        out[adjustment.player] = out.get(adjustment.player, Fraction(0)) + points_in_force(
            adjustment, appeals
        )
    return out


def by_id(adjustments: Iterable[Adjustment]) -> Mapping[int, Adjustment]:
    return {a.id: a for a in adjustments}
