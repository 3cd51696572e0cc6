"""The declarer's side of the game: bids, the misère invitation and its answer, the discard, the contract.

Bidding: for each strain the robot estimates its double-dummy tricks after taking the talon (sampled
layouts, a cheap discard in each) and prices every contract with the scoring engine, both defenders
assumed to whist. Its ceiling is the highest contract on the ladder worth more than nothing; it bids the
lowest legal step (a hold first) while that step is within the ceiling, and passes otherwise. A misère is
bid when its value beats every trick contract and nothing. A game without talon is judged the same way
on the robot's ten cards alone (the talon unseen), only for hands with a clear game on static count; of
the bids within their ceilings the robot makes the lowest on the ladder.
"""

from __future__ import annotations

import random

from app.engine.actions import (
    Action,
    AnswerInvitation,
    Discard,
    InviteDealer,
    MakeBid,
    NameContract,
    PassBid,
    Zastrel,
)
from app.engine.bids import LADDER, Bid
from app.engine.cards import Card, Suit
from app.engine.conventions import Conventions
from app.engine.result import DealKind, DealResult
from app.robots.handeval import STRAINS, misere_danger, misere_discards, quick_tricks, trick_discards
from app.robots.judgement import (
    declarer_value,
    misere_value,
    static_misere,
    static_tricks,
    trick_samples,
)
from app.robots.knowledge import Knowledge
from app.robots.layouts import Plausible, layouts
from app.robots.levels import Level
from app.robots.search import declarer_tricks, misere_tricks, position
from app.robots.value import deal_balance
from app.solver import Solver

# Hands judged without sampling: no game even with a good talon, or a misère no talon can clean.
_HOPELESS_BELOW = 3.5
_MISERE_HOPELESS_ABOVE = 7.0
# A misère for two halves the stake: worth asking the dealer when clean about half the time but not
# worth bidding alone (and not hopeless: the dealer would decline anyway).
_INVITE_CLEAN = 0.45
_INVITE_FLOOR = -20.0
_STRAINS_SOLVED = 3  # the strains that look best on static count are the ones solved on layouts
_NO_TALON_FROM = 6.0  # static tricks from which a game without talon is worth judging on layouts
_TRICK_CONTRACTS = tuple(b for b in LADDER if not b.is_misere and not b.no_talon)
_NO_TALON_CONTRACTS = tuple(b for b in LADDER if not b.is_misere and b.no_talon)


def _hand(know: Knowledge) -> list[Card]:
    return list(know.hands[know.seat])


def _strain_counts(
    know: Knowledge, level: Level, rng: random.Random, plausible: Plausible | None, with_talon: bool
) -> dict[Suit | None, list[int]]:
    if level.bid_layouts == 0:
        noise = rng.gauss(0, 1) * level.noise * 4
        return {
            s: [max(0, min(10, c + round(noise))) for c in static_tricks(_hand(know), s, with_talon)]
            for s in STRAINS
        }
    hand = _hand(know)
    likely = sorted(STRAINS, key=lambda s: -quick_tricks(hand, s))[:_STRAINS_SOLVED]
    return trick_samples(know, know.seat, likely, level, rng, with_talon=with_talon, plausible=plausible)


def _misere_counts(
    know: Knowledge, level: Level, rng: random.Random, plausible: Plausible | None, with_talon: bool
) -> list[int]:
    if level.bid_layouts == 0:
        return static_misere(_hand(know), with_talon)
    return trick_samples(
        know, know.seat, [None], level, rng, with_talon=with_talon, plausible=plausible, misere=True
    )[None]


def choose_bid(
    know: Knowledge,
    legal: list[Action],
    level: Level,
    rng: random.Random,
    conv: Conventions,
    *,
    plausible: Plausible | None,
) -> Action:
    me = know.seat
    bids = [a.bid for a in legal if isinstance(a, MakeBid)]
    misere_bids = [b for b in bids if b.is_misere]
    trick_bids = sorted((b for b in bids if not b.is_misere and not b.no_talon), key=lambda b: b.rank)
    no_talon_bids = sorted((b for b in bids if not b.is_misere and b.no_talon), key=lambda b: b.rank)
    hand = _hand(know)
    static_best = max(quick_tricks(hand, s) for s in STRAINS)
    values: dict[Bid, float] = {}
    if trick_bids and static_best >= _HOPELESS_BELOW:
        counts = _strain_counts(know, level, rng, plausible, with_talon=True)
        values |= {
            c: declarer_value(know, c, counts[c.trump], conv) for c in _TRICK_CONTRACTS if counts.get(c.trump)
        }
    if no_talon_bids and static_best >= _NO_TALON_FROM:
        counts = _strain_counts(know, level, rng, plausible, with_talon=False)
        values |= {
            c: declarer_value(know, c, counts[c.trump], conv)
            for c in _NO_TALON_CONTRACTS
            if counts.get(c.trump)
        }
    # The ceiling of each talon mode: its highest contract on the ladder worth more than nothing.
    ceiling = {mode: max((c.rank for c, v in values.items() if v > 0 and c.no_talon == mode), default=-1)
               for mode in (False, True)}  # fmt: skip
    best_trick = max(values.values(), default=0.0)
    if misere_bids and misere_danger(hand) <= _MISERE_HOPELESS_ABOVE:
        with_talon = any(not b.no_talon for b in misere_bids)
        m_counts = _misere_counts(know, level, rng, plausible, with_talon)
        m_value = misere_value(know, me, m_counts, conv) if m_counts else -1.0
        clean = sum(1 for t in m_counts if t == 0) / len(m_counts) if m_counts else 0.0
        if m_value > max(best_trick, 0.0):
            pick = min(misere_bids, key=lambda b: b.rank)
            return MakeBid(me, pick)
        if (
            any(isinstance(a, InviteDealer) for a in legal)
            and clean >= _INVITE_CLEAN
            and m_value > _INVITE_FLOOR
        ):
            return InviteDealer(me)
    within = [b for b in (*trick_bids, *no_talon_bids) if b.rank <= ceiling[b.no_talon]]
    if within:
        return MakeBid(me, min(within, key=lambda b: b.rank))
    return PassBid(me)


def answer_invitation(know: Knowledge, level: Level, rng: random.Random, conv: Conventions) -> Action:
    """The 4-seat dealer sees the inviter's hand: join when the shared misère is worth it to him."""
    inviter = next(s for s in know.hands if s != know.seat)
    cards = list(know.hands[inviter])
    if level.bid_layouts == 0:
        counts = static_misere(cards, with_talon=True)
    else:
        counts = trick_samples(know, inviter, [None], level, rng, with_talon=True, misere=True)[None]
    value = misere_value(know, inviter, counts, conv, partner=know.seat, me=know.seat) if counts else -1.0
    return AnswerInvitation(know.seat, value > 0)


def choose_discard(know: Knowledge, bid: Bid, level: Level, rng: random.Random, conv: Conventions) -> Action:
    me = know.seat
    twelve = _hand(know)
    strains_of: dict[tuple[Card, Card], Suit | None] = {}
    if bid.is_misere:
        strains_of = dict.fromkeys(misere_discards(twelve, max(1, level.discard_candidates)))
    else:
        ranked = sorted(STRAINS, key=lambda s: -_static_best(twelve, s))[:2]
        per = max(1, (level.discard_candidates + 1) // 2)
        for s in ranked:
            for pair in trick_discards(twelve, s, per):
                strains_of.setdefault(pair, s)
    candidates = list(strains_of)
    if len(candidates) == 1 or level.bid_layouts == 0:
        first = candidates[0]
        return Discard(me, (first[0], first[1]))
    # The defenders' hands (20 unseen cards) are the same for every candidate: one set of layouts.
    session = Solver()
    samples = layouts(know, level.bid_layouts, rng)
    best_pair, best_value = candidates[0], float("-inf")
    for pair in candidates:
        kept = tuple(c for c in twelve if c not in pair)
        counts = []
        for layout in samples:
            hands = {**{s: layout[s] for s in know.hidden()}, me: kept}
            strain = strains_of[pair]
            pos = position(
                know.active, hands, trump=strain, misere=bid.is_misere, declarer=me, leader=know.active[0]
            )
            judge = misere_tricks if bid.is_misere else declarer_tricks
            tricks = judge(session, pos, level.node_budget)
            if tricks is not None:
                counts.append(tricks)
        if not counts:
            continue
        if bid.is_misere:
            value = misere_value(know, me, counts, conv)
        else:
            reachable = [c for c in _TRICK_CONTRACTS if c.trump == strains_of[pair] and c.rank >= bid.rank]
            value = max((declarer_value(know, c, counts, conv) for c in reachable), default=float("-inf"))
        if value > best_value:
            best_pair, best_value = pair, value
    return Discard(me, (best_pair[0], best_pair[1]))


def _static_best(cards: list[Card], strain: Suit | None) -> float:
    return static_tricks(cards, strain, with_talon=False)[0]


def choose_contract(
    know: Knowledge, legal: list[Action], level: Level, rng: random.Random, conv: Conventions
) -> Action:
    me = know.seat
    contracts = [a.contract for a in legal if isinstance(a, NameContract)]
    strains = sorted({c.trump for c in contracts}, key=lambda s: -1 if s is None else int(s))
    if level.bid_layouts == 0:
        counts = {s: static_tricks(_hand(know), s, with_talon=False) for s in strains}
    else:
        counts = trick_samples(know, me, strains, level, rng, with_talon=False)
    values = {c: declarer_value(know, c, counts[c.trump], conv) for c in contracts if counts.get(c.trump)}
    if not values:
        return NameContract(me, min(contracts, key=lambda c: c.rank))
    best = max(values, key=lambda c: (values[c], -c.rank))
    if any(isinstance(a, Zastrel) for a in legal):
        result = DealResult(seats=know.seats, dealer=know.dealer, kind=DealKind.ZASTREL, declarer=me,
                            contract=know.bid)  # fmt: skip
        if float(deal_balance(result, conv)[me]) > values[best]:
            return Zastrel(me)
    return NameContract(me, best)
