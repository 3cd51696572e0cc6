"""Talon, discard, contract (RULES.md §3) and whisting (§4)."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import (
    Bid,
    ChoosePlay,
    DealerLook,
    DealKind,
    IllegalAction,
    NameContract,
    Phase,
    PlayMode,
    TableState,
    Zastrel,
    apply,
    current_actor,
    legal_actions,
    view,
)

from .helpers import (
    bid,
    deal_of,
    discard,
    discard_first_two,
    legal_calls,
    legal_types,
    pas,
    play,
    result_of,
    run,
    start,
    whist,
)

HAND1 = "sA sK sQ sJ sT cA cK dA hA hK"
TALON = "s9 s8"


def declared(contract: str = "6s", **kw: Any) -> TableState:
    """3 seats, dealer 0: seat 1 (first hand) wins with 6♠, discards s8 s9, names ``contract``."""
    state = start(hands={1: HAND1}, talon=TALON, **kw)
    return run(state, bid(1, "6s"), pas(2), pas(0), discard(1, "s9 s8"), NameContract(1, Bid.parse(contract)))


def test_talon_is_revealed_to_all_and_discard_seen_only_by_declarer() -> None:
    """§3.1, §12: the talon is shown to everyone; the discard only to the declarer."""
    state = run(start(hands={1: HAND1}, talon=TALON), bid(1, "6s"), pas(2), pas(0))
    assert sorted(view(state, None)["deal"]["talon"]) == ["s8", "s9"]
    state = run(state, discard(1, "s9 cK"))
    assert view(state, 1)["deal"]["discard"] == ["s9", "cK"]
    assert view(state, 2)["deal"]["discard"] is None and view(state, None)["deal"]["discard"] is None
    assert state.phase is Phase.CONTRACT and len(deal_of(state).hands[1]) == 10


def test_contract_not_below_the_bid_and_never_misere_after_trick_bid() -> None:
    """§3.1: a trick contract at or above the bid; misère is not allowed after a trick bid."""
    state = run(start(hands={1: HAND1}, talon=TALON), bid(1, "6s"), pas(2), pas(0))
    state = run(state, discard(1, "s9 s8"))
    names = {a.contract.text for a in legal_actions(state) if isinstance(a, NameContract)}
    assert "6s" in names and "10n" in names and "misere" not in names and "6s-nt" not in names
    above = run(start(hands={1: HAND1}, talon=TALON), bid(1, "6s"), bid(2, "6c"), bid(0, "6d"), bid(1, "6d"))
    above = run(above, pas(2), pas(0), discard(1, "s9 s8"))
    with pytest.raises(IllegalAction):
        apply(above, NameContract(1, Bid.parse("6c")))


def test_no_talon_declarer_neither_sees_nor_takes_the_talon() -> None:
    """§2.8, §3.1: a no-talon declarer names a no-talon contract; the talon stays closed."""
    state = run(start(hands={1: HAND1}, talon=TALON), bid(1, "6s-nt"), pas(2), pas(0))
    assert state.phase is Phase.CONTRACT and view(state, 1)["deal"]["talon"] == []
    names = {a.contract.text for a in legal_actions(state) if isinstance(a, NameContract)}
    assert "6s-nt" in names and "7s" not in names


def test_zastrel_only_in_a_series_after_a_single_primary_bid() -> None:
    """§3.2: «застрел» after winning with one's only bid, 6♠ or 7♠, in an all-pass series."""
    in_series = run(start(hands={1: HAND1}, talon=TALON, series=2), bid(1, "6s"), pas(2), pas(0))
    in_series = run(in_series, discard(1, "s9 s8"))
    assert "zastrel" in legal_types(in_series)
    state, _ = apply(in_series, Zastrel(1))
    assert state.last_result is not None and state.last_result.kind is DealKind.ZASTREL
    no_series = run(start(hands={1: HAND1}, talon=TALON), bid(1, "6s"), pas(2), pas(0))
    no_series = run(no_series, discard(1, "s9 s8"))
    assert "zastrel" not in legal_types(no_series)


def test_whisting_starts_with_the_defender_after_the_declarer() -> None:
    """§4.3: defender after the declarer speaks first."""
    state = declared()
    assert state.phase is Phase.WHISTING and current_actor(state) == 2


def test_half_whist_only_on_six_and_seven() -> None:
    """§4.4: half-whist on 6 and 7 only, by the second defender after the first passed."""
    assert legal_calls(run(declared("6s"), whist(2, "pass"))) == {"pass", "whist", "half-whist"}
    assert legal_calls(run(declared("7s"), whist(2, "pass"))) == {"pass", "whist", "half-whist"}
    assert legal_calls(run(declared("8s"), whist(2, "pass"))) == {"pass", "whist"}
    assert legal_calls(declared("6s")) == {"pass", "whist"}  # not the first defender


def test_half_whist_that_stands_means_no_play_and_a_made_contract() -> None:
    """§4.7: a half-whist not returned → no play; contract counted made."""
    state = run(declared("6s"), whist(2, "pass"), whist(0, "half-whist"), whist(2, "pass"))
    result = state.last_result
    assert state.phase is Phase.DEAL_OVER and result is not None and result.tricks is None
    assert [c.value for _, c in result.calls] == ["pass", "half-whist", "pass"]


def test_return_of_whist_after_half_whist() -> None:
    """§4.5: «пас – полвиста – вист»: the passer takes the whist back and whists alone."""
    state = run(declared("7s"), whist(2, "pass"), whist(0, "half-whist"), whist(2, "whist"))
    assert deal_of(state).returned and deal_of(state).whisters == (2,)
    assert state.phase is Phase.PLAY  # declarer is first hand: he leads in the dark first (§4.9)


def test_gentleman_switch_whist_pass_half_whist_then_long_whist() -> None:
    """§4.4–4.5: «вист – пас – полвиста – вист»."""
    state = run(declared("6s"), whist(2, "whist"), whist(0, "pass"))
    assert current_actor(state) == 2
    assert legal_calls(state) == {"whist", "half-whist"}
    state = run(state, whist(2, "half-whist"), whist(0, "whist"))
    assert deal_of(state).whisters == (0,) and deal_of(state).returned


def test_both_whist_means_closed_play() -> None:
    """§4.7: both whist → closed play, each defender his own hand."""
    state = run(declared("7s"), whist(2, "whist"), whist(0, "whist"))
    assert state.phase is Phase.PLAY and deal_of(state).mode is PlayMode.CLOSED
    assert view(state, 2)["deal"]["hands"].keys() == {"2"}


def test_declarer_in_first_hand_leads_in_the_dark_before_open_choice() -> None:
    """§4.9: the declarer in first hand leads first, then the lone whister chooses open/closed."""
    state = run(declared("6s"), whist(2, "whist"), whist(0, "pass"), whist(2, "whist"))
    assert state.phase is Phase.PLAY and current_actor(state) == 1
    state = run(state, play(1, "sA"))
    assert state.phase is Phase.PLAY_MODE and current_actor(state) == 2
    state = run(state, ChoosePlay(2, PlayMode.OPEN))
    assert state.phase is Phase.PLAY and current_actor(state) == 2
    assert set(view(state, None)["deal"]["hands"]) == {"0", "2"}  # both defenders open to the table
    # The whister plays the passer's hand too.
    state = run(state, play(2, view(state, 2)["legal"][0]["card"]))
    assert current_actor(state) == 2 and deal_of(state).turn == 0


def test_lone_whister_chooses_before_the_lead_when_declarer_is_not_first_hand() -> None:
    """§4.9: otherwise the lone whister chooses before the first lead."""
    state = start(dealer=0)
    state = run(state, pas(1), bid(2, "6s"), pas(0))
    state = run(state, discard_first_two(state, 2))
    state = run(
        state, NameContract(2, Bid.parse("6s")), whist(0, "whist"), whist(1, "pass"), whist(0, "whist")
    )
    assert state.phase is Phase.PLAY_MODE and current_actor(state) == 0


def test_nobody_whists_no_play_contract_made() -> None:
    """§4.7: nobody whists → no play; contract counted made."""
    state = run(declared("6s"), whist(2, "pass"), whist(0, "pass"))
    assert state.phase is Phase.DEAL_OVER and result_of(state).tricks is None


def test_dealer_whist_at_four_seats() -> None:
    """§4.8: with 4 seats the dealer is asked last, may look at one hand, and plays both hands open."""
    state = start(seats=4, dealer=0, hands={1: HAND1}, talon=TALON)
    state = run(state, bid(1, "6s"), pas(2), pas(3), discard(1, "s9 s8"))
    state = run(state, NameContract(1, Bid.parse("6s")), whist(2, "pass"), whist(3, "pass"))
    assert current_actor(state) == 0 and "dealer_look" in legal_types(state)
    state, events = apply(state, DealerLook(0, 2))
    assert any(e.kind == "shown_hand" and e.visible_to == frozenset({0}) for e in events)
    assert "2" in view(state, 0)["deal"]["hands"] and "2" not in view(state, 3)["deal"]["hands"]
    state = run(state, whist(0, "whist"))
    assert deal_of(state).dealer_whist and deal_of(state).mode is PlayMode.OPEN
    state = run(state, play(1, "sA"))
    assert current_actor(state) == 0  # the dealer plays seat 2's cards


def test_stalingrad_makes_six_spades_a_compulsory_whist() -> None:
    """§4.6: Stalingrad (off in the preset): on 6♠ both defenders must whist."""
    state = declared("6s", stalingrad=True)
    assert legal_calls(state) == {"whist"}
