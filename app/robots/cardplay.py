"""Choosing a card: solve sampled layouts, play the card that does best on average.

Per role (the hand to play may be a partner's open hand, played by a lone whister or a whisting dealer):

| role | objective over the layouts |
|---|---|
| declarer of a trick game | most tricks, counting making the contract extra |
| defender of a trick game | fewest declarer tricks, counting a defeat extra |
| misère declarer | fewest layouts where he takes a trick, then fewest tricks |
| misère defender (catcher) | most layouts where the declarer takes a trick, then most tricks |
| all-pass player | fewest own tricks, the other two assumed to play against him ("paranoid") |

All-pass tricks 1 and 2, led by a talon card, have four cards, which the solver does not model: there the
robot follows a simple rule (duck under the highest card if it can, else shed its highest). Ties between
cards go to the lowest card, except where shedding is the point (misère declarer, all-pass): the highest.
"""

from __future__ import annotations

import random

from app.engine.cards import Card
from app.engine.state import TALON
from app.robots.knowledge import Knowledge
from app.robots.layouts import Plausible, full_hands, layouts
from app.robots.levels import Level
from app.robots.search import card_values, position
from app.solver import Solver


def hand_to_play(know: Knowledge, legal: list[Card]) -> int:
    """The hand whose card is due: the seen hand holding the legal cards."""
    for seat, cards in know.hands.items():
        if legal[0] in cards and seat in know.active:
            return seat
    raise ValueError("the legal cards are in no hand this seat sees")


def talon_trick_card(know: Knowledge, legal: list[Card], hand: int) -> Card:
    """All-pass trick led by the talon: duck under the highest card of the led suit, else shed high."""
    led = know.trick[0][1].suit
    top = max(c.rank for _, c in know.trick if c.suit == led)
    follow = [c for c in legal if c.suit == led]
    if follow:
        under = [c for c in follow if c.rank < top]
        if under:
            return max(under, key=lambda c: c.rank)
        last = len(know.trick) == len(know.active)  # talon + the others before me
        return max(follow, key=lambda c: c.rank) if last else min(follow, key=lambda c: c.rank)
    return max(legal, key=lambda c: (c.rank, -len([x for x in legal if x.suit == c.suit]), c.suit))


def choose_card(
    know: Knowledge,
    legal: list[Card],
    level: Level,
    rng: random.Random,
    plausible: Plausible | None = None,
) -> Card:
    if len(legal) == 1:
        return legal[0]
    hand = hand_to_play(know, legal)
    if know.trick and know.trick[0][0] == TALON:
        return talon_trick_card(know, legal, hand)
    if level.noise and rng.random() < level.noise:
        return rng.choice(legal)
    allpass = know.allpass
    misere = allpass or (know.contract is not None and know.contract.is_misere)
    declarer = hand if allpass else know.declarer
    assert declarer is not None
    trick = tuple(c for _, c in know.trick)
    leader = know.trick[0][0] if know.trick else hand
    session = Solver()
    totals: dict[Card, list[int]] = {c: [] for c in legal}
    for layout in layouts(know, level.card_layouts, rng, plausible):
        hands = full_hands(know, layout)
        pos = position(know.active, hands, trump=None if misere else know.trump, misere=misere,
                       declarer=declarer, leader=leader, trick=trick)  # fmt: skip
        values = card_values(session, pos, level.node_budget)
        if values is None:
            continue
        for card, v in values.items():
            if card in totals:
                totals[card].append(v)
    scored = {c: vs for c, vs in totals.items() if vs}
    if not scored:
        return min(legal, key=lambda c: (c.rank, c.suit))
    already = know.taken.get(declarer, 0)
    contract = know.contract

    def merit(values: list[int]) -> float:
        """Higher is better for the hand to play."""
        n = len(values)
        mean = sum(values) / n
        if allpass:
            return -mean
        assert contract is not None
        if contract.is_misere:
            caught = sum(1 for v in values if v + already > 0) / n
            score = 10 * caught + mean
            return -score if hand == declarer else score
        made = sum(1 for v in values if v + already >= contract.level) / n
        score = mean + 2 * made
        return score if hand == declarer else -score

    shed = allpass or (contract is not None and contract.is_misere and hand == declarer)
    best = max(merit(vs) for vs in scored.values())
    ties = [c for c, vs in scored.items() if merit(vs) >= best - 1e-9]
    if shed:
        return max(ties, key=lambda c: (c.rank, -c.suit))
    return min(ties, key=lambda c: (c.rank, c.suit))
