"""Independent checks of a played game, used by the `random` command and the tests.

`Knowledge` follows the action log and works out, from the rules of RULES.md §12 alone, which cards each
viewer may know; `cards_in` pulls every card out of any JSON value. Together they test that a view or a
frame never shows a card its viewer may not see, without trusting `views.py`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from app.engine.actions import (
    Action,
    CallWhist,
    ChoosePlay,
    Claim,
    DealerLook,
    InviteDealer,
    PlayCard,
    Shuffle,
)
from app.engine.cards import DECK, Card
from app.engine.result import PlayMode, WhistCall
from app.engine.state import Phase, TableState

_CARD_TEXTS = {c.text: c for c in DECK}
# A card travels as a JSON string of its own: "sA".
_CARD_PATTERN = re.compile(r'"([scdh][789TJQKA])"')


def cards_in(value: Any) -> set[Card]:
    """Every card named anywhere in a JSON-like value or an already encoded JSON text (keys included)."""
    text = value if isinstance(value, str) else json.dumps(value)
    return {_CARD_TEXTS[t] for t in _CARD_PATTERN.findall(text)}


class Knowledge:
    """Which cards each viewer (seat, or None for a spectator) may know, updated action by action."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.public: set[Card] = set()
        self.private: dict[int, set[Card]] = {s: set() for s in range(seats)}
        self.open_play = False  # open whist chosen, or a dealer whist

    def allowed(self, viewer: int | None) -> set[Card]:
        return self.public if viewer is None else self.public | self.private[viewer]

    def before(self, state: TableState, action: Action) -> None:
        """Record what ``action`` reveals, judged on the state it is applied to."""
        deal = state.deal
        if isinstance(action, Shuffle):
            self.public = set()
            self.private = {s: set() for s in range(self.seats)}
            self.open_play = False
            return
        assert deal is not None
        if isinstance(action, InviteDealer):
            self.private[state.dealer] |= set(deal.hands[action.seat])
        elif isinstance(action, DealerLook):
            self.private[state.dealer] |= set(deal.hands[action.target])
        elif isinstance(action, PlayCard):
            self.public.add(action.card)
        elif isinstance(action, Claim):  # §12: a claim shows the declarer's hand to everyone
            self.public |= set(deal.hands[action.seat])

    def after(self, state: TableState, action: Action) -> None:
        """Record what became visible once ``action`` was applied."""
        deal = state.deal
        if deal is None:
            return
        if isinstance(action, Shuffle):
            for seat in deal.active:
                self.private[seat] |= set(deal.dealt[seat])
        if state.phase is Phase.DEAL_OVER:
            self.public |= set(DECK)
            return
        if deal.declarer is not None and deal.bid is not None and not deal.bid.no_talon:
            self.public |= set(deal.talon)  # a with-talon declarer reveals it
        if deal.allpass:
            self.public |= {card for trick in (*deal.tricks, deal.trick) for _, card in trick}
        if (isinstance(action, ChoosePlay) and action.mode is PlayMode.OPEN) or (
            isinstance(action, CallWhist)
            and action.seat == state.dealer
            and state.seats == 4
            and action.call is WhistCall.WHIST
        ):
            self.open_play = True
        misere = deal.contract is not None and deal.contract.is_misere and state.phase is Phase.PLAY
        # A declarer in first hand leads in the dark: nothing opens before his first card (§4.9).
        dark = deal.first_hand == deal.declarer and not deal.trick and not deal.tricks
        if (self.open_play or misere) and not dark and deal.declarer is not None:
            for seat in deal.active:
                if seat != deal.declarer:
                    self.public |= set(deal.hands[seat])


def conserved(state: TableState) -> bool:
    """All 32 cards are accounted for exactly once: hands, talon/discard, and played cards."""
    deal = state.deal
    if deal is None:
        return True
    seen: Counter[Card] = Counter()
    for seat in deal.active:
        seen.update(deal.hands[seat])
    for trick in (*deal.tricks, deal.trick):
        seen.update(card for _, card in trick)
    if deal.allpass:
        led = {card for trick in (*deal.tricks, deal.trick) for _, card in trick}
        seen.update(c for c in deal.talon if c not in led)
    elif deal.talon_open:
        seen.update(deal.discard)
    else:
        seen.update(deal.talon)
    return len(seen) == 32 and all(n == 1 for n in seen.values())


def play_is_legal(state: TableState, action: PlayCard) -> bool:
    """Follow suit, else trump, else any — checked from the hand, not from `legal_actions`."""
    deal = state.deal
    assert deal is not None and deal.turn is not None
    hand = deal.hands[deal.turn]
    if action.card not in hand:
        return False
    if not deal.trick:
        return True
    led = deal.trick[0][1].suit
    if any(c.suit == led for c in hand):
        return action.card.suit == led
    if deal.trump is not None and any(c.suit == deal.trump for c in hand):
        return action.card.suit == deal.trump
    return True
