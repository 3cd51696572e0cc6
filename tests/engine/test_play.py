"""Card play, misère, all-pass deals (RULES.md §4.9, §6, §10, §12) and the engine's timeout actions (§8.4)."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import (
    TALON,
    Bid,
    Card,
    DealKind,
    IllegalAction,
    NameContract,
    Phase,
    Shuffle,
    TableState,
    TimeOut,
    apply,
    current_actor,
    legal_actions,
    view,
)

from .helpers import (
    bid,
    deal_of,
    deck_for,
    discard,
    discard_first_two,
    legal_bids,
    legal_cards,
    pas,
    play,
    result_of,
    run,
    start,
    whist,
)


def _both_whist(hands: dict[int, str], contract: str) -> TableState:
    """3 seats, dealer 0: seat 1 wins 6♠, discards the talon (c8 c7), names ``contract``; both whist."""
    state = start(hands=hands, talon="c8 c7")
    state = run(state, bid(1, "6s"), pas(2), pas(0), discard(1, "c8 c7"))
    return run(state, NameContract(1, Bid.parse(contract)), whist(2, "whist"), whist(0, "whist"))


def test_follow_suit_else_trump_else_any() -> None:
    """§10 [K 3.9.3]: follow suit; if void, trump if possible; else any card."""
    hands = {
        1: "sA sK sQ sJ sT s9 s8 s7 hA hK",
        2: "dA dK dQ dJ dT d9 d8 d7 cA cK",
        0: "hQ hJ hT h9 h8 h7 cQ cJ cT c9",
    }
    state = _both_whist(hands, "6s")
    state = run(state, play(1, "hA"))
    # Void in hearts and no spades (trumps) to ruff with: any card.
    assert legal_cards(state) == {"dA", "dK", "dQ", "dJ", "dT", "d9", "d8", "d7", "cA", "cK"}
    state = run(state, play(2, "cA"))
    assert legal_cards(state) == {"hQ", "hJ", "hT", "h9", "h8", "h7"}  # must follow hearts
    with pytest.raises(IllegalAction):
        apply(state, play(0, "cQ"))
    state = run(state, play(0, "hQ"))
    assert deal_of(state).taken[1] == 1 and current_actor(state) == 1
    state = run(state, play(1, "hK"), play(2, "cK"), play(0, "hJ"), play(1, "s7"))
    assert legal_cards(state) == {"dA", "dK", "dQ", "dJ", "dT", "d9", "d8", "d7"}  # void in spades: any


def test_trump_beats_the_led_suit() -> None:
    """§10: a trump wins over the led suit."""
    hands = {
        1: "hA hK hQ hJ hT h9 h8 h7 cA cK",
        2: "sA sK sQ sJ sT s9 s8 s7 cQ cJ",
        0: "dA dK dQ dJ dT d9 d8 d7 cT c9",
    }
    state = _both_whist(hands, "6h")
    state = run(
        state, play(1, "cA"), play(2, "cQ"), play(0, "cT"), play(1, "cK"), play(2, "cJ"), play(0, "c9")
    )
    state = run(state, play(1, "hA"))
    assert legal_cards(state) == {"sA", "sK", "sQ", "sJ", "sT", "s9", "s8", "s7"}
    state = run(state, play(2, "s7"), play(0, "d7"))
    assert deal_of(state).taken[1] == 3


def test_misere_defenders_lie_down_after_the_declarers_first_lead() -> None:
    """§12: misère defenders open right after the declarer's first lead when he is first hand."""
    state = start(hands={1: "s7 s8 s9 c7 c8 c9 d7 d8 h7 h8"}, talon="sA hA")
    state = run(state, bid(1, "misere"), pas(2), pas(0), discard(1, "sA hA"))
    assert state.phase is Phase.PLAY and view(state, None)["deal"]["hands"] == {}
    state = run(state, play(1, "s7"))
    assert set(view(state, None)["deal"]["hands"]) == {"0", "2"}
    assert "1" not in view(state, 2)["deal"]["hands"]  # the declarer's hand stays closed


def test_misere_defenders_lie_down_before_their_first_lead() -> None:
    """§12: when a defender leads trick 1, the defenders open before the lead."""
    state = start(dealer=0)
    state = run(state, pas(1), bid(2, "misere"), pas(0))
    state = run(state, discard_first_two(state, 2))
    assert state.phase is Phase.PLAY and current_actor(state) == 1
    assert set(view(state, 2)["deal"]["hands"]) == {"0", "1", "2"}


def test_misere_plays_ten_tricks_and_counts_the_declarers() -> None:
    """§4.2, §5.7: misère is played out; the result carries the declarer's tricks."""
    state = start(dealer=0)
    state = run(state, pas(1), bid(2, "misere"), pas(0))
    state = run(state, discard_first_two(state, 2))
    while state.phase is Phase.PLAY:
        state = run(state, legal_actions(state)[0])
    result = result_of(state)
    assert result.kind is DealKind.MISERE and result.tricks is not None and sum(result.tricks.values()) == 10


def _allpass(
    seats: int, dealer: int, talon: str, hands: dict[int, str] | None = None, **kw: Any
) -> TableState:
    state = start(seats=seats, dealer=dealer, hands=hands or {}, talon=talon, **kw)
    order = [(dealer + 1) % seats, (dealer + 2) % seats, (dealer + 3) % seats if seats == 4 else dealer]
    return run(state, *(pas(s) for s in order))


def test_allpass_talon_card_leads_tricks_one_and_two() -> None:
    """§6.2: the first talon card is the lead of trick 1, the second of trick 2; first hand follows both,
    also when another seat won trick 1 (the winner of a trick leads only from trick 3 on)."""
    hands = {
        1: "h7 s7 s8 s9 sT sJ sQ sK sA c7",
        2: "hK c8 c9 cT cJ cQ cK cA d8 d9",
        0: "h9 dT dJ dQ dK dA hT hJ h8 hA",
    }
    state = _allpass(3, 0, "hQ d7", hands)
    assert deal_of(state).trick == ((TALON, Card.parse("hQ")),)
    assert current_actor(state) == 1 and view(state, None)["deal"]["talon"] == ["hQ"]
    state = run(state, play(1, "h7"), play(2, "hK"), play(0, "h9"))  # seat 2's king takes trick 1
    assert deal_of(state).winners == (2,)
    assert deal_of(state).trick == ((TALON, Card.parse("d7")),) and current_actor(state) == 1
    assert view(state, None)["deal"]["talon"] == ["hQ", "d7"]


def test_allpass_talon_card_winning_trick_one_goes_to_the_dealer() -> None:
    """§6.2: a trick won by a talon card goes to the dealer (talon_tricks)."""
    hands = {
        1: "h7 s7 s8 s9 sT sJ sQ sK sA c7",
        2: "h8 c8 c9 cT cJ cQ cK cA d8 d9",
        0: "h9 dT dJ dQ dK dA hT hJ hQ hK",
    }
    state = _allpass(3, 0, "hA d7", hands)
    state = run(state, play(1, "h7"), play(2, "h8"), play(0, "h9"))
    assert deal_of(state).talon_taken == 1
    assert deal_of(state).trick[0][1].text == "d7" and current_actor(state) == 1


def test_allpass_first_hand_leads_trick_three() -> None:
    """§6.2: after the two talon tricks, first hand leads trick 3 whoever won trick 2."""
    hands = {
        1: "h7 s7 s8 s9 sT sJ sQ sK sA c7",
        2: "h8 c8 c9 cT cJ cQ cK cA d8 d9",
        0: "h9 dT dJ dQ dK dA hT hJ hQ hK",
    }
    state = _allpass(3, 0, "hA d7", hands)
    state = run(state, play(1, "h7"), play(2, "h8"), play(0, "h9"))
    state = run(state, play(1, "s7"), play(2, "d9"), play(0, "dA"))  # seat 0 wins trick 2
    assert deal_of(state).taken[0] == 1 and current_actor(state) == 1


def test_allpass_at_three_seats_without_talon_when_convention_off() -> None:
    """§6.2: "на четверых" is a convention at 3 seats; off, first hand leads trick 1."""
    state = _allpass(3, 0, "hA d7", allpass_talon_at_three=False)
    assert deal_of(state).trick == () and current_actor(state) == 1


def test_allpass_at_four_seats_uses_the_talon() -> None:
    """§6.2 [K 3.7.6.1]: at 4 seats the talon leads tricks 1 and 2."""
    state = _allpass(4, 2, "hA d7")
    assert deal_of(state).trick[0][1].text == "hA" and current_actor(state) == 3


def test_allpass_series_counts_and_seven_spades_exits() -> None:
    """§6.5: consecutive all-pass deals form a series; a made 7 ends it."""
    state = _allpass(3, 0, "hA d7")
    while state.phase is Phase.PLAY:
        state = run(state, legal_actions(state)[0])
    state = run(state, Shuffle(deck_for(3, 1, {})))
    assert state.allpass_series == 1
    assert "7s" in legal_bids(state)


def test_timeout_then_allpass_auction_voids_the_deal() -> None:
    """§8.4: if the auction with the timed-out player ends in all-pass, the deal is void."""
    state = run(start(), TimeOut(1), pas(1), pas(2), pas(0))
    assert state.phase is Phase.DEAL_OVER and result_of(state).kind is DealKind.VOID


def test_timeout_in_allpass_writes_remaining_tricks_up_to_the_cap() -> None:
    """§8.4: remaining all-pass tricks go to the timed-out player, never more than the cap (6) in all."""
    state = _allpass(3, 0, "hA d7")
    result = result_of(run(state, TimeOut(2)))
    assert result.kind is DealKind.ALLPASS and result.tricks is not None and result.timed_out == (2,)
    assert result.tricks[2] == 6
    capped = result_of(run(_allpass(3, 0, "hA d7", allpass_timeout_cap=10), TimeOut(2)))
    assert capped.tricks is not None and capped.tricks[2] == 10
