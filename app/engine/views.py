"""What one viewer may see of a table (RULES.md §12). Hidden cards never enter a view.

``viewer`` is a seat number, or None for a spectator. The 4-seat dealer is a seat like any other: it holds no
cards and sees only the hands it was shown (dealer whist look, misère invitation).
"""

from __future__ import annotations

from typing import Any

from app.engine.cards import card_texts
from app.engine.claims import claim_options
from app.engine.ending import claim_record
from app.engine.machine import current_actor, deal_record, legal_actions
from app.engine.state import TALON, DealState, Phase, TableState


def visible_hands(state: TableState, deal: DealState, viewer: int | None) -> dict[int, list[str]]:
    """Hands (current cards) this viewer may see, by seat."""
    shown: dict[int, list[str]] = {}
    if viewer is not None and viewer in deal.active:
        shown[viewer] = card_texts(deal.hands[viewer])
    for seat in sorted(deal.open_hands):  # open whist, misère lie-down: public to the whole table [ours]
        shown[seat] = card_texts(deal.hands[seat])
    if deal.claim is not None and deal.declarer is not None:  # §12: a claim shows his hand to all
        shown[deal.declarer] = card_texts(deal.hands[deal.declarer])
    if viewer is not None and state.seats == 4 and viewer == state.dealer:
        # The dealer keeps the cards he was shown, less those played since; filtering by the current hand
        # instead would disclose the declarer's discard.
        played = {card for trick in (*deal.tricks, deal.trick) for _, card in trick}
        for seat in deal.dealer_seen:
            if seat not in shown:
                shown[seat] = card_texts(c for c in deal.dealt[seat] if c not in played)
    return shown


def _talon_visible(deal: DealState) -> list[str]:
    if deal.talon_open:
        return card_texts(deal.talon)
    if deal.allpass:  # §12: a talon card is shown as it is led, then like any card of its trick
        led = [c for trick in (deal.last_trick, deal.trick) for hand, c in trick if hand == TALON]
        return card_texts(led)
    return []


def _trick(trick: tuple[tuple[int, Any], ...]) -> list[list[Any]]:
    return [[hand, card.text] for hand, card in trick]


def view(state: TableState, viewer: int | None, legal: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The viewer's picture of the table. ``legal``: the viewer's legal actions as JSON when the caller has
    already listed them (the server sends them beside the view), so they are not listed twice."""
    return viewer_view(state, public_view(state), viewer, legal)


def public_view(state: TableState) -> dict[str, Any]:
    """What every viewer's picture of the table has in common (§12: no hand, no discard, nothing of one
    seat's): built once per table version and completed for each viewer by `viewer_view`. Its ``viewer``,
    ``hands`` and ``discard`` are placeholders, left None."""
    to_act = current_actor(state)
    out: dict[str, Any] = {
        "seats": state.seats,
        "dealer": state.dealer,
        "deal_number": state.deal_number,
        "phase": state.phase.value,
        "allpass_series": state.allpass_series,
        "to_act": to_act,
        "viewer": None,
    }
    deal = state.deal
    if deal is None:
        return out
    out["deal"] = {
        "first_hand": deal.first_hand,
        "active": list(deal.active),
        "auction": [[seat, None if bid is None else bid.text] for seat, bid in deal.auction],
        "highest": None if deal.highest is None else deal.highest.text,
        "declarer": deal.declarer,
        "bid": None if deal.bid is None else deal.bid.text,
        "contract": None if deal.contract is None else deal.contract.text,
        "talon": _talon_visible(deal),
        "hand_sizes": {str(s): len(deal.hands[s]) for s in deal.active},
        "hands": None,
        "discard": None,
        "invitation": deal.inviter,
        "misere_for_two": deal.misere_partner_of is not None,
        "calls": [[seat, call.value] for seat, call in deal.calls],
        "whisters": list(deal.whisters),
        "half_whister": deal.half_whister,
        "mode": None if deal.mode is None else deal.mode.value,
        "trump": None if deal.trump is None else "scdh"[deal.trump],
        "allpass": deal.allpass,
        "trick": _trick(deal.trick),
        "last_trick": _trick(deal.last_trick),
        "tricks_played": len(deal.tricks),
        "taken": {str(s): deal.taken[s] for s in deal.active},
        "talon_taken": deal.talon_taken,
        "timed_out": sorted(deal.timed_out),
        "claim": claim_record(deal),
    }
    if state.phase is Phase.DEAL_OVER:
        assert state.last_result is not None
        out["result"] = state.last_result.to_json()
        out["record"] = deal_record(deal)
    if state.phase is Phase.INTERRUPTED:
        out["interrupt_reason"] = state.interrupt_reason
    return out


def viewer_view(
    state: TableState, public: dict[str, Any], viewer: int | None, legal: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """``public`` (`public_view` of the same state) completed for ``viewer``: the hands he may see, his
    discard, his legal actions. ``public`` is not changed: its parts are shared by every viewer's."""
    out = dict(public)
    out["viewer"] = viewer
    deal = state.deal
    if deal is None:
        return out
    shared = public["deal"]
    mine = out["deal"] = dict(shared)
    mine["hands"] = {str(s): cards for s, cards in visible_hands(state, deal, viewer).items()}
    mine["discard"] = card_texts(deal.discard) if viewer is not None and viewer == deal.declarer else None
    if viewer is not None and viewer == public["to_act"]:
        if state.phase is Phase.DISCARD:
            out["legal"] = [{"type": "discard", "seat": viewer, "choose": 2}]
        else:
            out["legal"] = legal if legal is not None else [a.to_json() for a in legal_actions(state)]
        claims = claim_options(state)
        if claims:
            out["claims"] = list(claims)  # §4.10: the declarer may claim instead of playing a card
    return out
