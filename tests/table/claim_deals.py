"""Fixed deals for claims (RULES.md §4.10), shared by the table, robot and server tests.

Three seats, seat 0 deals: seat 1 is first hand and declares; seat 2 speaks first in the whisting.
Seat 1 holds every spade: with hA h7 kept after the discard he takes exactly 9 tricks in spades (h7 is
lost), with hA hK every trick. Seat 2 holds the clubs, seat 0 the diamonds.
"""

from __future__ import annotations

from typing import Any

from app.engine import (
    Bid,
    CallWhist,
    ChoosePlay,
    Discard,
    MakeBid,
    NameContract,
    PassBid,
    Phase,
    PlayCard,
    PlayMode,
    WhistCall,
    legal_actions,
)
from app.engine.cards import parse_cards
from tests.engine.helpers import deal_of
from tests.table.helpers import Table, deck

NINE_TRICKS = deck(
    "sA sK sQ sJ sT s9 s8 s7 hA h7", "c7 c8 c9 cT cJ cQ cK cA hK hQ", "d7 d8 d9 dT dJ dQ dK dA h8 h9", "hT hJ"
)
TEN_TRICKS = deck(
    "sA sK sQ sJ sT s9 s8 s7 hA hK", "c7 c8 c9 cT cJ cQ cK cA h7 h8", "d7 d8 d9 dT dJ dQ dK dA h9 hT", "hJ hQ"
)
# A clean misère (7, 8 of every suit and s9 c9) and one that must take a heart (hA beside h7).
CLEAN_MISERE = deck(
    "s7 s8 s9 c7 c8 c9 d7 d8 h7 h8", "sT sJ sQ cT cJ cQ d9 dT h9 hT", "sK sA cK cA dJ dQ dK hJ hQ hK", "dA hA"
)
LOSING_MISERE = deck(
    "s7 s8 s9 c7 c8 c9 d7 d8 h7 hA", "sT sJ sQ cT cJ cQ d9 dT h9 hT", "sK sA cK cA dJ dQ dK hJ hQ hK", "dA h8"
)
MINUTES: dict[str, Any] = {"deal_time": 60, "reserve_time": 60}


def play_to_claim(table: Table, whisters: tuple[int, ...] = (2,), mode: PlayMode = PlayMode.CLOSED) -> None:
    """Seat 1 wins 6♠, discards the talon, names 6♠; ``whisters`` whist; he leads sA in the dark."""
    table.act(MakeBid(1, Bid.parse("6s")))
    table.act(PassBid(2))
    table.act(PassBid(0))
    table.act(Discard(1, (deal_of(table.game.state).talon[0], deal_of(table.game.state).talon[1])))
    table.act(NameContract(1, Bid.parse("6s")))
    whist_round(table, whisters)
    table.act(PlayCard(1, parse_cards(["sA"])[0]))
    if table.game.state.phase is Phase.PLAY_MODE:
        table.act(ChoosePlay(2 if 2 in whisters else 0, mode))
    follow_to_declarer(table)


def whist_round(table: Table, whisters: tuple[int, ...]) -> None:
    while table.game.state.phase is Phase.WHISTING:
        seat = table.game.to_act()
        assert seat is not None
        wanted = WhistCall.WHIST if seat in whisters else WhistCall.PASS
        table.act(CallWhist(seat, wanted))


def follow_to_declarer(table: Table) -> None:
    """The defence plays its lowest legal card until the declarer is to play."""
    while table.game.state.phase is Phase.PLAY and deal_of(table.game.state).turn != 1:
        seat = table.game.to_act()
        assert seat is not None
        cards = [a for a in legal_actions(table.game.state) if isinstance(a, PlayCard)]
        table.act(min(cards, key=lambda a: (a.card.rank, a.card.suit)))


def bid_misere(table: Table) -> None:
    table.act(MakeBid(1, Bid.parse("misere")))
    table.act(PassBid(2))
    table.act(PassBid(0))
    talon = deal_of(table.game.state).talon
    table.act(Discard(1, (talon[0], talon[1])))
