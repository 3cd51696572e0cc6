"""Figures for the clock and the timeout procedure (RULES.md §8): run ``.venv/bin/python bench/clock.py``.

Prints the cost of one clock step (stop + start, as the server does per action), of a JSON round-trip,
and the wall time of the timeout procedure finishing a whole card play with the solver robot (§8.4),
over a few seeded deals.
"""

from __future__ import annotations

import random
import statistics
import time

from app.autoplay import timeout_actions
from app.autoplay.robot import SolverRobot
from app.clock import ClockSettings, ReserveClock
from app.engine import (
    Bid,
    CallWhist,
    Discard,
    MakeBid,
    NameContract,
    PassBid,
    WhistCall,
    apply,
    new_table,
    shuffle_action,
)
from app.engine.conventions import Conventions
from app.solver import IMPLEMENTATION


def bench_clock(steps: int = 200_000) -> None:
    clock = ReserveClock.new(3, ClockSettings.from_conventions(Conventions()))
    now = 0
    began = time.perf_counter()
    for i in range(steps):
        clock = clock.start(i % 3, now)
        now += 7
        clock = clock.stop(now, lag_ms=3)
    per_step = (time.perf_counter() - began) / steps
    began = time.perf_counter()
    for _ in range(steps // 10):
        ReserveClock.from_json(clock.to_json())
    per_json = (time.perf_counter() - began) / (steps // 10)
    print(f"clock: start+stop {per_step * 1e6:.2f} µs/action; JSON round-trip {per_json * 1e6:.2f} µs")


def bench_robot(deals: int = 20) -> None:
    times = []
    for seed in range(deals):
        state = new_table(3, Conventions(), first_dealer=0)
        state, _ = apply(state, shuffle_action(random.Random(seed)))
        for bid in (PassBid(1), MakeBid(2, Bid.parse("6s")), PassBid(0)):
            state, _ = apply(state, bid)
        assert state.deal is not None
        hand = state.deal.hands[2]
        for action in (
            Discard(2, (hand[0], hand[1])),
            NameContract(2, Bid.parse("6s")),
            CallWhist(0, WhistCall.WHIST),
            CallWhist(1, WhistCall.WHIST),
        ):
            state, _ = apply(state, action)
        began = time.perf_counter()
        out = timeout_actions(state, 1, reserve_on=True, robot=SolverRobot())
        times.append(time.perf_counter() - began)
        assert out.deal_finished
    print(
        f"robot ({IMPLEMENTATION} kernel): finishing a whole 10-trick card play, {deals} deals: "
        f"median {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    bench_clock()
    bench_robot()
