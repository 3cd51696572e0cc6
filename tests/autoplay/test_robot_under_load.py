"""Robot decisions depend on the position only, never on the machine's speed (issue 9, RULES.md §8.4).

The same misère discard and the same finish-or-interrupt decision come out with a process spinning on
each of the machine's cores as on a quiet machine. The discard hand is one of the costliest playable
misère hands found by bench/solver.py (about 11 M nodes, most of a second on the dev machine when idle);
the robot that stopped on a wall-clock budget discarded ♠K ♦K from it when stopped at a quarter of a
second, ♠K ♥9 when left to finish.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from app.autoplay import TimeoutOutcome, timeout_actions
from app.autoplay.robot import SolverRobot, position_of
from app.engine import Card, MakeBid, PassBid, Phase, PlayCard, TableState, apply, current_actor
from app.engine.cards import parse_cards
from app.solver import Solver
from app.solver.misere import ROUNDS, DiscardChoice, choose_discard
from tests.autoplay.helpers import bid, play
from tests.autoplay.test_robot import whisted_six
from tests.engine.helpers import start

HEAVY = "s7 s8 s9 sK c7 c8 cT d7 d9 dT dK h9"
SPIN = "import sys\nprint('spinning', flush=True)\nwhile True:\n    pass\n"


@contextmanager
def cpu_hog() -> Iterator[list[subprocess.Popen[bytes]]]:
    """One spinning process per core (at least two), running until the block ends."""
    count = max(2, os.cpu_count() or 2)
    hogs = [subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE) for _ in range(count)]
    try:
        for hog in hogs:
            assert hog.stdout is not None and hog.stdout.readline() == b"spinning\n"
        yield hogs
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def misere_discard_table() -> TableState:
    """Seat 2 bids misère on the heavy hand (ten cards and the talon's two); seat 2 must discard."""
    cards = HEAVY.split()
    state = start(3, 0, hands={2: " ".join(cards[:10])}, talon=" ".join(cards[10:]))
    state = play(state, PassBid(1), MakeBid(2, bid("misere")), PassBid(0))
    assert state.phase is Phase.DISCARD and current_actor(state) == 2
    return state


def costliest_decision(state: TableState) -> int:
    """Nodes of the costliest card decision when the robot finishes the deal from ``state``."""
    seat = current_actor(state)
    assert seat is not None
    session, worst = Solver(), 0
    for action in timeout_actions(state, seat, reserve_on=True, robot=SolverRobot()).actions:
        if isinstance(action, PlayCard):
            session.lowest_optimal(position_of(state))
            worst = max(worst, session.nodes)
        state, _ = apply(state, action)
    return worst


Decisions = tuple[DiscardChoice, tuple[Card, Card], TimeoutOutcome, TimeoutOutcome]


def decisions(tight_budget: int) -> Decisions:
    """The discard search on the heavy hand, the discard robot at the table, a robot finish, and the
    same finish with a node budget below its costliest card (interrupted)."""
    heavy = choose_discard(parse_cards(HEAVY.split()), seed=1, leader=1)
    robot_discard = SolverRobot().misere_discard(misere_discard_table())
    finish = timeout_actions(whisted_six(seed=3), 1, reserve_on=True, robot=SolverRobot())
    tight = SolverRobot(node_budget=tight_budget)
    interrupt = timeout_actions(whisted_six(seed=3), 1, reserve_on=True, robot=tight)
    return heavy, robot_discard, finish, interrupt


def test_the_same_decisions_with_every_core_busy() -> None:
    tight_budget = costliest_decision(whisted_six(seed=3)) - 1
    quiet = decisions(tight_budget)
    heavy, _, finish, interrupt = quiet
    assert heavy.rounds == len(ROUNDS) and heavy.nodes > 5_000_000  # the whole search ran
    assert heavy.cards == tuple(parse_cards(["sK", "h9"]))
    assert finish.state.phase is Phase.DEAL_OVER and finish.interrupted is None
    assert interrupt.state.phase is Phase.INTERRUPTED and interrupt.interrupted is not None
    with cpu_hog() as hogs:
        loaded = decisions(tight_budget)
        assert all(hog.poll() is None for hog in hogs)  # the load lasted throughout
    assert loaded == quiet
