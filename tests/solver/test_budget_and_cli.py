"""Budgets, determinism and the command line (RULES.md §8.4: the robot gives up rather than stall)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading

import pytest

from app.engine.cards import parse_cards
from app.solver import CancelToken, Solver, SolverBudgetExceeded, SolverCancelled, solve
from app.solver.cancel import CANCEL_EVERY
from app.solver.misere import choose_discard
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


def test_a_raised_token_cancels_the_search_at_its_next_look(implementation: str) -> None:
    """The server's guard stops a search through its token: the search looks every CANCEL_EVERY nodes,
    so a token raised beforehand stops it exactly there, with a typed error that is not a budget's."""
    position = random_position(random.Random(8), 10, mid_trick=False)
    assert solve(position, implementation=implementation).nodes > CANCEL_EVERY
    token = CancelToken()
    token.cancel()
    with pytest.raises(SolverCancelled) as info:
        Solver(implementation, cancel=token).solve(position)
    assert info.value.nodes == CANCEL_EVERY and not isinstance(info.value, SolverBudgetExceeded)
    with pytest.raises(SolverCancelled):
        Solver(implementation, cancel=token).lowest_optimal(position)


def test_a_token_never_raised_changes_nothing(implementation: str) -> None:
    """Watching a token changes no answer and no node count (decisions depend on the position only)."""
    rng = random.Random(9)
    for _ in range(20):
        position = random_position(rng, 6)
        watched = Solver(implementation, cancel=CancelToken())
        assert watched.solve(position) == solve(position, implementation=implementation)
        watched, plain = Solver(implementation, cancel=CancelToken()), Solver(implementation)
        assert watched.lowest_optimal(position) == plain.lowest_optimal(position)
        assert watched.nodes == plain.nodes


def test_a_token_raised_from_another_thread_stops_a_running_search() -> None:
    """The compiled search runs without the GIL; the flag set by another thread still reaches it."""
    token = CancelToken()
    hand = parse_cards(["s7", "s8", "s9", "sT", "c7", "c8", "cT", "d7", "d9", "h7", "h9", "dA"])
    outcome: list[BaseException | None] = []

    def discard() -> None:
        try:
            choose_discard(hand, seed=3, leader=1, cancel=token)
        except SolverCancelled as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    worker = threading.Thread(target=discard)
    worker.start()
    token.cancel()
    worker.join()
    assert isinstance(outcome[0], SolverCancelled)
    assert 0 < outcome[0].nodes < choose_discard(hand, seed=3, leader=1).nodes


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
