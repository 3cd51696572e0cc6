"""What one seat knows, read from its own view (`app.engine.view(state, seat)`) and nothing else.

A view shows the current trick and the last completed one only (RULES.md §12), as a player at the table
sees it. A robot remembers the tricks it saw the way a player does: `remember` folds each view into a
`Memory` (a plain value; the caller keeps it between decisions, the server with the seat). A robot acts in
every trick it plays, so the views of its own decisions already show each completed trick as the last
trick of the next decision. Without memory (or with gaps) the robot still decides soundly: the cards it
cannot place go to an "unseen elsewhere" slot of the layouts (`Knowledge.dead`).

`Knowledge` is the seat's picture of the deal: the hands it sees, the cards played, the voids shown by
play, the hidden hands with their sizes, and which hidden slot each unseen card may lie in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine.bids import Bid
from app.engine.cards import DECK, Card, Suit
from app.engine.result import WhistCall
from app.engine.state import TALON

Trick = tuple[tuple[int, Card], ...]
DEAD = -2  # the slot of unseen cards that are in no hand: a hidden talon or discard, unwitnessed tricks


@dataclass(frozen=True, slots=True)
class Memory:
    """Completed tricks this seat has seen in the current deal, by trick index."""

    deal_number: int = 0
    tricks: tuple[tuple[int, Trick], ...] = ()

    def trick_map(self) -> dict[int, Trick]:
        return dict(self.tricks)


def _trick(raw: list[list[Any]]) -> Trick:
    return tuple((int(hand), Card.parse(text)) for hand, text in raw)


def remember(memory: Memory | None, view: dict[str, Any]) -> Memory:
    """``memory`` with what ``view`` shows added (a new deal starts a new memory)."""
    number = int(view.get("deal_number", 0))
    if memory is None or memory.deal_number != number:
        memory = Memory(number)
    deal = view.get("deal")
    if deal is None or not deal.get("last_trick"):
        return memory
    index = int(deal["tricks_played"]) - 1
    known = memory.trick_map()
    known[index] = _trick(deal["last_trick"])
    return Memory(number, tuple(sorted(known.items())))


@dataclass
class Knowledge:
    seat: int
    seats: int
    dealer: int
    active: tuple[int, ...]
    allpass: bool
    declarer: int | None
    bid: Bid | None  # the winning bid, once the auction is over
    contract: Bid | None
    auction: list[tuple[int, Bid | None]]
    calls: list[tuple[int, WhistCall]]
    trump: Suit | None
    hands: dict[int, tuple[Card, ...]]  # hands this seat sees now (own, open, shown to the dealer)
    sizes: dict[int, int]  # cards held per active seat
    trick: Trick  # the current trick
    tricks_played: int
    taken: dict[int, int]  # tricks taken so far per active seat
    played: set[Card]  # cards known to be out of play (completed tricks seen, the current trick)
    voids: dict[int, set[Suit]] = field(default_factory=dict)
    talon: tuple[Card, ...] = ()  # talon cards this seat has seen
    discard: tuple[Card, ...] = ()  # own discard, when declarer
    pool: list[Card] = field(default_factory=list)  # unseen cards to place
    allowed: dict[Card, frozenset[int]] = field(default_factory=dict)  # slots a pool card may lie in
    slots: dict[int, int] = field(default_factory=dict)  # hidden hand (or DEAD) -> size

    def hidden(self) -> list[int]:
        return [s for s in self.active if s not in self.hands]


def read(view: dict[str, Any], memory: Memory | None = None) -> Knowledge:
    """The seat's knowledge from its view (and the tricks it remembers of this deal)."""
    deal = view["deal"]
    seat = int(view["viewer"])
    active = tuple(int(s) for s in deal["active"])
    contract_text = deal.get("contract")
    contract = Bid.parse(contract_text) if contract_text else None
    trump_text = deal.get("trump")
    trump = None if trump_text is None else Suit.parse(trump_text)
    hands = {int(s): tuple(Card.parse(t) for t in cards) for s, cards in deal["hands"].items()}
    sizes = {int(s): int(n) for s, n in deal["hand_sizes"].items()}
    trick = _trick(deal["trick"])
    played_tricks: dict[int, Trick] = {}
    if memory is not None and memory.deal_number == int(view.get("deal_number", 0)):
        played_tricks.update(memory.trick_map())
    if deal["last_trick"]:
        played_tricks[int(deal["tricks_played"]) - 1] = _trick(deal["last_trick"])
    witnessed = [t for i, t in sorted(played_tricks.items()) if i < int(deal["tricks_played"])]
    played = {c for t in witnessed for _, c in t} | {c for _, c in trick}
    know = Knowledge(
        seat=seat,
        seats=int(view["seats"]),
        dealer=int(view["dealer"]),
        active=active,
        allpass=bool(deal["allpass"]),
        declarer=deal.get("declarer"),
        bid=Bid.parse(deal["bid"]) if deal.get("bid") else None,
        contract=contract,
        auction=[(int(s), None if b is None else Bid.parse(b)) for s, b in deal["auction"]],
        calls=[(int(s), WhistCall(c)) for s, c in deal["calls"]],
        trump=trump,
        hands=hands,
        sizes=sizes,
        trick=trick,
        tricks_played=int(deal["tricks_played"]),
        taken={int(s): int(n) for s, n in deal["taken"].items()},
        played=played,
        talon=tuple(Card.parse(t) for t in deal["talon"]),
        discard=tuple(Card.parse(t) for t in deal["discard"] or ()),
    )
    for t in (*witnessed, trick):
        _note_voids(know, t)
    _place_unseen(know)
    return know


def _note_voids(know: Knowledge, trick: Trick) -> None:
    if not trick:
        return
    led = trick[0][1].suit
    for hand, card in trick[1:]:
        if hand == TALON or card.suit == led:
            continue
        voids = know.voids.setdefault(hand, set())
        voids.add(led)
        if know.trump is not None and card.suit != know.trump:
            voids.add(know.trump)  # void in the led suit and did not trump: no trumps either


def _place_unseen(know: Knowledge) -> None:
    """The pool of unseen cards, the hidden slots and where each card may lie."""
    seen: set[Card] = set(know.played) | set(know.discard)
    for cards in know.hands.values():
        seen |= set(cards)
    hidden = know.hidden()
    known_talon = set(know.talon) - seen
    pool = [c for c in DECK if c not in seen]
    slots = {s: know.sizes[s] for s in hidden}
    dead = len(pool) - sum(slots.values())
    if dead < 0:  # pragma: no cover - a view always accounts for every card
        raise ValueError("the view shows more hidden cards than there are unseen cards")
    if dead:
        slots[DEAD] = dead
    everywhere = frozenset(slots)
    allowed: dict[Card, frozenset[int]] = {}
    for card in pool:
        places = {s for s in everywhere if s == DEAD or card.suit not in know.voids.get(s, set())}
        if card in known_talon and not know.allpass and know.declarer is not None:
            # A shown talon went into the declarer's hand: held by him or in his discard (§3.1).
            places &= {know.declarer, DEAD}
        if card in known_talon and know.allpass:
            places &= {DEAD}  # all-pass: a talon card is led by the talon, never held
        allowed[card] = frozenset(places) if places else everywhere
    know.pool = pool
    know.slots = slots
    know.allowed = allowed
