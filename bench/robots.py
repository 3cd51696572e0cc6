"""Robot strength and speed (issue 12): duels in whist balance per deal, misère defence, decision times.

    .venv/bin/python bench/robots.py [--random-deals 300] [--easy-deals 2000] [--misere-deals 200] [--seed 12]

Prints one JSON line per part and a final summary line with every target checked:

- ``strong_vs_random``: duel ``strong random random`` (3 seats). Target: strong wins by a wide margin
  (we call "wide" at least 50 whists a deal, its 95% interval above zero).
- ``strong_vs_easy``: duel ``strong easy easy`` over at least 2,000 deals. Target: strong's 95% interval
  excludes zero (above it).
- ``misere_defence``: misère deals from the solver bench's generator of playable misère hands (nine
  cards 7–10 and one higher; the declarer bids misère without talon so his ten cards are exactly those),
  the declarer playing the double-dummy lowest optimal card (he sees the defenders' open hands; the
  strongest declarer there is), two `strong` robots catching. Among the deals a double-dummy defence
  catches, the share the robots catch. Target: >= 90%.
- ``decision_ms``: wall time of every `strong` decision of the parts run (``--parts``),
  measured here around `decide` (the robot itself never reads a clock): median and p99, overall and per
  phase. Target: median <= 200 ms, p99 <= 1000 ms.

The duels use `app.robots.duel` (boards of rotated seatings, whist balance per deal, normal 95% interval
over boards). One process, one core; the machine is shared, so times carry its load.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine import (
    Action,
    Bid,
    MakeBid,
    PassBid,
    Phase,
    PlayCard,
    Shuffle,
    apply,
    current_actor,
    legal_actions,
    new_table,
    view,
)
from app.engine.cards import DECK, Card
from app.engine.state import TableState
from app.robots import Robot
from app.robots.duel import DealPlayed, duel
from app.solver import Position, Solver

TIMES: dict[str, list[float]] = defaultdict(list)


def timed_decider(robot: Robot, seen: dict[str, Any], legal: list[Action], seed: int) -> Action:
    start = time.perf_counter()
    action = robot.act(seen, legal, seed)
    if robot.level.name == "strong":
        TIMES[seen["phase"]].append(time.perf_counter() - start)
    return action


def misere_deck(rng: random.Random, declarer_slot: int) -> tuple[Card, ...]:
    """A deck giving a playable misère hand (9 cards 7–10, one higher) to active seat ``declarer_slot``."""
    low = [c for c in DECK if c.rank <= 3]
    high = [c for c in DECK if c.rank > 3]
    hand = rng.sample(low, 9) + rng.sample(high, 1)
    rest = [c for c in DECK if c not in hand]
    rng.shuffle(rest)
    slots = [rest[0:10], rest[10:20]]
    slots.insert(declarer_slot, hand)
    return tuple(slots[0] + slots[1] + slots[2] + rest[20:22])


def _over(state: TableState) -> bool:
    # A call, not an inline comparison: mypy keeps the phase narrowed by the assert before the loop.
    return state.phase is Phase.DEAL_OVER


def misere_deal(rng: random.Random, seed: int) -> tuple[bool, bool]:
    """(double-dummy defence catches, the strong robots caught) for one generated misère deal."""
    slot = rng.randrange(3)
    state = new_table(3, first_dealer=0)
    state, _ = apply(state, Shuffle(misere_deck(rng, slot)))
    deal = state.deal
    assert deal is not None
    declarer = deal.active[slot]
    while state.phase is Phase.BIDDING:
        seat = current_actor(state)
        bid = MakeBid(declarer, Bid.parse("misere-nt")) if seat == declarer else PassBid(seat)  # type: ignore[arg-type]
        state, _ = apply(state, bid)
    assert state.phase is Phase.PLAY and state.deal is not None
    active = state.deal.active
    hands = tuple(state.deal.hands[s] for s in active)
    start = Position((hands[0], hands[1], hands[2]), None, True, active.index(declarer), 0)
    session = Solver()
    dd_caught = session.declarer_makes(start, 1)
    robots = {s: Robot("strong") for s in active if s != declarer}
    step = 0
    while not _over(state):
        seat = current_actor(state)
        assert seat is not None and state.deal is not None
        step += 1
        if seat == declarer:
            d = state.deal
            order = d.active
            leader = d.trick[0][0] if d.trick else seat
            pos = Position(tuple(d.hands[s] for s in order), None, True, order.index(declarer),  # type: ignore[arg-type]
                           order.index(leader), tuple(c for _, c in d.trick))  # fmt: skip
            card, _ = session.lowest_optimal(pos)
            action: Action = PlayCard(seat, card)
        else:
            action = timed_decider(robots[seat], view(state, seat), legal_actions(state), seed * 1000 + step)
        state, _ = apply(state, action)
    assert state.last_result is not None and state.last_result.tricks is not None
    return dd_caught, state.last_result.tricks[declarer] > 0


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {"n": len(ordered), "median_ms": round(1000 * statistics.median(ordered), 1),
            "p99_ms": round(1000 * p99, 1), "max_ms": round(1000 * ordered[-1], 1)}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--random-deals", type=int, default=300)
    parser.add_argument("--easy-deals", type=int, default=2000)
    parser.add_argument("--misere-deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--parts", default="random,easy,misere", help="which parts to run, comma-separated")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    checks: dict[str, bool] = {}

    if "random" in parts:
        random_part(args, checks)
    if "easy" in parts:
        easy_part(args, checks)
    if "misere" in parts:
        misere_part(args, checks)
    every = [t for ts in TIMES.values() for t in ts]
    overall = summary(every)
    phases = {p: summary(ts) for p, ts in sorted(TIMES.items())}
    print(json.dumps({"part": "decision_ms", "strong": overall, "by_phase": phases}), flush=True)
    checks["decision median <= 200 ms"] = overall["median_ms"] <= 200
    checks["decision p99 <= 1000 ms"] = overall["p99_ms"] <= 1000
    print(json.dumps({"targets": checks, "all_met": all(checks.values())}))
    return 0


def progress(played: DealPlayed) -> None:
    PLAYED[0] += 1
    if PLAYED[0] % 50 == 0:
        print(f"... {PLAYED[0]} deals", file=sys.stderr, flush=True)


PLAYED = [0]


def random_part(args: argparse.Namespace, checks: dict[str, bool]) -> None:
    started = time.perf_counter()
    vs_random = duel(
        ["strong", "random", "random"], args.random_deals, args.seed, decider=timed_decider, on_deal=progress
    )
    seconds = round(time.perf_counter() - started)
    print(json.dumps({"part": "strong_vs_random", **vs_random, "seconds": seconds}), flush=True)
    checks["strong beats random by >= 50 whists/deal"] = vs_random["ci95"][0][0] >= 50


def easy_part(args: argparse.Namespace, checks: dict[str, bool]) -> None:
    started = time.perf_counter()
    vs_easy = duel(
        ["strong", "easy", "easy"], args.easy_deals, args.seed + 1, decider=timed_decider, on_deal=progress
    )
    seconds = round(time.perf_counter() - started)
    print(json.dumps({"part": "strong_vs_easy", **vs_easy, "seconds": seconds}), flush=True)
    checks["strong beats easy, 95% CI above 0, >= 2000 deals"] = (
        vs_easy["ci95"][0][0] > 0 and vs_easy["deals"] >= 2000
    )


def misere_part(args: argparse.Namespace, checks: dict[str, bool]) -> None:
    rng = random.Random(args.seed + 2)
    dd = caught_when_dd = robots_only = 0
    started = time.perf_counter()
    for i in range(args.misere_deals):
        dd_caught, caught = misere_deal(rng, args.seed * 10_000 + i)
        dd += dd_caught
        caught_when_dd += dd_caught and caught
        robots_only += caught and not dd_caught
    share = caught_when_dd / dd if dd else 1.0
    print(json.dumps({"part": "misere_defence", "deals": args.misere_deals, "dd_caught": dd,
                      "robots_caught_of_those": caught_when_dd, "share": round(share, 3),
                      "robots_caught_dd_clean": robots_only,
                      "seconds": round(time.perf_counter() - started)}), flush=True)  # fmt: skip
    checks["misère defence catches >= 90% of double-dummy catches"] = share >= 0.9


if __name__ == "__main__":
    sys.exit(main())
