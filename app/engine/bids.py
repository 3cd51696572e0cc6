"""Bids and contracts on the bidding ladder (RULES.md §2.1–§2.2, §4.1–§4.2).

A `Bid` is also a contract: the declarer names a contract from the same set of values. Text notation:
``6s 6c 6d 6h 6n … 10n``, ``misere``, with a ``-nt`` suffix for games without talon (``9s-nt``,
``misere-nt``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final

from app.engine.cards import Suit


class Strain(IntEnum):
    """Trump suit of a trick contract, or no trumps; ordered as in bidding."""

    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3
    NO_TRUMP = 4

    @property
    def trump(self) -> Suit | None:
        return None if self is Strain.NO_TRUMP else Suit(self.value)

    @property
    def letter(self) -> str:
        return "scdhn"[self.value]


_PRICE: Final = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
# Tricks the two defender hands must take together [K 3.8.2].
_OBLIGATION: Final = {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}
# Ladder position of each level's 6♠-equivalent; misère sits at 30, misère without talon at 36 (§2.2).
_LEVEL_START: Final = {6: 0, 7: 10, 8: 20, 9: 31, 10: 42}


@dataclass(frozen=True, slots=True, order=False)
class Bid:
    """A bid or contract: a trick game ``level``/``strain``, or misère; either with or without talon."""

    level: int  # 6..10; 0 for misère
    strain: Strain | None  # None for misère
    no_talon: bool = False
    rank: int = field(init=False, compare=False, repr=False, default=-1)
    """Position on the full ladder of RULES.md §2.2 (higher beats lower)."""

    def __post_init__(self) -> None:
        if self.strain is None:
            if self.level != 0:
                raise ValueError("a misère bid has level 0")
            position = 30 if not self.no_talon else 36
        else:
            if self.level not in _PRICE:
                raise ValueError(f"no bid of level {self.level}")
            no_talon_offset = 6 if self.level == 9 else 5  # 9♠…9NT, misère*, 9♠*…
            position = (
                _LEVEL_START[self.level] + (no_talon_offset if self.no_talon else 0) + self.strain.value
            )
        object.__setattr__(self, "rank", position)

    @property
    def is_misere(self) -> bool:
        return self.strain is None

    @property
    def price(self) -> int:
        """Contract price P (§4.1): 6→2 … 10→10, misère (with or without talon) 10."""
        return 10 if self.strain is None else _PRICE[self.level]

    @property
    def obligation(self) -> int:
        """Tricks the defenders must take together (§4.2); misère has none."""
        return 0 if self.strain is None else _OBLIGATION[self.level]

    @property
    def trump(self) -> Suit | None:
        return None if self.strain is None else self.strain.trump

    @property
    def text(self) -> str:
        base = "misere" if self.strain is None else f"{self.level}{self.strain.letter}"
        return base + ("-nt" if self.no_talon else "")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Bid({self.text})"

    @staticmethod
    def parse(text: str) -> Bid:
        if not isinstance(text, str):
            raise ValueError(f"not a contract: {text!r}")
        body = text.strip().lower()
        no_talon = body.endswith("-nt")
        if no_talon:
            body = body[:-3]
        if body in ("misere", "misère", "m"):
            return Bid(0, None, no_talon)
        strain_letters = {"s": 0, "c": 1, "d": 2, "h": 3, "n": 4, "nt": 4}
        level_text = body[:-1] if not body.endswith("nt") else body[:-2]
        strain_text = body[len(level_text) :]
        if level_text not in ("6", "7", "8", "9", "10") or strain_text not in strain_letters:
            raise ValueError(f"not a contract: {text!r}")
        return Bid(int(level_text), Strain(strain_letters[strain_text]), no_talon)


MISERE: Final = Bid(0, None, False)
MISERE_NO_TALON: Final = Bid(0, None, True)


def _ladder() -> tuple[Bid, ...]:
    def level(n: int, no_talon: bool) -> list[Bid]:
        return [Bid(n, Strain(s), no_talon) for s in range(5)]

    order: list[Bid] = []
    for n in (6, 7, 8):
        order += level(n, False) + level(n, True)
    order += [MISERE, *level(9, False), MISERE_NO_TALON, *level(9, True)]
    order += level(10, False) + level(10, True)
    return tuple(order)


LADDER: Final[tuple[Bid, ...]] = tuple(sorted(_ladder(), key=lambda b: b.rank))
