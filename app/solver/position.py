"""A card-play position for the solver: three open hands, trumps or misère, and the current trick.

Seats are solver seats 0, 1, 2 in clockwise play order (the caller maps table seats onto them; a 4-seat
dealer takes no part in play). ``trick`` holds the cards already played to the current trick, the
``leader``'s first; completed tricks are gone, so every hand holds the cards it has left.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.engine import play
from app.engine.cards import Card, Suit
from app.solver.errors import InvalidPosition

Hands = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]


def legal_cards(hand: tuple[Card, ...], trick: tuple[Card, ...], trump: Suit | None) -> tuple[Card, ...]:
    """The engine's following rule (RULES.md §10, [K 3.9.3]) for a trick given as its cards."""
    return play.legal_cards(hand, trick[0] if trick else None, trump)


def trick_winner(leader: int, trick: tuple[Card, Card, Card], trump: Suit | None) -> int:
    """The seat that takes a complete trick led by ``leader`` (the engine's rule: `play.trick_winner`)."""
    return (leader + play.trick_winner(tuple(enumerate(trick)), trump)) % 3


@dataclass(frozen=True, slots=True)
class Position:
    """A validated position; construction raises `InvalidPosition` for anything play cannot produce."""

    hands: Hands
    trump: Suit | None
    misere: bool
    declarer: int
    leader: int
    trick: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        hands = self.hands
        if not isinstance(hands, tuple | list) or len(hands) != 3:
            raise InvalidPosition("hands must list exactly 3 hands (solver seats 0, 1, 2)")
        for name, seat in (("declarer", self.declarer), ("leader", self.leader)):
            if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 2:
                raise InvalidPosition(f"{name} must be a seat 0, 1 or 2, not {seat!r}")
        if self.trump is not None and not isinstance(self.trump, Suit):
            raise InvalidPosition(f"trump must be a suit or None, not {self.trump!r}")
        if self.misere and self.trump is not None:
            raise InvalidPosition("misère is played without trumps")  # RULES.md §3.1
        cards_seen: set[Card] = set()
        sorted_hands = []
        for seat, hand in enumerate(hands):
            for card in hand:
                if not isinstance(card, Card):
                    raise InvalidPosition(f"hand {seat} holds {card!r}, which is not a card")
            sorted_hands.append(tuple(sorted(hand, key=lambda c: c.index)))
        for card in (*[c for h in sorted_hands for c in h], *self.trick):
            if not isinstance(card, Card):
                raise InvalidPosition(f"trick holds {card!r}, which is not a card")
            if card in cards_seen:
                raise InvalidPosition(f"card {card} appears twice")
            cards_seen.add(card)
        trick = tuple(self.trick)
        if len(trick) > 2:
            raise InvalidPosition(
                f"the current trick holds {len(trick)} cards; a complete trick must be removed"
            )
        mover = (self.leader + len(trick)) % 3
        n = len(sorted_hands[mover])
        if n > 10:
            raise InvalidPosition(f"hand {mover} holds {n} cards; at most 10")
        if trick and n == 0:
            raise InvalidPosition("a trick is in progress but the player to move has no cards")
        for k in range(3):
            seat = (self.leader + k) % 3
            want = n - 1 if k < len(trick) else n
            if len(sorted_hands[seat]) != want:
                raise InvalidPosition(
                    f"hand sizes {[len(h) for h in sorted_hands]} do not fit a trick of {len(trick)} card(s) "
                    f"led by seat {self.leader}: seat {seat} should hold {want}"
                )
        for k in range(1, len(trick)):
            seat = (self.leader + k) % 3
            card = trick[k]
            allowed = legal_cards((*sorted_hands[seat], card), trick[:k], self.trump)
            if card not in allowed:
                raise InvalidPosition(f"seat {seat} could not play {card} to a trick led with {trick[0]}")
        object.__setattr__(self, "hands", tuple(sorted_hands))
        object.__setattr__(self, "trick", trick)

    @property
    def mover(self) -> int:
        """The seat to play next."""
        return (self.leader + len(self.trick)) % 3

    @property
    def tricks_left(self) -> int:
        """Tricks still to be decided, the current one included."""
        return len(self.hands[self.mover])

    def legal_cards(self) -> tuple[Card, ...]:
        return legal_cards(self.hands[self.mover], self.trick, self.trump)

    def play(self, card: Card) -> tuple[Position, int | None]:
        """The position after the player to move plays ``card``, and the trick's taker if it completed."""
        if card not in self.legal_cards():
            raise InvalidPosition(f"seat {self.mover} cannot play {card} here")
        mover = self.mover
        hands = list(self.hands)
        hands[mover] = tuple(c for c in hands[mover] if c is not card)
        new_hands: Hands = (hands[0], hands[1], hands[2])
        played = (*self.trick, card)
        if len(played) == 3:
            winner = trick_winner(self.leader, (played[0], played[1], played[2]), self.trump)
            return Position(new_hands, self.trump, self.misere, self.declarer, winner, ()), winner
        return Position(new_hands, self.trump, self.misere, self.declarer, self.leader, played), None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Position:
        """Parse the command line's JSON form; any defect raises `InvalidPosition` naming it."""
        if not isinstance(data, Mapping):
            raise InvalidPosition("a position must be a JSON object")
        unknown = set(data) - {"hands", "trump", "mode", "declarer", "leader", "trick"}
        if unknown:
            raise InvalidPosition(f"unknown field(s): {', '.join(sorted(unknown))}")
        raw_hands = data.get("hands")
        if (
            not isinstance(raw_hands, list)
            or len(raw_hands) != 3
            or not all(isinstance(h, list) for h in raw_hands)
        ):
            raise InvalidPosition("hands must be a list of 3 lists of cards")
        hands = tuple(_cards(h, f"hand {i}") for i, h in enumerate(raw_hands))
        trick = _cards(data.get("trick", []), "trick")
        raw_trump = data.get("trump")
        trump: Suit | None
        if raw_trump is None:
            trump = None
        elif isinstance(raw_trump, str) and raw_trump in ("s", "c", "d", "h"):
            trump = Suit.parse(raw_trump)
        else:
            raise InvalidPosition(f'trump must be "s", "c", "d", "h" or null, not {raw_trump!r}')
        mode = data.get("mode", "contract")
        if mode not in ("contract", "misere"):
            raise InvalidPosition(f'mode must be "contract" or "misere", not {mode!r}')
        for name in ("declarer", "leader"):
            if name not in data:
                raise InvalidPosition(f"missing field {name}")
        return cls(
            (hands[0], hands[1], hands[2]), trump, mode == "misere", data["declarer"], data["leader"], trick
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "hands": [[c.text for c in h] for h in self.hands],
            "trump": None if self.trump is None else self.trump.letter,
            "mode": "misere" if self.misere else "contract",
            "declarer": self.declarer,
            "leader": self.leader,
            "trick": [c.text for c in self.trick],
        }


def _cards(raw: object, where: str) -> tuple[Card, ...]:
    if not isinstance(raw, list):
        raise InvalidPosition(f"{where} must be a list of cards")
    out = []
    for text in raw:
        try:
            out.append(Card.parse(text))
        except ValueError:
            raise InvalidPosition(f"{where}: {text!r} is not a card") from None
    return tuple(out)
