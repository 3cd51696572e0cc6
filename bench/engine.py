"""Random complete deals per second through the engine (target: at least 1,000 on one core).

Run: ``python bench/engine.py [--deals N]``. Prints one JSON line per seat count, median of 5 runs.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from app.engine.randomplay import play_deal
from app.engine.state import new_table


def deals_per_second(seats: int, deals: int, seed: int) -> float:
    rng = random.Random(seed)
    state = new_table(seats)
    started = time.perf_counter()
    for _ in range(deals):
        state = play_deal(state, rng)
    return deals / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for seats in (3, 4):
        rates = [deals_per_second(seats, args.deals, seed) for seed in range(args.runs)]
        print(json.dumps({"bench": "engine_random_deals", "seats": seats, "deals_per_run": args.deals,
                          "median_deals_per_second": round(statistics.median(rates)),
                          "min": round(min(rates)), "max": round(max(rates)), "target": 1000}))  # fmt: skip


if __name__ == "__main__":
    main()
