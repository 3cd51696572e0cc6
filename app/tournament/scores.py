"""Whist indices and standings (RULES.md §9.4).

A player's whist index at a table is his settlement there (§7, the tournament's variant: the table's
``result``); a table's indices sum to 0 («нулевой баланс»), which `table_indices` checks. The score is the
sum of a player's indices over the rounds plus the judges' adjustments in tournament points (1 point = 1
whist) **[ours]**; a bye is worth 0. The standings rank by score, then by rounds with a positive index,
then by the best single index; players still tied share the place **[ours]**. A team's score is the mean
of its members' scores, the sum breaking a tie **[ours]**. A table with a deal awaiting an award is
provisional, and so is every standing that counts it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from app.engine.scoring.settlement import Settlement


class ZeroSumError(ValueError):
    """A table's indices do not sum to 0: a bug that must never pass silently."""


def number_json(value: Fraction) -> int | str:
    """A score as JSON: an int when whole (the kodeks rounding always is), else the fraction "a/b"."""
    return int(value) if value.denominator == 1 else str(value)


def table_indices(settlement: Settlement) -> tuple[Fraction, ...]:
    """Each seat's whist index: the table's settlement result (§9.4), checked to sum to exactly 0."""
    indices = tuple(Fraction(v) for v in settlement.result)
    if sum(indices) != 0:
        raise ZeroSumError(f"the table's indices {indices} sum to {sum(indices)}, not 0")
    return indices


@dataclass(frozen=True, slots=True)
class TableScore:
    """A finished (or provisional) table of a round: each seat's player (None: a robot) and index."""

    round: int
    table: int
    players: tuple[str | None, ...]
    indices: tuple[Fraction, ...]
    provisional: bool = False  # a deal awaits an award (§8.4): the index may still change

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "table": self.table,
            "players": list(self.players),
            "indices": [number_json(v) for v in self.indices],
            "provisional": self.provisional,
        }


@dataclass(frozen=True, slots=True)
class Standing:
    player: str
    place: int
    score: Fraction
    positive_rounds: int
    best: Fraction | None  # None: no table played yet
    played: int  # tables counted
    adjustments: Fraction  # the judges' tournament points included in the score
    provisional: bool

    def key(self) -> tuple[Fraction, int, Fraction]:
        """Higher is better: score, rounds with a positive index, best index (§9.4)."""
        return (self.score, self.positive_rounds, self.best if self.best is not None else Fraction(0))

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "place": self.place,
            "score": number_json(self.score),
            "positive_rounds": self.positive_rounds,
            "best": None if self.best is None else number_json(self.best),
            "played": self.played,
            "adjustments": number_json(self.adjustments),
            "provisional": self.provisional,
        }


def standings(
    players: Iterable[str],
    tables: Iterable[TableScore],
    adjustments: Mapping[str, Fraction | int] | None = None,
) -> list[Standing]:
    """The standings of ``players`` from the tables counted so far and each player's net adjustment."""
    names = list(dict.fromkeys(players))
    indices: dict[str, list[Fraction]] = {p: [] for p in names}
    provisional: set[str] = set()
    for table in tables:
        for player, index in zip(table.players, table.indices, strict=True):
            if player is None or player not in indices:
                continue
            indices[player].append(index)
            if table.provisional:
                provisional.add(player)
    adjust = {p: Fraction((adjustments or {}).get(p, 0)) for p in names}
    rows = [
        Standing(
            player=p,
            place=0,
            score=sum(indices[p], Fraction(0)) + adjust[p],
            positive_rounds=sum(v > 0 for v in indices[p]),
            best=max(indices[p]) if indices[p] else None,
            played=len(indices[p]),
            adjustments=adjust[p],
            provisional=p in provisional,
        )
        for p in names
    ]
    keys = [r.key() for r in rows]
    ranked = [
        Standing(r.player, 1 + sum(k > key for k in keys), r.score, r.positive_rounds, r.best, r.played,
                 r.adjustments, r.provisional)
        for r, key in zip(rows, keys, strict=True)
    ]  # fmt: skip
    return sorted(ranked, key=lambda r: (r.place, r.player))


@dataclass(frozen=True, slots=True)
class TeamStanding:
    team: str
    place: int
    score: Fraction  # the mean of the members' scores
    total: Fraction  # their sum: the order of teams with equal means
    members: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "team": self.team,
            "place": self.place,
            "score": number_json(self.score),
            "total": number_json(self.total),
            "members": list(self.members),
        }


def team_standings(rows: Sequence[Standing], teams: Mapping[str, str]) -> list[TeamStanding]:
    """Teams ranked by the mean of their members' scores, then by the sum (§9.4 [ours])."""
    by_team: dict[str, list[Standing]] = {}
    for row in rows:
        team = teams.get(row.player)
        if team is not None:
            by_team.setdefault(team, []).append(row)
    raw = []
    for team, members in by_team.items():
        total = sum((m.score for m in members), Fraction(0))
        raw.append((team, total / len(members), total, tuple(sorted(m.player for m in members))))
    out = [
        TeamStanding(team, 1 + sum((m2, t2) > (mean, total) for _, m2, t2, _ in raw), mean, total, members)
        for team, mean, total, members in raw
    ]
    return sorted(out, key=lambda t: (t.place, t.team))
