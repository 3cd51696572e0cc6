"""A whole tournament played by robots away from the server, through the same pure code as the server:
the draw (`draw`), the round end by a simulated clock (`roundend`), the indices and standings (`scores`).

Time is simulated: every robot decision takes a seeded 2–10 s and every shuffle 15 s, so a round of
``round_minutes`` plays a realistic number of deals. All tables of a round start at 0; the table whose
clock is earliest acts next. The announcement is due at `RoundClock.warning_at`; a table hears it at its
first step from then on, in the deal it is in (the state as it stood at the warning).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from app.engine.actions import shuffle_action
from app.engine.conventions import Conventions
from app.engine.machine import apply, current_actor, legal_actions
from app.engine.scoring import ScoreSheet
from app.engine.scoring.settlement import settle
from app.engine.state import Phase, TableState, new_table
from app.engine.views import view
from app.robots.robot import Robot
from app.tournament.draw import RoundDraw, draw_round, repeat_pairs
from app.tournament.roundend import EndReason, RoundClock, TableEnd
from app.tournament.scores import TableScore, ZeroSumError, standings, table_indices, team_standings
from app.tournament.seating import tournament_conventions

SHUFFLE_MS: Final = 15_000
THINK_MS: Final = (2_000, 10_000)
MAX_DEALS: Final = 500  # a guard against a clock that never reaches the warning
_BETWEEN_DEALS: Final = (Phase.AWAITING_DEAL, Phase.DEAL_OVER)


@dataclass
class SimTable:
    number: int
    players: tuple[str | None, ...]
    state: TableState
    sheet: ScoreSheet
    robots: list[Robot]
    end: TableEnd
    time_ms: int = 0
    seed: int = 0
    steps: int = 0
    deals_started_ms: list[int] = field(default_factory=list)  # when each deal was shuffled

    @property
    def over(self) -> bool:
        return self.end.ended is not None


@dataclass
class Simulation:
    """What `simulate` played: every round's draw and every table's score."""

    players: list[str]
    draws: list[RoundDraw] = field(default_factory=list)
    tables: list[TableScore] = field(default_factory=list)
    zero_sum_tables: int = 0
    last_dealers_marked: int = 0
    teams: dict[str, str] = field(default_factory=dict)

    def everyone_played(self, robots_fill: bool) -> bool:
        """Every player seated in every round, or having the one bye a round of 5 allows (§9.2)."""
        for draw in self.draws:
            seated = [p for t in draw.tables for p in t.players]
            if len(seated) != len(set(seated)) or set(seated) | set(draw.byes) != set(self.players):
                return False
            allowed = 1 if len(self.players) == 5 and not robots_fill else 0
            if len(draw.byes) > allowed:
                return False
        return True

    def to_json(self) -> dict[str, Any]:
        rows = standings(self.players, self.tables, None)
        out: dict[str, Any] = {
            "players": len(self.players),
            "rounds": len(self.draws),
            "tables": [list(d.sizes) for d in self.draws],
            "repeat_pairs": repeat_pairs(self.draws),
            "zero_sum_tables": self.zero_sum_tables,
            "tables_total": len(self.tables),
            "standings": [
                {k: v for k, v in r.to_json().items() if k in ("player", "score", "positive_rounds", "best")}
                for r in rows
            ],
        }
        if self.teams:
            out["teams"] = [t.to_json() for t in team_standings(rows, self.teams)]
        return out


def player_names(count: int) -> list[str]:
    width = len(str(count))
    return [f"p{i:0{width}d}" for i in range(1, count + 1)]


def _play_step(table: SimTable, rng: random.Random) -> None:
    """One step of the table: a shuffle between deals or one robot decision."""
    state = table.state
    if state.phase in _BETWEEN_DEALS:
        table.deals_started_ms.append(table.time_ms)
        table.state, _ = apply(state, shuffle_action(rng))
        table.time_ms += SHUFFLE_MS
        return
    seat = current_actor(state)
    assert seat is not None
    table.steps += 1
    action = table.robots[seat].act(
        view(state, seat), legal_actions(state), table.seed * 1_000_003 + table.steps
    )
    table.state, _ = apply(state, action)
    table.time_ms += rng.randint(*THINK_MS)
    if table.state.phase is Phase.DEAL_OVER:
        result = table.state.last_result
        assert result is not None
        table.sheet = table.sheet.apply(result)


def play_round(
    draw: RoundDraw,
    conventions: Conventions,
    clock: RoundClock,
    rng: random.Random,
    level: str,
    *,
    deaf: frozenset[int] = frozenset(),
) -> list[tuple[SimTable, EndReason]]:
    """Play every table of ``draw`` to its end (§9.3) on the simulated clock. Tables numbered in ``deaf``
    do not hear the announcement (as if adjourned or waiting for a player when it was made)."""
    tables = [
        SimTable(
            number=t.number,
            players=t.seats,
            state=new_table(len(t.seats), conventions, t.first_dealer),
            sheet=ScoreSheet.new(len(t.seats), conventions),
            robots=[Robot(level, conventions) for _ in t.seats],
            end=TableEnd(len(t.seats), t.first_dealer),
            time_ms=clock.started_ms,
            seed=rng.randrange(2**31),
        )
        for t in draw.tables
    ]
    ended: list[tuple[SimTable, EndReason]] = []
    while True:
        live = [t for t in tables if not t.over]
        if not live:
            return ended
        table = min(live, key=lambda t: (t.time_ms, t.number))
        state = table.state
        if not table.end.announced and not table.end.missed and clock.warning_due(table.time_ms):
            table.end = table.end.miss() if table.number in deaf else table.end.announce(state.deal_number)
        if state.phase in _BETWEEN_DEALS and state.deal_number > 0:
            others = all(t.over for t in tables if t is not table)
            reason = table.end.ends_after_deal(state.deal_number, others_ended=others)
            if reason is None and state.deal_number >= MAX_DEALS:
                reason = EndReason.OTHER
            if reason is not None:
                table.end = table.end.end(reason)
                ended.append((table, reason))
                continue
        _play_step(table, rng)


def simulate(
    players: int,
    rounds: int,
    seed: int,
    *,
    teams: int = 0,
    level: str = "easy",
    round_minutes: float = 40,
    robots_fill: bool = False,
) -> Simulation:
    """Draw and play ``rounds`` rounds of ``players`` robot players (module docstring)."""
    names = player_names(players)
    conventions = tournament_conventions(Conventions())
    team_of = {p: f"T{i % teams + 1}" for i, p in enumerate(names)} if teams else {}
    sim = Simulation(names, teams=team_of)
    rng = random.Random(seed)
    length = round(round_minutes * 60_000)
    warning = round(conventions.round_end_warning * 1000)
    for _ in range(rounds):
        scores = {r.player: r.score for r in standings(names, sim.tables)}
        draw = draw_round(names, sim.draws, scores, rng.randrange(2**31), teams=team_of, robots=robots_fill)
        sim.draws.append(draw)
        for table, _reason in play_round(draw, conventions, RoundClock(0, length, warning), rng, level):
            try:
                indices = table_indices(settle(table.sheet))
            except ZeroSumError:
                indices = tuple(Fraction(v) for v in settle(table.sheet).result)
            else:
                sim.zero_sum_tables += 1
            if table.end.last_dealer is not None:
                sim.last_dealers_marked += 1
            sim.tables.append(TableScore(draw.round, table.number, table.players, indices))
    return sim


def tables_per_round(sim: Simulation) -> Sequence[Sequence[int]]:
    return [d.sizes for d in sim.draws]
