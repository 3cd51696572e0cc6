"""A plain exhaustive minimax over `Card` objects: no pruning, no tables, no card equivalence.

Written independently of both kernels, straight from RULES.md §10: follow suit; if void, trump if
possible; otherwise any card; the highest trump, else the highest card of the led suit, wins; contract:
the declarer maximises his tricks, misère: minimises them; the defenders do the opposite.
"""

from __future__ import annotations

from app.engine.cards import Card, Suit


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
    mover = (leader + len(trick)) % 3
    if not hands[mover]:
        return 0
    values = []
    for card in legal_cards(hands[mover], trick, trump):
        new_hands = tuple(
            tuple(c for c in h if c is not card) if i == mover else h for i, h in enumerate(hands)
        )
        played = (*trick, card)
        if len(played) == 3:
            w = trick_winner(leader, played, trump)
            values.append(
                (w == declarer)
                + minimax(new_hands, trump=trump, misere=misere, declarer=declarer, leader=w, trick=())
            )
        else:
            values.append(
                minimax(new_hands, trump=trump, misere=misere, declarer=declarer, leader=leader, trick=played)
            )
    maximise = (mover == declarer) != misere
    return max(values) if maximise else min(values)


def card_values(
    hands: tuple[tuple[Card, ...], ...],
    *,
    trump: Suit | None,
    misere: bool,
    declarer: int,
    leader: int,
    trick: tuple[Card, ...],
) -> dict[Card, int]:
    mover = (leader + len(trick)) % 3
    out: dict[Card, int] = {}
    for card in legal_cards(hands[mover], trick, trump):
        new_hands = tuple(
            tuple(c for c in h if c is not card) if i == mover else h for i, h in enumerate(hands)
        )
        played = (*trick, card)
        if len(played) == 3:
            w = trick_winner(leader, played, trump)
            out[card] = (w == declarer) + minimax(
                new_hands, trump=trump, misere=misere, declarer=declarer, leader=w, trick=()
            )
        else:
            out[card] = minimax(
                new_hands, trump=trump, misere=misere, declarer=declarer, leader=leader, trick=played
            )
    return out
