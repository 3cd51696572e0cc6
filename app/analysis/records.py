"""A stored deal (its result and its full record, `app.engine.ending.deal_record`) as a `PlayedDeal`.

Only deals with a declarer and at least one card played are analysed: a trick contract or a misère
(an all-pass deal has no declarer; a deal the defenders passed out is not played). The solver's seats
are the three active table seats in clockwise order from the dealer's left (`ActiveSeats`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.analysis.deal import PlayedDeal
from app.engine.bids import Bid
from app.engine.cards import Card, parse_cards

ActiveSeats = tuple[int, int, int]


def active_seats(result: Mapping[str, Any], record: Mapping[str, Any]) -> ActiveSeats:
    seats, dealer = int(result["seats"]), int(result["dealer"])
    active = sorted((int(s) for s in record["hands"]), key=lambda s: (s - dealer - 1) % seats)
    if len(active) != 3:
        raise ValueError("a deal is played by three seats")
    return active[0], active[1], active[2]


def inner_record(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """The deal's own record (hands, talon, discard, tricks, winners) in either stored form."""
    inner = record.get("record")
    return inner if "tricks" not in record and isinstance(inner, Mapping) else record


def played_deal(
    result: Mapping[str, Any] | None, record: Mapping[str, Any]
) -> tuple[PlayedDeal, ActiveSeats] | None:
    """The deal as the solver replays it and the table seat of each solver seat; None if not analysable.

    ``record`` is the deal's record (`deal_record`) or the table's view at the deal's end that the server
    stores (`DealRecord.record`, which holds it under ``"record"``)."""
    record = inner_record(record)
    if result is None or result.get("type") not in ("game", "misere") or result.get("declarer") is None:
        return None
    tricks = record.get("tricks") or []
    if not tricks:
        return None
    seats = active_seats(result, record)
    index = {seat: i for i, seat in enumerate(seats)}
    contract = Bid.parse(str(result["contract"]))
    declarer = int(result["declarer"])
    dealt = {int(s): list(parse_cards(cards)) for s, cards in record["hands"].items()}
    # The declarer's playing hand: with the talon taken and the discard made (a no-talon game has none).
    if record.get("discard"):
        dealt[declarer] = [
            c
            for c in (*dealt[declarer], *parse_cards(record["talon"]))
            if c not in set(parse_cards(record["discard"]))
        ]
    play: list[Card] = []
    for trick in tricks:
        for _seat, text in trick:
            play.append(Card.parse(text))
    hands = tuple(tuple(dealt[seat]) for seat in seats)
    leader = index[int(tricks[0][0][0])]
    deal = PlayedDeal(
        (hands[0], hands[1], hands[2]),
        contract.trump,
        contract.is_misere,
        index[declarer],
        leader,
        tuple(play),
    )
    return deal, seats
