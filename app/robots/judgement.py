"""Judging a contract before play: the declarer's double-dummy tricks on sampled layouts, and their worth.

`trick_samples` and `misere_samples` answer "how many tricks would the declarer take" for a hand that may
still take the talon; `expected_balance` turns a list of trick counts into this seat's mean whist balance
for an outcome, using the scoring engine (`app.robots.value`). With no layouts (the `easy` level) the
static estimate of `handeval` stands in for the solver.
"""

from __future__ import annotations

import random
from fractions import Fraction

from app.engine.bids import Bid
from app.engine.cards import Card, Suit
from app.engine.conventions import Conventions
from app.engine.result import DealKind, DealResult, PlayMode, WhistCall
from app.robots.handeval import keep_value, misere_danger, misere_discards, quick_tricks
from app.robots.knowledge import Knowledge
from app.robots.layouts import Plausible, full_hands, layouts, unused
from app.robots.levels import Level
from app.robots.search import declarer_tricks, misere_tricks, position
from app.robots.value import deal_balance
from app.solver import Solver

TrickCounts = list[int]


def greedy_discard(cards12: list[Card], trump: Suit | None) -> tuple[Card, ...]:
    """The two cards a declarer least wants to keep (cheap: used inside sampled layouts)."""
    order = sorted(cards12, key=lambda c: (keep_value(c, cards12, trump), c.index))
    return tuple(order[:2])


def declarer_hands(
    layout_hands: dict[int, tuple[Card, ...]],
    spare: tuple[Card, ...],
    declarer: int,
    *,
    strain: Suit | None,
    misere: bool,
) -> dict[int, tuple[Card, ...]]:
    """The layout's hands with the declarer's talon (``spare``) taken and two cards discarded."""
    hands = dict(layout_hands)
    if spare and len(hands[declarer]) == 10:
        twelve = [*hands[declarer], *spare]
        drop = misere_discards(twelve, 1)[0] if misere else greedy_discard(twelve, strain)
        hands[declarer] = tuple(c for c in twelve if c not in drop)
    return hands


def trick_samples(
    know: Knowledge,
    declarer: int,
    strains: list[Suit | None],
    level: Level,
    rng: random.Random,
    *,
    with_talon: bool,
    plausible: Plausible | None = None,
    misere: bool = False,
) -> dict[Suit | None, TrickCounts]:
    """Per strain, the declarer's double-dummy tricks on ``level.bid_layouts`` layouts (first hand leads).

    With ``misere`` the single strain None is judged as a misère (tricks the catchers force).
    """
    out: dict[Suit | None, TrickCounts] = {s: [] for s in strains}
    if level.bid_layouts == 0:
        return out
    session = Solver()
    for layout in layouts(know, level.bid_layouts, rng, plausible):
        base = full_hands(know, layout)
        spare = unused(layout)
        for strain in strains:
            hands = declarer_hands(base, spare if with_talon else (), declarer, strain=strain, misere=misere)
            pos = position(know.active, hands, trump=strain, misere=misere, declarer=declarer,
                           leader=know.active[0])  # fmt: skip
            judge = misere_tricks if misere else declarer_tricks
            tricks = judge(session, pos, level.node_budget)
            if tricks is not None:
                out[strain].append(tricks)
    return out


def static_tricks(cards: list[Card], strain: Suit | None, with_talon: bool) -> TrickCounts:
    """The easy level's estimate: quick tricks, half a trick more for the talon and discard."""
    estimate = quick_tricks(cards, strain) + (0.5 if with_talon else 0.0)
    return [max(0, min(10, round(estimate)))]


def static_misere(cards: list[Card], with_talon: bool) -> TrickCounts:
    danger = misere_danger(cards) - (2.0 if with_talon else 0.0)
    return [0 if danger <= 0 else 1 if danger <= 2 else 3]


def mean_of(values: list[Fraction]) -> float:
    return float(sum(values, Fraction(0)) / len(values)) if values else 0.0


def both_whist_result(know: Knowledge, declarer: int, contract: Bid, tricks: int) -> DealResult:
    """A trick game both defenders whisted (closed), the defence's tricks split as evenly as they can be."""
    d1, d2 = [s for s in know.active if s != declarer]
    left = 10 - tricks
    calls = ((d1, WhistCall.WHIST), (d2, WhistCall.WHIST))
    tricks_by_seat = {declarer: tricks, d1: (left + 1) // 2, d2: left // 2}
    return DealResult(seats=know.seats, dealer=know.dealer, kind=DealKind.GAME, declarer=declarer,
                      contract=contract, calls=calls, play=PlayMode.CLOSED,
                      tricks=tricks_by_seat)  # fmt: skip


def declarer_value(know: Knowledge, contract: Bid, counts: TrickCounts, conv: Conventions) -> float:
    """The declarer's (this seat's) mean balance, both defenders whisting closed (the cautious case)."""
    me = know.seat
    if contract.is_misere:
        return misere_value(know, me, counts, conv)
    return mean_of([deal_balance(both_whist_result(know, me, contract, t), conv)[me] for t in counts])


def misere_value(
    know: Knowledge,
    declarer: int,
    counts: TrickCounts,
    conv: Conventions,
    *,
    partner: int | None = None,
    me: int | None = None,
) -> float:
    """``me``'s (default: this seat's) mean balance from a misère with these trick counts."""
    who = know.seat if me is None else me
    values = []
    for t in counts:
        tricks = dict.fromkeys(know.active, 0)
        tricks[declarer] = t
        others = [s for s in know.active if s != declarer]
        tricks[others[0]] = 10 - t
        result = DealResult(seats=know.seats, dealer=know.dealer, kind=DealKind.MISERE, declarer=declarer,
                            contract=Bid(0, None), tricks=tricks, misere_partner=partner)  # fmt: skip
        values.append(deal_balance(result, conv)[who])
    return mean_of(values)
