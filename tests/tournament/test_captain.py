"""The captain's advice (RULES.md §9.6) and what the captain sees (§12)."""

from __future__ import annotations

import random

import pytest

from app.engine.actions import MakeBid, shuffle_action
from app.engine.cards import DECK
from app.engine.conventions import Conventions
from app.engine.machine import apply, current_actor, legal_actions
from app.engine.state import Phase, TableState, new_table
from app.engine.views import view
from app.tournament.captain import (
    CALL_MS,
    CaptainCall,
    CaptainError,
    called_one,
    captain_view,
    check_call,
    force_majeure,
    legal_suggestions,
)

ALL_CARDS = {c.text for c in DECK}


def _bidding(seed: int) -> TableState:
    state, _ = apply(new_table(3, Conventions(), 0), shuffle_action(random.Random(seed)))
    assert state.phase is Phase.BIDDING
    return state


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def test_a_first_turn_with_misere_legal_is_force_majeure_a_later_plain_turn_is_not() -> None:
    state = _bidding(3)
    seat = current_actor(state)
    assert seat is not None and force_majeure(state, seat)
    assert not force_majeure(state, (seat + 1) % 3)  # not his turn
    # Everyone bids a plain game once: on the first hand's second turn misère is no longer his to bid.
    for _ in range(3):
        actor = current_actor(state)
        bid = next(a for a in legal_actions(state) if isinstance(a, MakeBid) and not a.bid.is_misere)
        state, _ = apply(state, bid)
        assert actor is not None
    assert state.phase is Phase.BIDDING and current_actor(state) == seat and state.allpass_series == 0
    assert not force_majeure(state, seat)


def test_the_captain_sees_exactly_the_callers_hand_and_the_auction() -> None:
    state = _bidding(5)
    seat = current_actor(state)
    assert seat is not None
    seen = captain_view(state, seat)
    own = view(state, seat)["deal"]["hands"][str(seat)]
    assert seen["hand"] == own and len(own) == 10
    assert _strings(seen) & ALL_CARDS == set(own)  # no other card anywhere in it
    assert set(seen) == {"seat", "deal_number", "hand", "auction", "allpass_series"}


def test_calls_are_counted_timed_and_give_one_legal_suggestion() -> None:
    state = _bidding(7)
    seat = current_actor(state)
    assert seat is not None
    check_call(state, seat, 2, team_event=True)
    with pytest.raises(CaptainError):
        check_call(state, seat, 3, team_event=True)  # at most 3 in a pulya
    with pytest.raises(CaptainError):
        check_call(state, seat, 0, team_event=False)
    call = CaptainCall(1, 9, seat, "caller", "cap", state.deal_number, started_ms=1_000)
    call.check_view("cap", state, 1_000 + CALL_MS - 1)
    with pytest.raises(CaptainError):
        call.check_view("cap", state, 1_000 + CALL_MS)  # nothing after the 20 s
    with pytest.raises(CaptainError):
        call.check_view("someone", state, 1_001)
    assert "pass" in legal_suggestions(state, seat)
    with pytest.raises(CaptainError):
        call.suggest("10nt", state, "cap", 1_500)
    bid = next(a.bid.text for a in legal_actions(state) if isinstance(a, MakeBid))
    told = call.suggest(bid, state, "cap", 1_500)
    assert told.suggestion == bid
    with pytest.raises(CaptainError):
        told.suggest("pass", state, "cap", 1_600)  # one suggestion per call
    next_deal = CaptainCall(2, 9, seat, "caller", "cap", state.deal_number - 1, started_ms=1_000)
    with pytest.raises(CaptainError):
        next_deal.check_view("cap", state, 1_500)  # a call of an earlier deal shows nothing of this one


def test_the_call_goes_to_the_captain_or_the_deputy_not_seated_at_the_callers_table() -> None:
    assert called_one("cap", "dep", ["x", "y", "z"]) == "cap"
    assert called_one("cap", "dep", ["x", "cap", "z"]) == "dep"
    assert called_one("cap", "dep", ["dep", "cap", "z"]) is None
    assert called_one(None, "dep", ["x"]) == "dep"
