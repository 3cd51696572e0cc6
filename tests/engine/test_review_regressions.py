"""Regressions found in review: the dark lead before a dealer whist opens hands; old talon cards in views."""

from __future__ import annotations

from app.engine import Bid, NameContract, Phase, current_actor, view
from app.engine.audit import cards_in

from .helpers import bid, discard, pas, play, run, start, whist

HAND1 = "sA sK sQ sJ sT cA cK dA hA hK"


def test_declarer_in_first_hand_leads_in_the_dark_before_a_dealer_whist_opens_the_hands() -> None:
    """§4.9 (with §4.8): all whist calls, the dealer's included, come first; then a declarer in first hand
    leads "in the dark" (seed 002: «Первый ход играющий делает втемную») — the defenders' hands, opened by
    the dealer whist, must not be shown before that first card."""
    state = start(seats=4, dealer=0, hands={1: HAND1}, talon="s9 s8")
    state = run(state, bid(1, "6s"), pas(2), pas(3), discard(1, "s9 s8"))
    state = run(
        state, NameContract(1, Bid.parse("6s")), whist(2, "pass"), whist(3, "pass"), whist(0, "whist")
    )
    assert state.phase is Phase.PLAY and current_actor(state) == 1
    deal = state.deal
    assert deal is not None
    hidden = set(deal.hands[2]) | set(deal.hands[3])
    assert not cards_in(view(state, 1)) & hidden  # the declarer has not led yet: still dark
    state = run(state, play(1, "sA"))
    assert set(view(state, 1)["deal"]["hands"]) == {"1", "2", "3"}  # open after the dark lead


def test_allpass_talon_card_is_not_shown_once_its_trick_is_older_than_the_last() -> None:
    """§12: during play a viewer sees the current trick and the last completed trick, not the earlier ones;
    the all-pass talon card is shown "as it is led" (the "stays in the public record" clause is for
    with-talon games only)."""
    hands = {
        1: "sA sK sQ sJ sT s9 s8 s7 hA hK",
        2: "dA dK dQ dJ dT d9 d8 d7 cA cK",
        0: "hQ hJ hT h9 h8 h7 cQ cJ cT c9",
    }
    state = start(hands=hands, talon="c8 c7")
    state = run(state, pas(1), pas(2), pas(0))  # all-pass; talon c8 leads trick 1, c7 trick 2
    state = run(state, play(1, "sA"), play(2, "cA"), play(0, "c9"))  # trick 1: seat 2 wins
    state = run(state, play(1, "sK"), play(2, "cK"), play(0, "cT"))  # trick 2: seat 2 wins
    state = run(state, play(1, "hA"), play(2, "dA"), play(0, "hQ"))  # trick 3 (first hand leads)
    deal = state.deal
    assert deal is not None and len(deal.tricks) == 3 and deal.trick == ()
    first_trick = {card for _, card in deal.tricks[0]}
    for viewer in (None, 0, 1, 2):
        assert not cards_in(view(state, viewer)) & first_trick, viewer
