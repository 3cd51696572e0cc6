"""Bidding, RULES.md §2 and §3.3."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.engine import IllegalAction, InviteDealer, NotYourTurn, Phase, apply, current_actor
from app.engine.bids import LADDER, Bid

from .helpers import bid, legal_bids, pas, run, start


def test_ladder_orders_no_talon_games_and_misere_as_rules_2_2() -> None:
    """§2.2: …8NT, 8♠*…8NT*, Misère, 9♠…9NT, Misère*, 9♠*…, 10♠…10NT, 10♠*…10NT*."""
    texts = [b.text for b in LADDER]
    assert texts.index("8n-nt") + 1 == texts.index("misere")
    assert texts.index("misere") + 1 == texts.index("9s")
    assert texts.index("9n") + 1 == texts.index("misere-nt")
    assert texts.index("misere-nt") + 1 == texts.index("9s-nt")
    assert texts.index("9n-nt") + 1 == texts.index("10s")
    assert texts.index("6n") + 1 == texts.index("6s-nt") and texts.index("6n-nt") + 1 == texts.index("7s")


def test_first_hand_opens_and_opening_is_six_spades_or_misere() -> None:
    """§1.4, §2.4: bidding starts left of the dealer; no jumps: 6♠, 6♠ without talon, or misère."""
    state = start(dealer=0)
    assert current_actor(state) == 1
    assert sorted(legal_bids(state)) == sorted(["6s", "6s-nt", "misere", "misere-nt"])


def test_seven_spades_may_open_during_allpass_series() -> None:
    """§2.4 [ours]: "7 пик" is a first bid while an all-pass series runs."""
    assert "7s" in legal_bids(start(series=1))
    assert "7s" not in legal_bids(start(series=0))


def test_raise_is_the_next_step_in_either_talon_mode() -> None:
    """§2.4: after 6♠ the next bids are 6♣ (with talon) or 6♠ without talon; after 7♠* comes 7♣* or 8♠."""
    state = run(start(), bid(1, "6s"))
    assert sorted(legal_bids(state)) == ["6c", "6s-nt", "misere", "misere-nt"]
    state = run(start(), bid(1, "6s"))
    assert state.deal is not None
    deal = replace(state.deal, highest=Bid.parse("7s-nt"))
    state = replace(state, deal=deal)
    assert "8s" in legal_bids(state) and "7c-nt" in legal_bids(state) and "7d-nt" not in legal_bids(state)


def test_jump_is_rejected_with_expected_bids_named() -> None:
    """§2.4 no_jumps: 6♠ then 7♥ is a jump."""
    state = run(start(), bid(1, "6s"))
    with pytest.raises(IllegalAction, match="expected one of"):
        apply(state, bid(2, "7h"))


def test_jumps_allowed_when_convention_off() -> None:
    """§2.4: with no_jumps off, any higher bid is allowed."""
    state = run(start(no_jumps=False), bid(1, "6s"))
    assert "10n" in legal_bids(state)


def test_misere_beaten_only_by_nine() -> None:
    """§2.2, §2.6: over a misère: 9♠, 9♠ without talon, or (first bid) misère without talon."""
    state = run(start(), bid(1, "misere"))
    assert sorted(legal_bids(state)) == ["9s", "9s-nt", "misere-nt"]


def test_misere_without_talon_beaten_by_nine_without_talon_or_ten() -> None:
    """§2.2: «Мизер без прикупа – Девять без прикупа или Десять с прикупом»."""
    state = run(start(), bid(1, "misere"), bid(2, "9s"), pas(0), bid(1, "misere-nt"))
    assert sorted(legal_bids(state)) == ["10s", "9s-nt"]


def test_misere_only_as_first_bid() -> None:
    """§2.6: misère is «кабальный»: after a trick bid a player may no longer bid misère."""
    state = run(start(), bid(1, "6s"), bid(2, "6c"), pas(0))
    assert "misere" not in legal_bids(state) and "misere-nt" not in legal_bids(state)


def test_no_misere_after_ones_own_trick_bid_while_three_still_bid() -> None:
    """§2.6: misère only as one's first bid — also where senior_must_hold does not narrow the choice (three
    still bidding, §2.5), whether the trick bidder may hold (seat 1, first hand) or must raise (seat 2)."""
    state = run(start(), bid(1, "6s"), bid(2, "6c"), bid(0, "6d"))
    assert sorted(legal_bids(state)) == ["6d", "6h", "6s-nt"]  # seat 1: hold or raise, no misère
    state = run(state, bid(1, "6h"), bid(2, "6n"), bid(0, "6s-nt"))
    state = run(state, bid(1, "6s-nt"))  # seat 1 holds; seat 2, later than seat 1, must raise
    assert sorted(legal_bids(state)) == ["6c-nt", "7s"]
    with pytest.raises(IllegalAction):
        apply(state, bid(2, "misere"))


def test_overbid_misere_bidder_may_only_pass_or_bid_misere_without_talon() -> None:
    """§2.6: a misère bidder who was overbid may pass or bid misère without talon."""
    state = run(start(), bid(1, "misere"), bid(2, "9s"), pas(0))
    assert legal_bids(state) == ["misere-nt"]


def test_pass_is_final_for_the_deal() -> None:
    """§2.3: a passed player is skipped for the rest of the auction."""
    state = run(start(), pas(1), bid(2, "6s"), bid(0, "6c"))
    assert current_actor(state) == 2


def test_earlier_player_may_hold() -> None:
    """§2.5: a player earlier in order than the highest bidder may repeat («здесь») the bid."""
    state = run(start(), bid(1, "6s"), bid(2, "6c"), bid(0, "6d"))
    assert "6d" in legal_bids(state)  # seat 1 is first hand: earlier than seat 0
    state = run(state, bid(1, "6d"))
    assert state.deal is not None and state.deal.highest_seat == 1
    assert "6d" not in legal_bids(state)  # seat 2 is later than the holder: must raise


def test_senior_must_hold_when_two_remain() -> None:
    """§2.5 senior_must_hold: with two left, the one with priority may only hold (or pass)."""
    state = run(start(), bid(1, "6s"), pas(2), bid(0, "6c"))
    assert legal_bids(state) == ["6c"]
    relaxed = run(start(senior_must_hold=False), bid(1, "6s"), pas(2), bid(0, "6c"))
    assert "6d" in legal_bids(relaxed) and "6c" in legal_bids(relaxed)


def test_one_bid_and_two_passes_makes_the_declarer() -> None:
    """§2.7: the last bidder standing is the declarer; with talon the talon is revealed."""
    state = run(start(), bid(1, "6s"), pas(2), pas(0))
    assert state.phase is Phase.DISCARD and state.deal is not None and state.deal.declarer == 1
    assert len(state.deal.hands[1]) == 12


def test_all_pass_starts_an_allpass_deal() -> None:
    """§2.7: all three pass → распасы."""
    state = run(start(), pas(1), pas(2), pas(0))
    assert state.phase is Phase.PLAY and state.deal is not None and state.deal.allpass


def test_out_of_turn_bid_is_rejected_and_changes_nothing() -> None:
    """Bad input changes nothing: a bid by a seat whose turn it is not."""
    state = start()
    with pytest.raises(NotYourTurn, match="waits for seat 1"):
        apply(state, bid(2, "6s"))
    assert current_actor(state) == 1


def test_no_talon_bids_absent_when_convention_off() -> None:
    """§2.2 no_talon_games off."""
    assert all(not Bid.parse(b).no_talon for b in legal_bids(start(no_talon_games=False)))


def test_misere_for_two_invitation_accepted() -> None:
    """§3.3: a 4-seat player who may bid misère invites the dealer; the dealer sees the hand and accepts."""
    state = start(seats=4, dealer=0)
    assert InviteDealer(1) in __import__("app.engine", fromlist=["legal_actions"]).legal_actions(state)
    state, events = apply(state, InviteDealer(1))
    assert state.phase is Phase.DEALER_INVITATION and current_actor(state) == 0
    assert any(e.kind == "shown_hand" and e.visible_to == frozenset({0}) for e in events)
    from app.engine import AnswerInvitation

    state = run(state, AnswerInvitation(0, True))
    assert state.deal is not None and state.deal.highest is not None and state.deal.highest.is_misere
    assert state.deal.misere_partner_of == 1
    state = run(state, pas(2), pas(3))
    assert state.phase is Phase.DISCARD and state.deal is not None and state.deal.declarer == 1


def test_misere_for_two_invitation_only_once_and_declined_returns_turn() -> None:
    """§3.3: on decline the inviter bids on normally; the invitation is once per deal."""
    from app.engine import AnswerInvitation, legal_actions

    state = run(start(seats=4, dealer=0), InviteDealer(1), AnswerInvitation(0, False))
    assert current_actor(state) == 1 and state.phase is Phase.BIDDING
    assert InviteDealer(1) not in legal_actions(state)
    assert "misere" in legal_bids(state)


def test_no_dealer_invitation_at_three_seats() -> None:
    """§3.3: misère for two is a 4-seat convention."""
    with pytest.raises(IllegalAction):
        apply(start(seats=3), InviteDealer(1))


def test_four_seat_dealer_gets_no_cards_and_first_hand_sits_left_of_him() -> None:
    """§1.2–§1.4: with 4 seats the dealer holds nothing; each active player gets 10, the talon 2."""
    state = start(seats=4, dealer=2)
    deal = state.deal
    assert deal is not None
    assert deal.hands[2] == () and deal.active == (3, 0, 1) and current_actor(state) == 3
    assert all(len(deal.hands[s]) == 10 for s in deal.active) and len(deal.talon) == 2


def test_deal_passes_clockwise_after_every_deal_allpass_included() -> None:
    """§1.3: «скользящая» — the next deal's dealer is the seat left of the last one, whatever happened."""
    from app.engine import Shuffle, legal_actions

    from .helpers import deck_for

    state = run(start(dealer=2), pas(0), pas(1), pas(2))  # all-pass
    while state.phase is Phase.PLAY:
        state = run(state, legal_actions(state)[0])
    state = run(state, Shuffle(deck_for(3, 0, {})))
    assert state.dealer == 0 and current_actor(state) == 1
