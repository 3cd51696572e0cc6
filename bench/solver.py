"""Solver speed on seeded random full deals (10 tricks each): compiled kernel, pure kernel, ratio.

    .venv/bin/python bench/solver.py [--deals 1000] [--pure-deals 60] [--repeat 3] [--seed 2026]

Deals cycle through a trump contract, no-trump and misère; the declarer and the first leader are drawn at
random. Each solve is ``app.solver.solve`` from the first lead (value and every optimal card) on a fresh
table, timed with perf_counter on one core. A further sample, "misère, playable hands", gives the
declarer a hand a player would bid misère with (at most one card above the ten); random misère hands,
where the declarer takes several tricks, are the longer searches.
The compiled table's times are each the fastest of --repeat solves (each on a fresh table: the same
work every time) so that a busy shared machine shows less in them; the pure kernel and the speed ratio
use single solves of both kernels.
Targets (issue 4): contracts median <= 1 ms, misère median <= 5 ms, p99 <= 20 ms, compiled >= 100x pure.

"Robot decisions" sizes the robots' node budgets (issue 9): every card of --robot-deals deals played out
by the solver robot (`Solver.lowest_optimal` on an emptied table each card, as `SolverRobot` does), and
the misère discard robot on --discards random twelve-card hands and on playable misère hands. It prints
the nodes of the costliest decision, the search speed in nodes per second, and so the seconds the default
budgets (`DEFAULT_NODE_BUDGET`, `DISCARD_NODE_BUDGET`) would take at that speed: the worst case a robot can
cost before it gives up, to be compared with the server's guard (`PREFERANS_ROBOT_GUARD_SECONDS`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.autoplay.robot import DEFAULT_NODE_BUDGET
from app.engine.cards import DECK, Card, Suit
from app.solver import KERNELS, Position, Solver
from app.solver.misere import DISCARD_NODE_BUDGET, choose_discard


def deals(count: int, seed: int) -> list[tuple[str, Position]]:
    rng = random.Random(seed)
    out: list[tuple[str, Position]] = []
    for i in range(count):
        cards = list(DECK)
        rng.shuffle(cards)
        hands = (tuple(cards[0:10]), tuple(cards[10:20]), tuple(cards[20:30]))
        kind = ("trump", "no-trump", "misère")[i % 3]
        trump = Suit(rng.randrange(4)) if kind == "trump" else None
        position = Position(hands, trump, kind == "misère", rng.randrange(3), rng.randrange(3), ())
        out.append((kind, position))
    return out


def playable_misere_deals(count: int, seed: int) -> list[tuple[str, Position]]:
    rng = random.Random(seed)
    out: list[tuple[str, Position]] = []
    low = [c for c in DECK if c.rank <= 3]  # 7 8 9 10
    high = [c for c in DECK if c.rank > 3]
    while len(out) < count:
        declarer_hand: list[Card] = rng.sample(low, 9) + rng.sample(high, 1)
        rest = [c for c in DECK if c not in declarer_hand]
        rng.shuffle(rest)
        declarer = rng.randrange(3)
        hands: list[tuple[Card, ...]] = [(), (), ()]
        hands[declarer] = tuple(declarer_hand)
        hands[(declarer + 1) % 3] = tuple(rest[0:10])
        hands[(declarer + 2) % 3] = tuple(rest[10:20])
        position = Position((hands[0], hands[1], hands[2]), None, True, declarer, rng.randrange(3), ())
        out.append(("misère, playable hands", position))
    return out


def run(
    sample: list[tuple[str, Position]], implementation: str, repeat: int = 1
) -> dict[str, list[tuple[float, int]]]:
    out: dict[str, list[tuple[float, int]]] = {}
    for kind, position in sample:
        elapsed = float("inf")
        for _ in range(repeat):
            solver = Solver(implementation)
            start = time.perf_counter()
            solution = solver.solve(position)
            elapsed = min(elapsed, (time.perf_counter() - start) * 1000)
        out.setdefault(kind, []).append((elapsed, solution.nodes))
        if kind in ("trump", "no-trump"):
            out.setdefault("contracts", []).append((elapsed, solution.nodes))
        if kind in ("trump", "no-trump", "misère"):
            out.setdefault("all random deals", []).append((elapsed, solution.nodes))
    return out


def robot_decisions(sample: list[tuple[str, Position]], implementation: str) -> None:
    """Every card of every deal as the solver robot plays it; the costliest decisions and the speed."""
    by_kind: dict[str, list[int]] = {}
    deal_nodes: list[int] = []
    nodes_total = 0
    seconds = 0.0
    for _, start_position in sample:
        session = Solver(implementation)
        total = 0
        position = start_position
        while position.tricks_left:
            start = time.perf_counter()
            session.clear()
            card, _ = session.lowest_optimal(position)
            seconds += time.perf_counter() - start
            by_kind.setdefault("misère" if position.misere else "contracts", []).append(session.nodes)
            total += session.nodes
            position, _ = position.play(card)
        deal_nodes.append(total)
        nodes_total += total
    rate = nodes_total / seconds
    print(f"  {'card decisions':<24}{'count':>7}{'median nodes':>14}{'p99 nodes':>11}{'max nodes':>11}")
    for kind, nodes in sorted(by_kind.items()):
        print(
            f"  {kind:<24}{len(nodes):>7}{statistics.median(nodes):>14.0f}{percentile(nodes, 0.99):>11.0f}"
            f"{max(nodes):>11}"
        )
    print(f"  whole deals: max {max(deal_nodes)} nodes; speed {rate / 1e6:.2f} M nodes/s")
    costliest = max(max(n) for n in by_kind.values())
    print(
        f"  DEFAULT_NODE_BUDGET {DEFAULT_NODE_BUDGET:,} nodes = {DEFAULT_NODE_BUDGET / rate:.1f} s at this"
        f" speed ({DEFAULT_NODE_BUDGET / costliest:.0f}x the costliest decision)"
    )


def discard_hands(count: int, seed: int) -> list[tuple[str, tuple[Card, ...]]]:
    rng = random.Random(seed)
    low = [c for c in DECK if c.rank <= 3]
    high = [c for c in DECK if c.rank > 3]
    out: list[tuple[str, tuple[Card, ...]]] = []
    for i in range(count):
        if i % 2:
            out.append(("playable misère hands", tuple(rng.sample(low, 10) + rng.sample(high, 2))))
        else:
            out.append(("random hands", tuple(rng.sample(DECK, 12))))
    return out


def robot_discards(hands: list[tuple[str, tuple[Card, ...]]], implementation: str) -> None:
    """The misère discard robot: nodes and time per discard, the speed, the default budget in seconds."""
    rows: dict[str, list[tuple[int, float, int]]] = {}
    for i, (kind, cards) in enumerate(hands):
        start = time.perf_counter()
        choice = choose_discard(cards, seed=i, leader=(1, 2, 0)[i % 3], implementation=implementation)
        rows.setdefault(kind, []).append((choice.nodes, time.perf_counter() - start, choice.rounds))
    print(
        f"  {'discards':<24}{'count':>7}{'median nodes':>14}{'max nodes':>11}{'median ms':>11}{'max ms':>9}"
    )
    for kind, found in sorted(rows.items()):
        nodes = [r[0] for r in found]
        ms = [r[1] * 1000 for r in found]
        print(
            f"  {kind:<24}{len(found):>7}{statistics.median(nodes):>14.0f}{max(nodes):>11}"
            f"{statistics.median(ms):>11.1f}{max(ms):>9.1f}"
        )
    every = [r for found in rows.values() for r in found]
    rate = sum(r[0] for r in every) / sum(r[1] for r in every)
    short = sum(1 for r in every if r[2] < 5)
    print(f"  speed {rate / 1e6:.2f} M nodes/s; discards cut short by the node budget: {short}")
    print(
        f"  DISCARD_NODE_BUDGET {DISCARD_NODE_BUDGET:,} nodes = {DISCARD_NODE_BUDGET / rate:.1f} s at this"
        f" speed ({DISCARD_NODE_BUDGET / max(r[0] for r in every):.1f}x the costliest discard)"
    )


def _solve_all(positions: list[Position]) -> None:
    for position in positions:
        Solver("cython").solve(position)


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def report(title: str, results: dict[str, list[tuple[float, int]]]) -> None:
    print(f"\n{title}")
    print(f"  {'kind':<24}{'deals':>7}{'median ms':>11}{'p99 ms':>9}{'max ms':>9}{'mean nodes':>12}")
    for kind in ("all random deals", "contracts", "trump", "no-trump", "misère", "misère, playable hands"):
        rows = results.get(kind)
        if not rows:
            continue
        ms = [r[0] for r in rows]
        print(
            f"  {kind:<24}{len(rows):>7}{statistics.median(ms):>11.3f}{percentile(ms, 0.99):>9.2f}"
            f"{max(ms):>9.2f}{statistics.mean(r[1] for r in rows):>12.0f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--pure-deals", type=int, default=60)
    parser.add_argument("--playable-misere", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3, help="compiled solves per deal, the fastest kept")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--robot-deals", type=int, default=1500, help="deals the robot plays out (0: skip)")
    parser.add_argument("--discards", type=int, default=200, help="hands for the discard robot (0: skip)")
    parser.add_argument("--robot-only", action="store_true", help="only the robot decisions")
    args = parser.parse_args()
    if args.robot_only:
        robot_section(args)
        return
    sample = deals(args.deals, args.seed)
    playable = playable_misere_deals(args.playable_misere, args.seed + 1)
    print(f"kernels available: {', '.join(sorted(KERNELS))}")
    if "cython" not in KERNELS:
        print("the compiled kernel is not built; run `pip install -e .` first")
    compiled: dict[str, list[tuple[float, int]]] = {}
    if "cython" in KERNELS:
        compiled = run(sample + playable, "cython", args.repeat)
        report(
            f"compiled (cython), {args.deals} random deals + {len(playable)} playable misères"
            f" (fastest of {args.repeat} per deal)",
            compiled,
        )
    pure_sample = sample[: args.pure_deals] + playable[: args.pure_deals // 3]
    pure = run(pure_sample, "python")
    report(f"pure python, the first {args.pure_deals} deals + {args.pure_deals // 3} playable misères", pure)
    if compiled:
        print("\nthe compiled search releases the GIL: the first 300 deals in one thread, then in two")
        head = [p for _, p in sample[:300]]
        start = time.perf_counter()
        _solve_all(head)
        one = time.perf_counter() - start
        threads = [threading.Thread(target=_solve_all, args=(head[i::2],)) for i in range(2)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        two = time.perf_counter() - start
        print(f"  one thread {one * 1000:.0f} ms, two threads {two * 1000:.0f} ms, speed-up {one / two:.2f}")
        same = run(pure_sample, "cython")
        print("\nspeed ratio on the pure sample (same deals): pure total time / compiled total time,")
        print("and the median of the per-deal ratios")
        for kind in ("contracts", "misère", "misère, playable hands"):
            if kind in pure and kind in same:
                ratio = sum(r[0] for r in pure[kind]) / sum(r[0] for r in same[kind])
                per_deal = statistics.median(p[0] / c[0] for p, c in zip(pure[kind], same[kind], strict=True))
                nodes_equal = [r[1] for r in pure[kind]] == [r[1] for r in same[kind]]
                print(f"  {kind:<24}{ratio:>7.0f}x {per_deal:>7.0f}x   node counts identical: {nodes_equal}")

    robot_section(args)


def robot_section(args: argparse.Namespace) -> None:
    implementation = "cython" if "cython" in KERNELS else "python"
    print(f"\nrobot decisions ({implementation})")
    if args.robot_deals:
        sample = deals(args.robot_deals, args.seed + 2) + playable_misere_deals(
            args.robot_deals // 5, args.seed + 3
        )
        robot_decisions(sample, implementation)
    if args.discards:
        robot_discards(discard_hands(args.discards, args.seed + 4), implementation)


if __name__ == "__main__":
    main()
