"""Robots against robots, away from the server: a measured "whist balance per deal" for each named robot.

A duel is played in **boards**. A board is one shuffled deck and a dealer; it is played once per rotation
of the robots around the table, so that every robot holds every hand of the deck, deals and leads equally
(duplicate scoring, as in bridge: the luck of the cards cancels). Odd boards seat the robots in the other
direction round the table, so no robot always sits after the same opponent (3 seats).
Each deal starts a fresh table outside any all-pass series (series step 1; no zastrel or 7♠ opening).

The measure, per deal and seat, is the whist balance of `app.robots.value.deal_balance`: the change that
deal makes to the pulya's exact settlement (RULES.md §7). A robot's figure is its mean over the deals it
played; the 95% interval treats each board's mean as one observation (normal approximation).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from app.engine.actions import Action, Shuffle, shuffle_action
from app.engine.conventions import Conventions
from app.engine.machine import apply, current_actor, legal_actions
from app.engine.result import DealResult
from app.engine.state import Phase, TableState, new_table
from app.engine.views import view
from app.robots.robot import Robot
from app.robots.value import deal_balance

Decider = Callable[[Robot, dict[str, Any], list[Action], int], Action]


def _default_decider(robot: Robot, seen: dict[str, Any], legal: list[Action], seed: int) -> Action:
    return robot.act(seen, legal, seed)


@dataclass(frozen=True)
class DealPlayed:
    board: int
    seating: tuple[int, ...]  # seating[seat] = index of the robot (in the order named) at that seat
    result: DealResult
    balance: tuple[Fraction, ...]  # per seat


def seatings(names: int, board: int) -> list[tuple[int, ...]]:
    """The seatings of one board: every rotation, in the board's direction round the table."""
    order = list(range(names))
    if board % 2 == 1:
        order = [order[0], *reversed(order[1:])]
    return [tuple(order[(seat + r) % names] for seat in range(names)) for r in range(names)]


def play_deal(
    deck: Shuffle,
    dealer: int,
    robots: list[Robot],
    seed: int,
    *,
    conventions: Conventions,
    decider: Decider = _default_decider,
) -> TableState:
    """One deal of ``deck`` with ``robots[seat]`` at each seat; returns the finished state."""
    state = new_table(len(robots), conventions, first_dealer=dealer)
    state, _ = apply(state, deck)
    step = 0
    while state.phase is not Phase.DEAL_OVER:
        seat = current_actor(state)
        assert seat is not None
        step += 1
        action = decider(robots[seat], view(state, seat), legal_actions(state), seed * 1009 + step)
        state, _ = apply(state, action)
    return state


def duel(
    levels: list[str],
    deals: int,
    seed: int,
    *,
    conventions: Conventions | None = None,
    decider: Decider = _default_decider,
    on_deal: Callable[[DealPlayed], None] | None = None,
) -> dict[str, Any]:
    """Play about ``deals`` deals (whole boards) and return the duel's JSON summary."""
    n = len(levels)
    if n not in (3, 4):
        raise ValueError(f"a duel seats 3 or 4 robots, not {n}")
    conv = conventions or Conventions()
    rng = random.Random(seed)
    boards = max(1, math.ceil(deals / n))
    per_board: list[list[float]] = [[] for _ in range(n)]
    totals = [Fraction(0)] * n
    played = 0
    for board in range(boards):
        deck = shuffle_action(rng)
        dealer = board % n
        sums = [Fraction(0)] * n
        for r, seating in enumerate(seatings(n, board)):
            robots = [Robot(levels[seating[seat]], conv) for seat in range(n)]
            deal_seed = (seed * 100_003 + board) * 8 + r
            state = play_deal(deck, dealer, robots, deal_seed, conventions=conv, decider=decider)
            assert state.last_result is not None
            balance = deal_balance(state.last_result, conv)
            for seat in range(n):
                sums[seating[seat]] += balance[seat]
            played += 1
            if on_deal is not None:
                on_deal(DealPlayed(board, seating, state.last_result, balance))
        for i in range(n):
            totals[i] += sums[i]
            per_board[i].append(float(sums[i]) / n)
    whists = [round(float(t) / played, 3) for t in totals]
    return {"deals": played, "whists": whists, "ci95": [_ci95(xs) for xs in per_board]}


def _ci95(xs: list[float]) -> list[float]:
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return [round(m, 3), round(m, 3)]
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    half = 1.96 * math.sqrt(var / len(xs))
    return [round(m - half, 3), round(m + half, 3)]
