"""The robots and claims (RULES.md §4.10): answering a claim, and the strong robot's own claims.

A robot reads only its own view (§12): during a claim that is its own hand, the declarer's hand (shown by
the claim), open hands, and the cards played. Every layout of the cards it cannot see that fits that view
is solved (`all_layouts`, up to `MAX_LAYOUTS`); the claim is proven when the declarer takes the claimed
tricks in every one of them (a misère: none).

- Answer: accept when the claim is proven, else reject. Once the declarer's hand is shown, a defender of an
  open whist or a misère sees every card in play, so it accepts exactly when the solver's verdict would
  uphold the claim; a closed defender cannot see its partner's hand and rejects what it cannot prove, so
  the solver decides — and upholds the claim when it stands in the true position.
- Claim (strong level only): the declarer claims "the rest" (a misère: "none of the rest") when it is
  proven in every layout of the defenders' hidden cards; when there are too many layouts it plays on.

The limits are counts (layouts, solver nodes per layout), never the clock: a layout whose search runs out
of nodes is not a proof.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from math import comb
from typing import Any

from app.engine.actions import AnswerClaim, Claim
from app.engine.cards import Card
from app.robots.knowledge import DEAD, Knowledge
from app.robots.layouts import Layout, full_hands
from app.solver import Position, Solver, SolverError

MAX_LAYOUTS = 120  # layouts solved for one proof; more and the robot does not try
NODE_BUDGET = 400_000  # solver nodes per layout
_SCAN_LIMIT = 5_000  # placements (before the voids shown) scanned for the layouts that fit


def all_layouts(know: Knowledge, limit: int = MAX_LAYOUTS) -> list[Layout] | None:
    """Every placement of the unseen cards into the hidden slots that fits the voids shown; None when
    there are more than ``limit``."""
    slots = sorted(know.slots.items())
    out: list[Layout] = []
    unconstrained, left = 1, len(know.pool)
    for _, size in slots:
        unconstrained, left = unconstrained * comb(left, size), left - size
    if unconstrained > _SCAN_LIMIT:  # far too many to prove anything: do not even scan them
        return None

    def place(index: int, left: tuple[Card, ...], layout: Layout) -> Iterator[Layout]:
        if index == len(slots):
            yield dict(layout)
            return
        slot, size = slots[index]
        for chosen in combinations(left, size):
            if all(slot in know.allowed[c] for c in chosen):
                rest = tuple(c for c in left if c not in chosen)
                yield from place(index + 1, rest, {**layout, slot: chosen})

    for layout in place(0, tuple(know.pool), {}):
        out.append(layout)
        if len(out) > limit:
            return None
    return out


def _position(know: Knowledge, layout: Layout) -> Position:
    assert know.declarer is not None and know.contract is not None
    hands = full_hands(know, layout)
    active = know.active
    leader = know.trick[0][0] if know.trick else know.declarer
    ordered = tuple(tuple(sorted(hands[s], key=lambda c: c.index)) for s in active)
    return Position(
        hands=(ordered[0], ordered[1], ordered[2]),
        trump=know.trump,
        misere=know.contract.is_misere,
        declarer=active.index(know.declarer),
        leader=active.index(leader),
        trick=tuple(card for _, card in know.trick),
    )


def proven(know: Knowledge, tricks: int, *, implementation: str | None = None) -> bool:
    """Whether the declarer takes ``tricks`` of the remaining ones (a misère: none) in every layout."""
    if know.declarer is None or know.contract is None or know.declarer not in know.hands:
        return False
    layouts = all_layouts(know)
    if layouts is None:
        return False
    solver = Solver(implementation)
    try:
        for layout in layouts:
            position = _position(know, layout)
            if know.contract.is_misere:
                if solver.declarer_makes(position, 1, node_budget=NODE_BUDGET):
                    return False
            elif not solver.declarer_makes(position, tricks, node_budget=NODE_BUDGET):
                return False
    except SolverError:
        return False
    return True


def answer(know: Knowledge, view: dict[str, Any]) -> AnswerClaim:
    """Accept the claim shown in ``view`` exactly when it is proven from what this seat sees."""
    claim = view["deal"]["claim"]
    return AnswerClaim(know.seat, proven(know, int(claim["tricks"])))


def claim_to_make(know: Knowledge, options: list[int]) -> Claim | None:
    """The strong declarer's claim when it is proven: the rest of the tricks (a misère: none of them)."""
    if not options or know.declarer != know.seat or know.contract is None:
        return None
    wanted = 0 if know.contract.is_misere else max(options)
    if wanted not in options or (not know.contract.is_misere and wanted == 0):
        return None
    return Claim(know.seat, wanted) if proven(know, wanted) else None


__all__ = ["DEAD", "MAX_LAYOUTS", "all_layouts", "answer", "claim_to_make", "proven"]
