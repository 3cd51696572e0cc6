"""The draw of a tournament round (RULES.md §9.2): who sits at which table, in which seat, who deals first.

`draw_round(players, history, standings, seed, …)` is a pure function: the same arguments give the same
draw, so a round is re-drawn identically from the seed stored with it.

- **Table sizes.** Everyone plays: as many tables of 4 as possible, then tables of 3 (n = 4a + 3b). Only
  n = 5 cannot be split: one table of 4 plays and one player has a bye (worth 0), chosen by fewest byes so
  far, then lowest standing, then the seed. When the organiser chose robots, a robot seat fills a table
  instead (n = 5 → two tables of 3, one with a robot seat; n < 3 → one table of 3).
- **Round 1** is seated at random (teammates still kept apart).
- **Later rounds** minimise, in this order: teammates at one table, pairs of players who have met before,
  and the spread of standings at each table (Swiss: close standings together). The search starts from the
  simple greedy seating (`greedy_tables`), the Swiss seating and a few seeded random seatings, and improves
  each by swapping two players of different tables while that lowers the cost; the cheapest wins. As the
  greedy seating is one of the starts, a round never has more new repeat meetings than the greedy one on
  the same history (the bound the tests check).
- **Seats and the first dealer** at each table are drawn [K 3.1.1].
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any, Final

# Weights of the lexicographic cost of a pair seated together: teammates ≫ a repeat meeting ≫ Swiss spread.
# A table's Swiss spread is at most 6 pairs × n places, so 10⁴ and 10⁷ keep the orders apart up to n = 400.
_TEAM: Final = 10**7
_REPEAT: Final = 10**4
_RANDOM_STARTS: Final = 4
MAX_PLAYERS: Final = 400


class DrawError(ValueError):
    """The players cannot be seated (too few, or a duplicate name); the message says why."""


@dataclass(frozen=True, slots=True)
class DrawnTable:
    """One table of a round: ``seats[i]`` is the player at seat i, None a robot seat (§9.2)."""

    number: int  # 1-based within the round
    seats: tuple[str | None, ...]
    first_dealer: int

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p for p in self.seats if p is not None)

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "seats": list(self.seats), "first_dealer": self.first_dealer}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> DrawnTable:
        seats = tuple(None if p is None else str(p) for p in data["seats"])
        return DrawnTable(int(data["number"]), seats, int(data["first_dealer"]))


@dataclass(frozen=True, slots=True)
class RoundDraw:
    """A round's draw: its tables, the players with a bye, and the seed it was drawn from."""

    round: int  # 1-based
    seed: int
    tables: tuple[DrawnTable, ...]
    byes: tuple[str, ...] = ()

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(t.seats) for t in self.tables)

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "seed": self.seed,
            "tables": [t.to_json() for t in self.tables],
            "byes": list(self.byes),
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> RoundDraw:
        return RoundDraw(
            int(data["round"]),
            int(data["seed"]),
            tuple(DrawnTable.from_json(t) for t in data["tables"]),
            tuple(str(p) for p in data.get("byes", ())),
        )


@dataclass(frozen=True, slots=True)
class TablePlan:
    """How n players are seated: table sizes (4s first), byes and robot seats."""

    sizes: tuple[int, ...]
    byes: int
    robot_seats: int


def table_plan(n: int, *, robots: bool = False) -> TablePlan:
    """Table sizes for ``n`` players (§9.2): most tables of 4, then 3s; n = 5 a bye, or a robot seat."""
    if n > MAX_PLAYERS:
        raise DrawError(f"at most {MAX_PLAYERS} players in a tournament, not {n}")
    if n == 5:
        return TablePlan((3, 3), 0, 1) if robots else TablePlan((4,), 1, 0)
    if n < 3:
        if robots and n >= 1:
            return TablePlan((3,), 0, 3 - n)
        raise DrawError(f"a round needs at least 3 players, not {n}")
    fours = n // 4
    while (n - 4 * fours) % 3:
        fours -= 1
    return TablePlan((4,) * fours + (3,) * ((n - 4 * fours) // 3), 0, 0)


def meetings(history: Iterable[RoundDraw]) -> dict[frozenset[str], int]:
    """How many times each pair of players sat at one table in ``history``."""
    met: dict[frozenset[str], int] = {}
    for draw in history:
        for table in draw.tables:
            for a, b in combinations(table.players, 2):
                key = frozenset((a, b))
                met[key] = met.get(key, 0) + 1
    return met


def repeat_meetings(draw: RoundDraw, history: Iterable[RoundDraw]) -> int:
    """Pairs seated together in ``draw`` who had already met in ``history``."""
    met = meetings(history)
    return sum(frozenset((a, b)) in met for table in draw.tables for a, b in combinations(table.players, 2))


def repeat_pairs(rounds: Sequence[RoundDraw]) -> int:
    """Repeat meetings over a whole tournament: the sum over rounds of `repeat_meetings`."""
    return sum(repeat_meetings(draw, rounds[:i]) for i, draw in enumerate(rounds))


def places(players: Iterable[str], standings: Mapping[str, Fraction | int]) -> dict[str, int]:
    """Each player's place by score (1 = best; equal scores share the place)."""
    scores = {p: Fraction(standings.get(p, 0)) for p in players}
    return {p: 1 + sum(other > s for other in scores.values()) for p, s in scores.items()}


class _Cost:
    """The cost of seating two players together, from the history, the standings and the teams."""

    def __init__(
        self,
        met: Mapping[frozenset[str], int],
        place: Mapping[str, int],
        teams: Mapping[str, str],
        swiss: bool,
    ) -> None:
        self.met, self.place, self.teams, self.swiss = met, place, teams, swiss

    def pair(self, a: str | None, b: str | None) -> int:
        if a is None or b is None:
            return 0
        cost = 0
        team = self.teams.get(a)
        if team is not None and team == self.teams.get(b):
            cost += _TEAM
        if frozenset((a, b)) in self.met:
            cost += _REPEAT
        if self.swiss:
            cost += abs(self.place[a] - self.place[b])
        return cost

    def table(self, seats: Sequence[str | None]) -> int:
        return sum(self.pair(a, b) for a, b in combinations(seats, 2))

    def total(self, tables: Sequence[Sequence[str | None]]) -> int:
        return sum(self.table(t) for t in tables)


def _improve(tables: list[list[str | None]], cost: _Cost) -> list[list[str | None]]:
    """Swap two players of different tables while a swap lowers the cost (first improvement, in order)."""
    improved = True
    while improved:
        improved = False
        for ti, tj in combinations(range(len(tables)), 2):
            a_table, b_table = tables[ti], tables[tj]
            for i in range(len(a_table)):
                for j in range(len(b_table)):
                    a, b = a_table[i], b_table[j]
                    if a is None and b is None:
                        continue
                    rest_a = [x for k, x in enumerate(a_table) if k != i]
                    rest_b = [y for k, y in enumerate(b_table) if k != j]
                    delta = sum(cost.pair(b, x) - cost.pair(a, x) for x in rest_a) + sum(
                        cost.pair(a, y) - cost.pair(b, y) for y in rest_b
                    )
                    if delta < 0:
                        a_table[i], b_table[j] = b, a
                        improved = True
    return tables


def _chunk(order: Sequence[str | None], sizes: Sequence[int]) -> list[list[str | None]]:
    tables, at = [], 0
    for size in sizes:
        tables.append(list(order[at : at + size]))
        at += size
    return tables


def greedy_tables(
    order: Sequence[str | None], sizes: Sequence[int], met: Mapping[frozenset[str], int]
) -> list[list[str | None]]:
    """The simple greedy seating, the bound of the tests: players in ``order`` (standings), each to the
    table with room where he has already met the fewest players (the first such table on a tie)."""
    tables: list[list[str | None]] = [[] for _ in sizes]
    for player in order:
        best, best_count = -1, -1
        for k, size in enumerate(sizes):
            if len(tables[k]) >= size:
                continue
            count = (
                0
                if player is None
                else sum(x is not None and frozenset((player, x)) in met for x in tables[k])
            )
            if best < 0 or count < best_count:
                best, best_count = k, count
        tables[best].append(player)
    return tables


def standings_order(
    players: Sequence[str], standings: Mapping[str, Fraction | int], rng: random.Random
) -> list[str]:
    """Players best first; equal scores in a seeded random order."""
    keys = {p: rng.random() for p in players}
    return sorted(players, key=lambda p: (-Fraction(standings.get(p, 0)), keys[p]))


def draw_round(
    players: Iterable[str],
    history: Sequence[RoundDraw],
    standings: Mapping[str, Fraction | int],
    seed: int,
    *,
    teams: Mapping[str, str] | None = None,
    robots: bool = False,
) -> RoundDraw:
    """Draw round ``len(history) + 1`` (module docstring). ``standings`` maps a player to his score so
    far (missing: 0); ``teams`` a player to his team; ``robots``: the organiser lets robots fill a seat."""
    names = sorted(players)
    if len(set(names)) != len(names):
        raise DrawError("a player is listed twice")
    teams = teams or {}
    rng = random.Random(seed)
    plan = table_plan(len(names), robots=robots)
    round_number = len(history) + 1
    byes: list[str] = []
    if plan.byes:
        had = {p: sum(p in d.byes for d in history) for p in names}
        tiebreak = {p: rng.random() for p in names}
        byes = sorted(names, key=lambda p: (had[p], Fraction(standings.get(p, 0)), tiebreak[p]))[: plan.byes]
    seated = [p for p in names if p not in byes]
    first_round = not history
    met = meetings(history)
    cost = _Cost(met, places(seated, standings), teams, swiss=not first_round)
    robot_slots: list[str | None] = [None] * plan.robot_seats
    starts: list[list[list[str | None]]] = []
    if not first_round:
        order: list[str | None] = [*standings_order(seated, standings, rng), *robot_slots]
        starts.append(greedy_tables(order, plan.sizes, met))
        starts.append(_chunk(order, plan.sizes))
    for _ in range(1 if first_round else _RANDOM_STARTS):
        shuffled: list[str | None] = [*seated, *robot_slots]
        rng.shuffle(shuffled)
        starts.append(_chunk(shuffled, plan.sizes))
    best: list[list[str | None]] | None = None
    best_cost = 0
    for start in starts:
        tables = _improve(start, cost)
        total = cost.total(tables)
        if best is None or total < best_cost:
            best, best_cost = tables, total
    assert best is not None
    drawn = []
    for number, table in enumerate(best, start=1):
        seats = list(table)
        rng.shuffle(seats)  # seats and the first dealer are drawn [K 3.1.1]
        drawn.append(DrawnTable(number, tuple(seats), rng.randrange(len(seats))))
    return RoundDraw(round_number, seed, tuple(drawn), tuple(byes))
