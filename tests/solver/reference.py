"""A plain exhaustive minimax over `Card` objects: no pruning, no tables, no card equivalence.

Written independently of both kernels, straight from RULES.md §10: follow suit; if void, trump if
possible; otherwise any card; the highest trump, else the highest card of the led suit, wins; contract:
the declarer maximises his tricks, misère: minimises them; the defenders do the opposite.
"""

from __future__ import annotations

from app.engine.cards import Card, Suit


class TreeTooLarge(Exception):
    """The full game tree has more leaves than the caller allowed."""


def legal_cards(hand: tuple[Card, ...], trick: tuple[Card, ...], trump: Suit | None) -> list[Card]:
    if not trick:
        return list(hand)
    led = [c for c in hand if c.suit == trick[0].suit]
    if led:
        return led
    if trump is not None:
        trumps = [c for c in hand if c.suit == trump]
        if trumps:
            return trumps
    return list(hand)


def trick_winner(leader: int, trick: tuple[Card, ...], trump: Suit | None) -> int:
    def strength(card: Card) -> int:
        if trump is not None and card.suit == trump:
            return 100 + card.rank
        if card.suit == trick[0].suit:
            return card.rank
        return -1

    best = max(range(3), key=lambda i: strength(trick[i]))
    return (leader + best) % 3


class _Minimax:
    def __init__(self, trump: Suit | None, misere: bool, declarer: int, leaf_limit: int | None) -> None:
        self.trump = trump
        self.misere = misere
        self.declarer = declarer
        self.leaves_left = leaf_limit

    def children(
        self, hands: tuple[tuple[Card, ...], ...], leader: int, trick: tuple[Card, ...]
    ) -> list[tuple[Card, int, tuple[tuple[Card, ...], ...], int, tuple[Card, ...]]]:
        """(card, tricks won by the declarer with it, next hands, next leader, next trick) per legal card."""
        mover = (leader + len(trick)) % 3
        out: list[tuple[Card, int, tuple[tuple[Card, ...], ...], int, tuple[Card, ...]]] = []
        for card in legal_cards(hands[mover], trick, self.trump):
            new_hands = tuple(
                tuple(c for c in h if c is not card) if i == mover else h for i, h in enumerate(hands)
            )
            played = (*trick, card)
            if len(played) == 3:
                w = trick_winner(leader, played, self.trump)
                out.append((card, int(w == self.declarer), new_hands, w, ()))
            else:
                out.append((card, 0, new_hands, leader, played))
        return out

    def value(self, hands: tuple[tuple[Card, ...], ...], leader: int, trick: tuple[Card, ...]) -> int:
        mover = (leader + len(trick)) % 3
        if not hands[mover]:
            if self.leaves_left is not None:
                self.leaves_left -= 1
                if self.leaves_left < 0:
                    raise TreeTooLarge
            return 0
        values = [won + self.value(h, ld, t) for _, won, h, ld, t in self.children(hands, leader, trick)]
        maximise = (mover == self.declarer) != self.misere
        return max(values) if maximise else min(values)


def minimax(
    hands: tuple[tuple[Card, ...], ...],
    *,
    trump: Suit | None,
    misere: bool,
    declarer: int,
    leader: int,
    trick: tuple[Card, ...],
) -> int:
    """Declarer's tricks from here, the current trick included."""
    return _Minimax(trump, misere, declarer, None).value(hands, leader, trick)


def card_values(
    hands: tuple[tuple[Card, ...], ...],
    *,
    trump: Suit | None,
    misere: bool,
    declarer: int,
    leader: int,
    trick: tuple[Card, ...],
    leaf_limit: int | None = None,
) -> dict[Card, int]:
    """For each legal card of the player to move: the declarer's tricks from here if it is played."""
    search = _Minimax(trump, misere, declarer, leaf_limit)
    return {
        card: won + search.value(h, ld, t) for card, won, h, ld, t in search.children(hands, leader, trick)
    }
