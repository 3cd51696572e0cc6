"""Cards, suits, ranks and the 32-card deck (RULES.md §1.1).

A card is an interned value: there are exactly 32 `Card` objects, so identity, equality and hashing are
cheap and a card can be used as a dict key or compared with ``is``. Text notation is suit letter plus rank
letter (``sA``, ``hT``); the parser also accepts ``10`` and the suit symbols ♠♣♦♥.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Final


class Suit(IntEnum):
    """Suits in bidding order ♠ < ♣ < ♦ < ♥ [K 1.3]."""

    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3

    @property
    def letter(self) -> str:
        return SUIT_LETTERS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        try:
            return _SUIT_BY_TEXT[text]
        except KeyError:
            raise ValueError(f"unknown suit {text!r}") from None


class Rank(IntEnum):
    SEVEN = 0
    EIGHT = 1
    NINE = 2
    TEN = 3
    JACK = 4
    QUEEN = 5
    KING = 6
    ACE = 7

    @property
    def letter(self) -> str:
        return RANK_LETTERS[self]


SUIT_LETTERS: Final = ("s", "c", "d", "h")
RANK_LETTERS: Final = ("7", "8", "9", "T", "J", "Q", "K", "A")
_SUIT_BY_TEXT: Final = {
    **{letter: Suit(i) for i, letter in enumerate(SUIT_LETTERS)},
    **{letter.upper(): Suit(i) for i, letter in enumerate(SUIT_LETTERS)},
    "♠": Suit.SPADES,
    "♣": Suit.CLUBS,
    "♦": Suit.DIAMONDS,
    "♥": Suit.HEARTS,
    "♤": Suit.SPADES,
    "♧": Suit.CLUBS,
    "♢": Suit.DIAMONDS,
    "♡": Suit.HEARTS,
}
_RANK_BY_TEXT: Final = {
    **{letter: Rank(i) for i, letter in enumerate(RANK_LETTERS)},
    "10": Rank.TEN,
    "t": Rank.TEN,
    "j": Rank.JACK,
    "q": Rank.QUEEN,
    "k": Rank.KING,
    "a": Rank.ACE,
}


class Card:
    """One of the 32 cards. Obtain cards with `Card.of`, `Card.parse` or `DECK`, never the constructor."""

    __slots__ = ("index", "rank", "suit", "text")
    suit: Suit
    rank: Rank
    index: int
    text: str

    def __init__(self, suit: Suit, rank: Rank) -> None:
        self.suit = suit
        self.rank = rank
        self.index = suit * 8 + rank  # 0..31, suit-major: the order cards are sorted in
        self.text = suit.letter + rank.letter

    @staticmethod
    def of(suit: Suit, rank: Rank) -> Card:
        return DECK[suit * 8 + rank]

    @staticmethod
    def from_index(index: int) -> Card:
        if not 0 <= index < 32:
            raise ValueError(f"card index {index} is outside 0..31")
        return DECK[index]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``sA``, ``hT``, ``h10``, ``♥10``, ``♠A``; raise ValueError naming the text otherwise."""
        if not isinstance(text, str) or not 2 <= len(text) <= 3:
            raise ValueError(f"not a card: {text!r}")
        try:
            suit = _SUIT_BY_TEXT[text[0]]
            rank = _RANK_BY_TEXT[text[1:]]
        except KeyError:
            raise ValueError(f"not a card: {text!r}") from None
        return DECK[suit * 8 + rank]

    def __repr__(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __reduce__(self) -> tuple[object, tuple[int]]:
        # Keeps cards interned through pickling (the solver's worker processes receive positions).
        return (Card.from_index, (self.index,))


DECK: Final[tuple[Card, ...]] = tuple(Card(Suit(i // 8), Rank(i % 8)) for i in range(32))


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in texts)


def card_texts(cards: Iterable[Card]) -> list[str]:
    return [c.text for c in cards]


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=lambda c: c.index))
