"""The misère discard robot (RULES.md §8.4): two discards chosen from the declarer's 12 cards only.

The robot does not look at the other hands (seed 000: "не на открытых картах"). It deals the 20 unseen
cards into the two defenders' hands at random from ``seed`` and asks the solver, for each candidate
discard, whether the defenders can force the declarer to take a trick in that layout. Candidates are
narrowed by successive halving: every candidate plays the first layouts, the better half goes on to more
layouts, and so on. The pick is the candidate caught in the fewest layouts; ties go to the discard that
throws away the higher cards (the danger a misère player sheds first), then to the lower card indices.

A function of the cards, the seed and the leader only: no clock is read. The work is bounded by node
counts, deterministic in both kernels: each layout's search by `LAYOUT_NODE_BUDGET` (a layout too tangled
to prove clean within it counts as caught), the whole discard by ``node_budget``; when that runs out
mid-round the pick stands on the rounds completed. The rounds play at most 972 layouts (389 M nodes at
most); the costliest playable misère hand measured by bench/solver.py took 13 M nodes (median 3 M), so
`DISCARD_NODE_BUDGET` (60 M: 3–5 s on the quiet dev machine) bounds only the pathological case.
``cancel`` lets the server stop it from outside (`SolverCancelled`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations

from app.engine.cards import DECK, Card
from app.solver import _impl
from app.solver._pure import MODE_TEST
from app.solver.cancel import CancelToken
from app.solver.errors import InvalidPosition, SolverBudgetExceeded

# (layouts added in the round, candidates kept after it); 66 candidates to start.
ROUNDS = ((6, 24), (6, 12), (12, 6), (24, 3), (48, 1))
LAYOUT_NODE_BUDGET = 400_000
DISCARD_NODE_BUDGET = 60_000_000


def _static_preference(pair: tuple[Card, Card], kept: list[Card]) -> int:
    """Higher is better: shed high cards, and a suit emptied entirely cannot be caught."""
    voided = sum(1 for s in {c.suit for c in pair} if all(c.suit != s for c in kept))
    return pair[0].rank + pair[1].rank + 4 * voided


@dataclass(frozen=True, slots=True)
class DiscardChoice:
    """The discard and what it took: search nodes in all, and rounds completed (of `ROUNDS`)."""

    cards: tuple[Card, Card]
    nodes: int
    rounds: int


def misere_discard(
    cards12: tuple[Card, ...] | list[Card],
    *,
    seed: int,
    leader: int | None = None,
    node_budget: int = DISCARD_NODE_BUDGET,
    implementation: str | None = None,
    cancel: CancelToken | None = None,
) -> tuple[Card, Card]:
    """The two cards to discard (in card-index order) from a misère declarer's hand and talon.

    ``leader`` is the solver seat of the first lead with the declarer as seat 0 and the defenders as
    seats 1 and 2 clockwise (first hand leads, RULES.md §4.9); ``None`` spreads the layouts evenly over
    the three possible first leaders.
    """
    return choose_discard(
        cards12,
        seed=seed,
        leader=leader,
        node_budget=node_budget,
        implementation=implementation,
        cancel=cancel,
    ).cards


def choose_discard(
    cards12: tuple[Card, ...] | list[Card],
    *,
    seed: int,
    leader: int | None = None,
    node_budget: int = DISCARD_NODE_BUDGET,
    implementation: str | None = None,
    cancel: CancelToken | None = None,
) -> DiscardChoice:
    """`misere_discard` with the work it took (for benchmarks and tests)."""
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
    spent = 0
    rounds = 0

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
                left = node_budget - spent
                if left <= 0:
                    break
                budget = min(LAYOUT_NODE_BUDGET, left)
                try:
                    caught_here, _ = kernel.run(
                        (hand, d1, d2), -1, True, 0, lead, (), MODE_TEST, 1, budget, cancel
                    )
                except SolverBudgetExceeded:
                    if budget < LAYOUT_NODE_BUDGET:
                        break  # the whole discard's budget ran out, not this layout's
                    caught_here = 1  # too tangled to prove clean within budget: count it as a risk
                finally:
                    spent += kernel.nodes
                count += caught_here
            else:
                this_round[pair] = count
                continue
            break
        if len(this_round) < len(candidates):
            # Out of nodes: an unfinished round would compare candidates on different layouts, so the
            # pick stands on the rounds completed.
            break
        for pair, count in this_round.items():
            caught[pair] += count
            tried[pair] += added
        candidates = rank(candidates)[:keep]
        rounds += 1
    best = rank(candidates)[0]
    return DiscardChoice((best[0], best[1]), spent, rounds)
