"""Indices, standings and judging (RULES.md §9.4, §9.5)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from app.engine.conventions import Conventions
from app.engine.scoring import ScoreSheet
from app.engine.scoring.settlement import Settlement, settle
from app.tournament.judging import (
    ARGUING_WITH_THE_JUDGE,
    JudgingError,
    Verdict,
    adjust,
    file_appeal,
    hear_appeal,
    net_adjustments,
)
from app.tournament.scores import TableScore, ZeroSumError, standings, table_indices, team_standings
from app.tournament.simulate import simulate

F = Fraction


def test_indices_are_the_settlement_and_sum_to_zero() -> None:
    """RULES.md §7's worked check as a tournament table: A −153, B +114, C +39 (variant 1)."""
    sheet = ScoreSheet(3, Conventions(), (8, 12, 10), (14, 0, 6), ((0, 24, 0), (32, 0, 0), (32, 0, 0)))
    assert table_indices(settle(sheet)) == (F(-153), F(114), F(39))
    broken = Settlement((0, 0, 0), (1, 0, 0), (0, 0, 0), (F(0),) * 3, "kodeks", ())
    with pytest.raises(ZeroSumError):
        table_indices(broken)


def test_standings_rank_by_score_then_positive_rounds_then_best_and_ties_share() -> None:
    tables = [
        TableScore(1, 1, ("a", "b", "c"), (F(60), F(-30), F(-30))),
        TableScore(1, 2, ("d", "e", None), (F(30), F(0), F(-30))),
        TableScore(2, 1, ("a", "d", "e"), (F(-60), F(30), F(30))),
        TableScore(2, 2, ("b", "c", None), (F(30), F(30), F(-60)), provisional=True),
    ]
    rows = {r.player: r for r in standings("abcde", tables)}
    # d: 60 (2 positive); e: 30; a: 0 (1 positive, best 60); b, c: 0 (1 positive, best 30): tied
    assert [(p, rows[p].place) for p in "deabc"] == [("d", 1), ("e", 2), ("a", 3), ("b", 4), ("c", 4)]
    assert rows["a"].best == 60 and rows["b"].positive_rounds == 1
    assert rows["b"].provisional and not rows["a"].provisional
    with_penalty = {r.player: r for r in standings("abcde", tables, {"d": -100})}
    assert with_penalty["d"].score == -40 and with_penalty["d"].place == 5


def test_team_score_is_the_mean_and_the_sum_breaks_a_tie() -> None:
    tables = [TableScore(1, 1, ("a", "b", "c", "d"), (F(40), F(-20), F(0), F(-20)))]
    rows = standings("abcde", tables)
    teams = team_standings(rows, {"a": "X", "b": "X", "c": "Y", "d": "Z", "e": "Z"})
    assert [(t.team, t.score, t.place) for t in teams] == [("X", F(10), 1), ("Y", F(0), 2), ("Z", F(-10), 3)]


def test_a_judges_minus_100_and_an_appeal_that_changes_it() -> None:
    penalty = adjust(1, "b", ARGUING_WITH_THE_JUDGE, judge="op", at_ms=5, reason="argued with the judge")
    appeal = file_appeal(1, penalty, "b", reason="I only asked a question", filed_ms=6)
    assert net_adjustments([penalty], [appeal]) == {"b": -100}
    with pytest.raises(JudgingError):
        file_appeal(2, penalty, "c", reason="not mine", filed_ms=6)

    def hear(admin: str, over: bool):
        return hear_appeal(
            appeal, penalty, admin=admin, tournament_over=over, verdict=Verdict.DECISION_CHANGED, points=0,
            note="a question is no argument", heard_ms=9,
        )  # fmt: skip

    with pytest.raises(JudgingError):
        hear("root", False)  # heard after the tournament only
    with pytest.raises(JudgingError):
        hear("op", True)  # not by the judge who decided
    with pytest.raises(JudgingError, match="his own appeal"):
        hear("b", True)  # nor by the appellant (an administrator who played)
    heard = hear("root", True)
    assert net_adjustments([penalty], [heard]) == {"b": 0}
    upheld = hear_appeal(
        appeal,
        penalty,
        admin="root",
        tournament_over=True,
        verdict=Verdict.DECISION_UPHELD,
        note="stands",
        heard_ms=9,
    )
    assert net_adjustments([penalty], [upheld]) == {"b": -100}
    with pytest.raises(JudgingError):
        adjust(2, "b", 0, judge="op", at_ms=1, reason="nothing")
    with pytest.raises(JudgingError, match="plays in the tournament"):
        adjust(2, "b", -5, judge="op", at_ms=1, reason="argued", judge_plays=True)
    with pytest.raises(JudgingError):
        adjust(2, "b", -5, judge="op", at_ms=1, reason="  ")


def test_a_simulated_tournament_balances_every_table_and_seats_everyone() -> None:
    sim = simulate(11, 3, seed=4, teams=3, level="random", round_minutes=25)
    out = sim.to_json()
    assert out["tables"] == [[4, 4, 3]] * 3 and out["tables_total"] == 9 == out["zero_sum_tables"]
    assert sim.everyone_played(robots_fill=False) and sim.last_dealers_marked == 9
    assert sum(F(r["score"]) for r in out["standings"]) == 0  # every table sums to 0, so does the field
    assert [t["team"] for t in out["teams"]] and len(out["standings"]) == 11
    again = simulate(11, 3, seed=4, teams=3, level="random", round_minutes=25).to_json()
    assert again == out


def test_the_simulate_command_prints_one_json_line_and_exits_0() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "app.tournament", "simulate", "--players", "5", "--rounds", "2", "--seed", "3",
         "--robots", "random", "--round-minutes", "20"],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    [line] = run.stdout.splitlines()
    out = json.loads(line)
    assert out["players"] == 5 and out["rounds"] == 2 and out["tables"] == [[4], [4]]
    assert out["zero_sum_tables"] == out["tables_total"] == 2 and out["repeat_pairs"] == 3
    assert {"player", "score", "positive_rounds", "best"} == set(out["standings"][0])
