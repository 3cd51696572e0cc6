"""Card play: following rules and trick winners (RULES.md §6.1, §6.2, §10)."""

from __future__ import annotations

from app.engine.cards import Card


def legal_cards(hand: tuple[Card, ...], led: Card | None, trump: int | None) -> tuple[Card, ...]:
    """Follow suit; if void, trump if possible; else any card [K 3.9.3]."""
    if led is None:
        return hand
    suit = led.suit
    follow = tuple(c for c in hand if c.suit == suit)
    if follow:
        return follow
    if trump is not None:
        trumps = tuple(c for c in hand if c.suit == trump)
        if trumps:
            return trumps
    return hand


def trick_winner(trick: tuple[tuple[int, Card], ...], trump: int | None) -> int:
    """The hand (or TALON) whose card wins: highest trump, else highest card of the led suit."""
    best_hand, best = trick[0]
    for hand, card in trick[1:]:
        if card.suit == best.suit:
            if card.rank > best.rank:
                best_hand, best = hand, card
        elif trump is not None and card.suit == trump and best.suit != trump:
            best_hand, best = hand, card
    return best_hand
