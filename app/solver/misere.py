"""The misère discard robot (RULES.md §8.4): two discards chosen from the declarer's 12 cards only.

The robot does not look at the other hands (seed 000: "не на открытых картах"). It deals the 20 unseen
cards into the two defenders' hands at random from ``seed`` and asks the solver, for each candidate
discard, whether the defenders can force the declarer to take a trick in that layout. Candidates are
narrowed by successive halving: every candidate plays the first layouts, the better half goes on to more
layouts, and so on. The pick is the candidate caught in the fewest layouts; ties go to the discard that
throws away the higher cards (the danger a misère player sheds first), then to the lower card indices.

Deterministic for a given seed and cards: the work is fixed (a node budget per layout); ``time_budget``
only guards the server, and when it cuts in the pick is made from the rounds finished so far.
"""

from __future__ import annotations

import random
import time
from itertools import combinations

from app.engine.cards import DECK, Card
from app.solver import _impl
from app.solver._pure import MODE_TEST
from app.solver.errors import InvalidPosition, SolverBudgetExceeded

# (layouts added in the round, candidates kept after it); 66 candidates to start.
ROUNDS = ((6, 24), (6, 12), (12, 6), (24, 3), (48, 1))
LAYOUT_NODE_BUDGET = 400_000


def _static_preference(pair: tuple[Card, Card], kept: list[Card]) -> int:
    """Higher is better: shed high cards, and a suit emptied entirely cannot be caught."""
    voided = sum(1 for s in {c.suit for c in pair} if all(c.suit != s for c in kept))
    return pair[0].rank + pair[1].rank + 4 * voided


def misere_discard(
    cards12: tuple[Card, ...] | list[Card],
    *,
    seed: int,
    time_budget: float = 1.0,
    leader: int | None = None,
    implementation: str | None = None,
) -> tuple[Card, Card]:
    """The two cards to discard (in card-index order) from a misère declarer's hand and talon.

    ``leader`` is the solver seat of the first lead with the declarer as seat 0 and the defenders as
    seats 1 and 2 clockwise (first hand leads, RULES.md §4.9); ``None`` spreads the layouts evenly over
    the three possible first leaders.
    """
    cards = sorted(set(cards12), key=lambda c: c.index)
    if len(cards) != 12 or len(cards12) != 12 or not all(isinstance(c, Card) for c in cards):
        raise InvalidPosition("a misère discard needs the declarer's 12 distinct cards (hand and talon)")
    if leader is not None and leader not in (0, 1, 2):
        raise InvalidPosition(f"leader must be a seat 0, 1 or 2, not {leader!r}")
    kernel = _impl.KERNELS[implementation or _impl.IMPLEMENTATION]()
    unseen = [c.index for c in DECK if c not in cards]
    rng = random.Random(seed)
    leaders = (leader,) if leader is not None else (1, 2, 0)
    layouts: list[tuple[int, int, int]] = []  # (first defender mask, second defender mask, leader)

    def add_layouts(count: int) -> None:
        for _ in range(count):
            deal = unseen[:]
            rng.shuffle(deal)
            lead = leaders[len(layouts) % len(leaders)]
            layouts.append((sum(1 << c for c in deal[:10]), sum(1 << c for c in deal[10:]), lead))

    pairs = list(combinations(cards, 2))
    full = sum(1 << c.index for c in cards)
    order = {pair: _static_preference(pair, [c for c in cards if c not in pair]) for pair in pairs}
    caught = dict.fromkeys(pairs, 0)
    tried = dict.fromkeys(pairs, 0)
    deadline = time.perf_counter() + time_budget

    def rank(candidates: list[tuple[Card, Card]]) -> list[tuple[Card, Card]]:
        return sorted(
            candidates,
            key=lambda p: (caught[p] / max(tried[p], 1), -order[p], p[0].index, p[1].index),
        )

    candidates = pairs
    for added, keep in ROUNDS:
        start = len(layouts)
        add_layouts(added)
        this_round: dict[tuple[Card, Card], int] = {}
        for pair in candidates:
            hand = full & ~(1 << pair[0].index) & ~(1 << pair[1].index)
            count = 0
            for d1, d2, lead in layouts[start:]:
                time_left = deadline - time.perf_counter()
                if time_left <= 0:
                    break
                try:
                    caught_here, _ = kernel.run(
                        (hand, d1, d2), -1, True, 0, lead, (), MODE_TEST, 1, LAYOUT_NODE_BUDGET, time_left
                    )
                except SolverBudgetExceeded:
                    if time.perf_counter() >= deadline:
                        break
                    caught_here = 1  # too tangled to prove clean within budget: count it as a risk
                count += caught_here
            else:
                this_round[pair] = count
                continue
            break
        if len(this_round) < len(candidates):
            # Out of time: an unfinished round would compare candidates on different layouts, so the
            # pick stands on the rounds completed.
            break
        for pair, count in this_round.items():
            caught[pair] += count
            tried[pair] += added
        candidates = rank(candidates)[:keep]
    best = rank(candidates)[0]
    return best[0], best[1]
