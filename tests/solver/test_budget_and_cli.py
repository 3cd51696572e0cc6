"""Budgets, determinism and the command line (RULES.md §8.4: the robot gives up rather than stall)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from app.solver import Solver, SolverBudgetExceeded, solve
from tests.solver.positions import random_position


def _full_deal(seed: int) -> object:
    return random_position(random.Random(seed), 10, mid_trick=False)


def test_node_budget_raises_a_typed_error(implementation: str) -> None:
    """RULES.md §8.4: a search over its budget raises SolverBudgetExceeded (then the deal is adjourned)."""
    position = random_position(random.Random(3), 10, mid_trick=False)
    with pytest.raises(SolverBudgetExceeded) as info:
        solve(position, node_budget=50, implementation=implementation)
    assert info.value.nodes == 51


def test_node_budget_is_deterministic_and_enough_budget_changes_nothing(implementation: str) -> None:
    """RULES.md §10: the same position always takes the same nodes; a sufficient budget gives the answer."""
    position = random_position(random.Random(4), 8)
    first = solve(position, implementation=implementation)
    again = solve(position, node_budget=first.nodes, implementation=implementation)
    assert again == first
    with pytest.raises(SolverBudgetExceeded):
        solve(position, node_budget=first.nodes - 1, implementation=implementation)


def test_time_budget_stops_a_long_search(implementation: str) -> None:
    """RULES.md §8.4: a tiny time budget stops the search instead of running on."""
    position = random_position(random.Random(8), 10, mid_trick=False)
    with pytest.raises(SolverBudgetExceeded, match="time budget"):
        Solver(implementation).solve(position, time_budget=1e-9)


def _cli(data: str, *args: str, pure: bool = False) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("PREFERANS_PURE_SOLVER", None)
    if pure:
        env["PREFERANS_PURE_SOLVER"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "app.solver", *args],
        input=data,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


POSITION = {
    "hands": [["s7", "hA", "hQ"], ["sA", "hK", "h8"], ["c7", "c8", "c9"]],
    "trump": None,
    "mode": "contract",
    "declarer": 0,
    "leader": 0,
    "trick": [],
}


def test_cli_prints_tricks_best_cards_and_implementation() -> None:
    """RULES.md §10: the command line answers a position with the declarer's tricks and optimal cards."""
    done = _cli(json.dumps(POSITION), "--analyse")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["declarer_tricks"] == 2
    assert out["best"] == ["s7"]
    assert out["lowest"] == "s7"
    assert out["values"] == {"s7": 2, "hQ": 1, "hA": 1}
    assert out["implementation"] in ("cython", "python")
    assert out["nodes"] > 0


def test_cli_pure_switch_selects_the_python_kernel() -> None:
    """PREFERANS_PURE_SOLVER=1 forces the pure kernel; the answer is the same."""
    out = json.loads(_cli(json.dumps(POSITION), pure=True).stdout)
    assert out["implementation"] == "python"
    assert out["declarer_tricks"] == 2


@pytest.mark.parametrize(
    "data",
    [
        "not json",
        json.dumps({**POSITION, "hands": [["s7", "hA"], ["sA", "hK", "h8"], ["c7", "c8", "c9"]]}),
        json.dumps({**POSITION, "hands": [["s7", "hA", "hA"], ["sA", "hK", "h8"], ["c7", "c8", "c9"]]}),
        json.dumps(
            {
                **POSITION,
                "leader": 1,
                "trick": ["sA", "c7"],
                "hands": [["s7", "hA", "hQ"], ["hK", "h8"], ["s8", "c9"]],
            }
        ),
    ],
)
def test_cli_rejects_invalid_positions_with_status_2(data: str) -> None:
    """An invalid position gets a one-line error and exit status 2."""
    done = _cli(data)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1


def test_cli_budget_exceeded_exits_3() -> None:
    done = _cli(json.dumps(POSITION), "--node-budget", "2")
    assert done.returncode == 3
    assert "budget" in done.stderr
