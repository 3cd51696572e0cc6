"""The table state as immutable values: `TableState` (across deals) and `DealState` (one deal).

Seats are numbered clockwise 0..n-1. With 4 seats the dealer gets no cards; ``active`` lists the seats
that hold cards, in play order from first hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from app.engine.bids import Bid
from app.engine.cards import Card
from app.engine.conventions import Conventions
from app.engine.result import DealResult, PlayMode, WhistCall


class Phase(StrEnum):
    AWAITING_DEAL = "awaiting_deal"  # a Shuffle starts the next deal
    BIDDING = "bidding"
    DEALER_INVITATION = "dealer_invitation"  # the 4-seat dealer answers a misère-for-two invitation
    DISCARD = "discard"  # the declarer has taken the talon and discards two
    CONTRACT = "contract"  # the declarer names the contract (or zastrel)
    WHISTING = "whisting"
    PLAY_MODE = "play_mode"  # a lone whister chooses open or closed
    PLAY = "play"
    CLAIM = "claim"  # the declarer claimed (§4.10): the defenders answer, or the solver's verdict is due
    DEAL_OVER = "deal_over"
    INTERRUPTED = "interrupted"


# A played card tagged with the hand it came from; the talon's "hand" in all-pass play is TALON.
TALON = -1


@dataclass(frozen=True)
class ClaimState:
    """The declarer's claim of this deal (§4.10); kept to the end of the deal (no second claim)."""

    tricks: int  # of the remaining tricks, the declarer claims this many (a misère: 0, none of the rest)
    remaining: int  # tricks not yet completed when he claimed (the current trick included)
    answerers: tuple[int, ...]  # the seats that answer, in the order they answer
    answers: tuple[tuple[int, bool], ...] = ()  # (seat, accepted), in order
    verdict: str | None = None  # the solver's, after a rejection: "stands", "fails" or "undecided"

    @property
    def rejected(self) -> bool:
        return any(not accepted for _, accepted in self.answers)

    @property
    def void(self) -> bool:
        """Rejected and not upheld: play went on with the declarer's hand open."""
        return self.verdict is not None and self.verdict != "stands"


@dataclass(frozen=True)  # not slots: `evolve` copies the instance dict in one step
class DealState:
    first_hand: int
    active: tuple[int, ...]  # seats with cards, in play order from first hand
    dealt: tuple[tuple[Card, ...], ...]  # per seat, as dealt (the 4-seat dealer: empty)
    talon: tuple[Card, ...]
    hands: tuple[tuple[Card, ...], ...]  # per seat, cards still held (declarer: 12 before the discard)
    turn: int | None  # the hand that must act now (the actor may differ: see `controller`)
    # bidding
    auction: tuple[tuple[int, Bid | None], ...] = ()  # None = pass
    passed: frozenset[int] = frozenset()
    highest: Bid | None = None
    highest_seat: int | None = None
    invitation_used: bool = False
    inviter: int | None = None  # a seat whose misère-for-two invitation the dealer is answering
    misere_partner_of: int | None = None  # the inviter whom the dealer joined (§3.3)
    dealer_seen: tuple[int, ...] = ()  # hands the 4-seat dealer has been shown
    # talon and contract
    declarer: int | None = None
    bid: Bid | None = None  # the winning bid
    talon_open: bool = False
    discard: tuple[Card, ...] = ()
    contract: Bid | None = None
    # whisting
    calls: tuple[tuple[int, WhistCall], ...] = ()
    whisters: tuple[int, ...] = ()  # seats whose whist stands (dealer included)
    half_whister: int | None = None
    returned: bool = False  # a passer took the whist back after a half-whist (§4.5)
    dealer_whist: bool = False
    mode: PlayMode | None = None
    mode_chooser: int | None = None
    open_hands: frozenset[int] = frozenset()  # seats whose hands are shown to the table
    controller: tuple[tuple[int, int], ...] = ()  # (hand, acting seat) where someone else plays a hand
    # play
    allpass: bool = False
    trump: int | None = None  # Suit value, or None for no trumps
    trick: tuple[tuple[int, Card], ...] = ()  # (hand or TALON, card) of the current trick
    last_trick: tuple[tuple[int, Card], ...] = ()
    tricks: tuple[tuple[tuple[int, Card], ...], ...] = ()  # every completed trick, in order
    taken: tuple[int, ...] = ()  # tricks taken per seat
    talon_taken: int = 0  # all-pass: tricks won by a talon card
    winners: tuple[int, ...] = ()  # winner of each completed trick (TALON for the talon)
    timed_out: frozenset[int] = frozenset()
    claim: ClaimState | None = None  # §4.10: once made, the declarer's hand is shown to all to the end

    def actor_of(self, hand: int) -> int:
        for owned, actor in self.controller:
            if owned == hand:
                return actor
        return hand


@dataclass(frozen=True)
class TableState:
    seats: int
    conventions: Conventions
    dealer: int
    phase: Phase = Phase.AWAITING_DEAL
    deal_number: int = 0
    allpass_series: int = 0  # all-pass deals in the running series (§6.5)
    deal: DealState | None = None
    last_result: DealResult | None = None
    interrupt_reason: str | None = None

    @property
    def next_dealer(self) -> int:
        return self.dealer if self.deal_number == 0 else (self.dealer + 1) % self.seats


def defenders(deal: DealState) -> tuple[int, int]:
    """The two other active seats, the one after the declarer first (§4.3)."""
    assert deal.declarer is not None
    i = deal.active.index(deal.declarer)
    n = len(deal.active)
    return deal.active[(i + 1) % n], deal.active[(i + 2) % n]


def new_table(seats: int, conventions: Conventions | None = None, first_dealer: int = 0) -> TableState:
    if seats not in (3, 4):
        raise ValueError(f"a table has 3 or 4 seats, not {seats}")
    if not 0 <= first_dealer < seats:
        raise ValueError(f"first dealer {first_dealer} is not a seat of a {seats}-seat table")
    return TableState(seats=seats, conventions=conventions or Conventions(), dealer=first_dealer)


_T = TypeVar("_T")


def evolve(value: _T, **changes: Any) -> _T:
    """A copy of a frozen dataclass value with ``changes`` applied.

    `dataclasses.replace` re-runs ``__init__`` field by field; this copies the instance dict in one step,
    which makes it the cheap operation the engine's hot path needs (several per action).
    """
    fields_now = value.__dict__.copy()
    fields_now.update(changes)
    new = object.__new__(type(value))
    object.__setattr__(new, "__dict__", fields_now)
    return new
