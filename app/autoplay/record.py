"""`InterruptedDeal`: a deal the robot could not finish, archived for adjudication (RULES.md §8.4).

It holds everything a judge needs to award a result: the hands as dealt, the talon, the discard, the
auction, the contract (or the winning bid when none was named), the whist calls, every trick played so far
and the trick in progress, the tricks taken, who ran out of time, and the clocks at that moment.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.engine.bids import Bid
from app.engine.cards import Card, card_texts
from app.engine.ending import misere_partner
from app.engine.result import DealKind, DealResult, PlayMode, WhistCall
from app.engine.state import TableState


class AdjudicationError(ValueError):
    """An award that does not fit the interrupted deal."""


@dataclass(frozen=True, slots=True)
class InterruptedDeal:
    reason: str
    seats: int
    dealer: int
    deal_number: int
    timed_out: tuple[int, ...]
    active: tuple[int, ...]
    hands: dict[int, tuple[Card, ...]]  # as dealt, per active seat
    talon: tuple[Card, ...]
    discard: tuple[Card, ...]
    auction: tuple[tuple[int, Bid | None], ...]  # None = pass
    declarer: int | None
    bid: Bid | None  # the winning bid
    contract: Bid | None  # None when the declarer had not named it
    calls: tuple[tuple[int, WhistCall], ...]
    mode: PlayMode | None
    tricks: tuple[tuple[tuple[int, Card], ...], ...]  # completed tricks: (hand, card), the talon as -1
    trick: tuple[tuple[int, Card], ...]  # the trick in progress
    taken: dict[int, int]  # tricks taken so far per active seat
    misere_partner: int | None = None
    clocks: dict[str, Any] | None = None  # the table clock's JSON at the interruption

    @staticmethod
    def from_state(
        state: TableState, reason: str, clocks: dict[str, Any] | None = None, out_of_time: Iterable[int] = ()
    ) -> InterruptedDeal:
        """The archive record of ``state``'s deal. ``out_of_time``: seats whose clocks ran out that the deal
        does not mark (reserve off, §8.2: the record names who ran out in every case)."""
        deal = state.deal
        if deal is None:
            raise AdjudicationError("no deal in progress to archive")
        return InterruptedDeal(
            reason=reason,
            seats=state.seats,
            dealer=state.dealer,
            deal_number=state.deal_number,
            timed_out=tuple(sorted(deal.timed_out | frozenset(out_of_time))),
            active=deal.active,
            hands={seat: deal.dealt[seat] for seat in deal.active},
            talon=deal.talon,
            discard=deal.discard,
            auction=deal.auction,
            declarer=deal.declarer,
            bid=deal.bid,
            contract=deal.contract,
            calls=deal.calls,
            mode=deal.mode,
            tricks=deal.tricks,
            trick=deal.trick,
            taken={seat: deal.taken[seat] for seat in deal.active},
            misere_partner=misere_partner(state, deal),
            clocks=clocks,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "seats": self.seats,
            "dealer": self.dealer,
            "deal_number": self.deal_number,
            "timed_out": list(self.timed_out),
            "active": list(self.active),
            "hands": {str(seat): card_texts(cards) for seat, cards in self.hands.items()},
            "talon": card_texts(self.talon),
            "discard": card_texts(self.discard),
            "auction": [[seat, None if bid is None else bid.text] for seat, bid in self.auction],
            "declarer": self.declarer,
            "bid": None if self.bid is None else self.bid.text,
            "contract": None if self.contract is None else self.contract.text,
            "calls": [[seat, call.value] for seat, call in self.calls],
            "mode": None if self.mode is None else self.mode.value,
            "tricks": [[[hand, card.text] for hand, card in trick] for trick in self.tricks],
            "trick": [[hand, card.text] for hand, card in self.trick],
            "taken": {str(seat): n for seat, n in self.taken.items()},
            "misere_partner": self.misere_partner,
            "clocks": self.clocks,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> InterruptedDeal:
        def bid(text: str | None) -> Bid | None:
            return None if text is None else Bid.parse(text)

        def played(pairs: list[list[Any]]) -> tuple[tuple[int, Card], ...]:
            return tuple((int(hand), Card.parse(card)) for hand, card in pairs)

        return InterruptedDeal(
            reason=str(data["reason"]),
            seats=int(data["seats"]),
            dealer=int(data["dealer"]),
            deal_number=int(data["deal_number"]),
            timed_out=tuple(int(s) for s in data["timed_out"]),
            active=tuple(int(s) for s in data["active"]),
            hands={int(seat): tuple(Card.parse(c) for c in cards) for seat, cards in data["hands"].items()},
            talon=tuple(Card.parse(c) for c in data["talon"]),
            discard=tuple(Card.parse(c) for c in data["discard"]),
            auction=tuple((int(seat), bid(text)) for seat, text in data["auction"]),
            declarer=None if data.get("declarer") is None else int(data["declarer"]),
            bid=bid(data.get("bid")),
            contract=bid(data.get("contract")),
            calls=tuple((int(seat), WhistCall(call)) for seat, call in data["calls"]),
            mode=None if data.get("mode") is None else PlayMode(data["mode"]),
            tricks=tuple(played(trick) for trick in data["tricks"]),
            trick=played(data["trick"]),
            taken={int(seat): int(n) for seat, n in data["taken"].items()},
            misere_partner=None if data.get("misere_partner") is None else int(data["misere_partner"]),
            clocks=data.get("clocks"),
        )

    def awarded(
        self,
        tricks: dict[int, int] | None,
        *,
        contract: Bid | None = None,
        calls: tuple[tuple[int, WhistCall], ...] | None = None,
        mode: PlayMode | None = None,
    ) -> DealResult:
        """The deal result an administrator awards (§8.4): ``None`` for void, else every active seat's tricks.

        The contract and whist calls default to those recorded; a judge supplies them when the deal was
        interrupted before they were made (e.g. the contract was never named).
        """
        timed_out = self.timed_out
        if tricks is None:
            return DealResult(seats=self.seats, dealer=self.dealer, kind=DealKind.VOID, timed_out=timed_out)
        contract = contract or self.contract or self.bid
        if contract is None or self.declarer is None:
            raise AdjudicationError("a deal without a declarer can only be awarded void")
        if set(tricks) != set(self.active) or sum(tricks.values()) != 10 or min(tricks.values()) < 0:
            raise AdjudicationError(
                f"award 10 tricks over the active seats {list(self.active)}, not {tricks}"
            )
        return DealResult(
            seats=self.seats,
            dealer=self.dealer,
            kind=DealKind.MISERE if contract.is_misere else DealKind.GAME,
            declarer=self.declarer,
            contract=contract,
            calls=self.calls if calls is None else calls,
            play=self.mode if mode is None else mode,
            tricks=dict(tricks),
            misere_partner=self.misere_partner,
            timed_out=timed_out,
        )
