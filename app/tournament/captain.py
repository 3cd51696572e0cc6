"""The captain's advice in a team tournament (RULES.md §9.6, seed 002 Ж), as pure rules.

In the auction, in a «форс-мажорная ситуация» only — read as a turn of his at which misère is among his legal
bids, or the highest bid is a misère, or the table is in an all-pass series **[ours]** — a player may call
his captain, or the deputy when the captain sits at the caller's table, at most 3 times in a pulya (the
seat's count: his substitute shares it). For 20 s the called one sees that player's hand and the auction,
nothing else (`captain_view`), and may send one suggested bid, one of the bids the player may make now
**[ours]**. The player's clock runs as usual; answering pauses neither the captain's own table nor his clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from app.engine.actions import MakeBid, PassBid
from app.engine.cards import card_texts
from app.engine.machine import current_actor, legal_actions
from app.engine.state import Phase, TableState

CALLS_PER_PULYA: Final = 3
CALL_MS: Final = 20_000


class CaptainError(ValueError):
    """A call or a suggestion that §9.6 does not allow; the message says which rule."""


def force_majeure(state: TableState, seat: int) -> bool:
    """Is it ``seat``'s turn in the auction in one of the seed's force-majeure situations (§9.6 [ours])?"""
    deal = state.deal
    if deal is None or state.phase is not Phase.BIDDING or current_actor(state) != seat:
        return False
    misere_legal = any(isinstance(a, MakeBid) and a.bid.is_misere for a in legal_actions(state))
    misere_high = deal.highest is not None and deal.highest.is_misere
    return misere_legal or misere_high or state.allpass_series > 0


def called_one(captain: str | None, deputy: str | None, seated: Sequence[str | None]) -> str | None:
    """Whom the call reaches: the captain, or the deputy when the captain sits at the caller's table."""
    for name in (captain, deputy):
        if name is not None and name not in seated:
            return name
    return None


def check_call(state: TableState, seat: int, calls_so_far: int, *, team_event: bool) -> None:
    if not team_event:
        raise CaptainError("a captain is called only in a team tournament")
    if calls_so_far >= CALLS_PER_PULYA:
        raise CaptainError(f"at most {CALLS_PER_PULYA} calls per seat in a pulya")
    if not force_majeure(state, seat):
        raise CaptainError(
            "a captain is called at one's turn in the auction, in a force-majeure situation only"
        )


def captain_view(state: TableState, seat: int) -> dict[str, Any]:
    """Exactly what the called one sees: the caller's hand and the auction (§12), nothing else."""
    deal = state.deal
    if deal is None:
        raise CaptainError("no deal in progress")
    return {
        "seat": seat,
        "deal_number": state.deal_number,
        "hand": card_texts(deal.hands[seat]),
        "auction": [[s, None if bid is None else bid.text] for s, bid in deal.auction],
        "allpass_series": state.allpass_series,
    }


def legal_suggestions(state: TableState, seat: int) -> list[str]:
    """The bids the caller may make now, as texts ("pass" for a pass): what a captain may suggest."""
    if current_actor(state) != seat or state.phase is not Phase.BIDDING:
        return []
    out = []
    for action in legal_actions(state):
        if isinstance(action, PassBid):
            out.append("pass")
        elif isinstance(action, MakeBid):
            out.append(action.bid.text)
    return out


@dataclass(frozen=True, slots=True)
class CaptainCall:
    """One call: who called from which seat, whom it reached, when, and the one suggestion (if sent)."""

    id: int
    table_id: int
    seat: int
    caller: str
    captain: str
    deal_number: int
    started_ms: int
    suggestion: str | None = None

    def is_open(self, now_ms: int) -> bool:
        """The 20 s of the call (§9.6): the captain sees the hand and may suggest only within them."""
        return self.started_ms <= now_ms < self.started_ms + CALL_MS

    def check_view(self, viewer: str, state: TableState, now_ms: int) -> None:
        """The called one may look now: within the 20 s, in the same deal's auction."""
        if viewer != self.captain:
            raise CaptainError("only the called captain sees the caller's hand")
        if not self.is_open(now_ms):
            raise CaptainError("the call's 20 s are over")
        if state.deal_number != self.deal_number or state.phase is not Phase.BIDDING:
            raise CaptainError("the auction of that deal is over")

    def suggest(self, bid: str, state: TableState, viewer: str, now_ms: int) -> CaptainCall:
        self.check_view(viewer, state, now_ms)
        if self.suggestion is not None:
            raise CaptainError("one suggestion per call")
        allowed = legal_suggestions(state, self.seat)
        if bid not in allowed:
            raise CaptainError(f"suggest one of the caller's bids now: {', '.join(allowed) or 'none'}")
        return CaptainCall(self.id, self.table_id, self.seat, self.caller, self.captain, self.deal_number,
                           self.started_ms, bid)  # fmt: skip

    def to_json(self, now_ms: int) -> dict[str, Any]:
        return {
            "id": self.id,
            "table_id": self.table_id,
            "seat": self.seat,
            "caller": self.caller,
            "captain": self.captain,
            "deal_number": self.deal_number,
            "started_ms": self.started_ms,
            "ends_ms": self.started_ms + CALL_MS,
            "open": self.is_open(now_ms),
            "suggestion": self.suggestion,
        }
