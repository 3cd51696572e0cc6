"""Static hand evaluation: quick trick counts, misère danger, heuristic discards, the auction model.

These are the cheap judgements: the `easy` level bids from them alone, stronger levels use them to pick
the candidates that the solver then tests on sampled layouts.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from app.engine.bids import Bid
from app.engine.cards import Card, Suit

STRAINS: tuple[Suit | None, ...] = (Suit.SPADES, Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, None)


def by_suit(cards: Iterable[Card]) -> dict[Suit, list[int]]:
    """Ranks held per suit, highest first."""
    out: dict[Suit, list[int]] = {s: [] for s in Suit}
    for c in cards:
        out[c.suit].append(int(c.rank))
    for ranks in out.values():
        ranks.sort(reverse=True)
    return out


def suit_tricks(ranks: list[int]) -> int:
    """Tricks a suit takes when its holder leads it out: he wins while his top card is highest, else gives
    up his lowest to the opponents' top; the two opponents shed two cards a round (ranks highest first)."""
    mine = list(ranks)
    outside = [r for r in range(7, -1, -1) if r not in ranks]
    tricks = 0
    while mine:
        if not outside or mine[0] > outside[0]:
            tricks += 1
            mine.pop(0)
            outside = outside[:-2]
        else:
            mine.pop()
            outside = outside[1:-1]
    return tricks


def quick_tricks(cards: Iterable[Card], trump: Suit | None) -> float:
    """A declarer's expected tricks with ``trump`` (None: no trumps), judged from his cards alone."""
    total = 0.0
    for suit, ranks in by_suit(cards).items():
        top = suit_tricks(ranks)
        if suit == trump or trump is None:
            total += top
        else:
            total += min(top, 2)  # a side suit's third round is ruffed
    suits = by_suit(cards)
    if trump is not None:
        total += 0.3 * sum(1 for s in Suit if s != trump and not suits[s])  # a void ruffs
    else:  # no trumps: the opponents run every suit the declarer cannot stop
        total -= 1 + 1.5 * sum(1 for ranks in suits.values() if not _stopped(ranks))
    return max(0.0, total)


def _stopped(ranks: list[int]) -> bool:
    return any(7 - r < len(ranks) for r in ranks)  # A, Kx, Qxx, Jxxx


def misere_danger(cards: Iterable[Card]) -> float:
    """How catchable a misère hand looks: 0 is clean; each unsafe suit adds its worst gap."""
    danger = 0.0
    for ranks in by_suit(cards).values():
        low_first = sorted(ranks)
        for i, r in enumerate(low_first):
            # With i lower cards of mine below it, a card is safe up to rank 2i (7, 9, J, K).
            gap = r - 2 * i
            if gap > 0:
                danger += gap * (0.5 if i == 0 and len(low_first) == 1 and r <= 2 else 1.0)
                break
    return danger


def keep_value(card: Card, cards: list[Card], trump: Suit | None) -> float:
    """How much a declarer wants to keep ``card`` (discards shed the lowest values)."""
    same = [c for c in cards if c.suit == card.suit]
    if card.suit == trump:
        return 100 + card.rank
    higher_mine = sum(1 for c in same if c.rank > card.rank)
    above_outside = 7 - card.rank - higher_mine
    if above_outside <= higher_mine:  # a winner
        return 60 + card.rank
    return card.rank + 3 * len(same)  # shed from short suits first (a void can ruff)


def trick_discards(cards12: list[Card], trump: Suit | None, count: int) -> list[tuple[Card, Card]]:
    """The ``count`` most promising discards for a trick contract with ``trump``, best first."""
    scored = []
    for pair in combinations(sorted(cards12, key=lambda c: c.index), 2):
        kept = [c for c in cards12 if c not in pair]
        value = quick_tricks(kept, trump) - 0.01 * (keep_value(pair[0], cards12, trump) +
                                                    keep_value(pair[1], cards12, trump))  # fmt: skip
        scored.append((-value, pair[0].index, pair[1].index, pair))
    scored.sort()
    return [p for *_, p in scored[:count]]


def misere_discards(cards12: list[Card], count: int) -> list[tuple[Card, Card]]:
    """The ``count`` most promising misère discards: least danger left, then the higher cards shed."""
    scored = []
    for pair in combinations(sorted(cards12, key=lambda c: c.index), 2):
        kept = [c for c in cards12 if c not in pair]
        scored.append(
            (misere_danger(kept), -(pair[0].rank + pair[1].rank), pair[0].index, pair[1].index, pair)
        )
    scored.sort()
    return [p for *_, p in scored[:count]]


def best_strain(cards: Iterable[Card]) -> tuple[Suit | None, float]:
    hand = list(cards)
    return max(((s, quick_tricks(hand, s)) for s in STRAINS), key=lambda st: st[1])


def plausible_hand(hand: tuple[Card, ...], bids: list[Bid | None]) -> bool:
    """The auction model: does ``hand`` (10 cards) fit the bids this seat made?

    Simple on purpose: a trick bidder of level n holds about n − 2 quick tricks in some strain (the talon
    and the discard add the rest); a misère bidder's hand is nearly clean; a player who passed at his first
    turn holds no obvious 7-trick game. Used to redraw layouts, never to exclude them outright.
    """
    mine = [b for b in bids if b is not None]
    if not bids:
        return True
    if not mine:
        _, tricks = best_strain(hand)
        return tricks < 7
    top = mine[-1]
    if top.is_misere:
        return misere_danger(hand) <= 4
    _, tricks = best_strain(hand)
    return tricks >= top.level - 2.5
