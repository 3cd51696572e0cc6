"""Layouts: the unseen cards dealt into the hidden hands consistently with what the seat knows.

Every card goes to a slot it may lie in (`Knowledge.allowed`: voids shown by play, a shown talon kept with
the declarer); slots get exactly their sizes. Cards are placed most-constrained first, each into one of its
allowed slots with probability proportional to the room left there, which is uniform when nothing
constrains the deal. A dead end (rare: voids leave no room) restarts the deal.

The bidding model is a filter (`Plausible`): a layout whose hands contradict the auction is redrawn, up to
a few times per layout, and kept anyway when no fitting layout turns up, so the robot never stalls on an
auction it misreads. It is deliberately simple (see `auction_model`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from app.engine.cards import Card
from app.robots.knowledge import DEAD, Knowledge

Layout = dict[int, tuple[Card, ...]]  # hidden seat (or DEAD) -> cards
Plausible = Callable[[Layout], bool]

_RESTARTS = 20
_REDRAWS = 6


def _deal_once(know: Knowledge, rng: random.Random) -> Layout | None:
    room = dict(know.slots)
    cards = list(know.pool)
    rng.shuffle(cards)
    cards.sort(key=lambda c: len(know.allowed[c]))  # stable: random order within equal constraint
    out: dict[int, list[Card]] = {s: [] for s in room}
    for card in cards:
        places = [s for s in sorted(know.allowed[card]) if room[s] > 0]
        total = sum(room[s] for s in places)
        if total == 0:
            return None
        pick = rng.randrange(total)
        for s in places:
            pick -= room[s]
            if pick < 0:
                out[s].append(card)
                room[s] -= 1
                break
    return {s: tuple(sorted(cs, key=lambda c: c.index)) for s, cs in out.items()}


def deal_layout(know: Knowledge, rng: random.Random) -> Layout:
    for _ in range(_RESTARTS):
        layout = _deal_once(know, rng)
        if layout is not None:
            return layout
    # Inferred voids that no layout satisfies (they cannot contradict each other in a real deal, but a
    # memory gap can make them look so): deal ignoring them rather than fail.
    relaxed = Knowledge(**{**know.__dict__, "allowed": {c: frozenset(know.slots) for c in know.pool}})
    layout = _deal_once(relaxed, rng)
    assert layout is not None
    return layout


def layouts(
    know: Knowledge, count: int, rng: random.Random, plausible: Plausible | None = None
) -> list[Layout]:
    """``count`` layouts; with ``plausible``, each is redrawn a few times until it fits the auction."""
    out = []
    for _ in range(count):
        layout = deal_layout(know, rng)
        if plausible is not None:
            for _ in range(_REDRAWS):
                if plausible(layout):
                    break
                layout = deal_layout(know, rng)
        out.append(layout)
    return out


def full_hands(know: Knowledge, layout: Layout) -> dict[int, tuple[Card, ...]]:
    """Every active seat's hand in this layout: seen hands as they are, hidden ones from the layout."""
    hands = {s: know.hands[s] for s in know.active if s in know.hands}
    for s in know.hidden():
        hands[s] = layout[s]
    return hands


def unused(layout: Layout) -> tuple[Card, ...]:
    return layout.get(DEAD, ())
