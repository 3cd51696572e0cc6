"""Claims (RULES.md §4.10) through the pure table step, with fixed decks (`claim_deals`) and a fake
time source."""

from __future__ import annotations

import pytest

from app.autoplay.claims import judge_claim
from app.engine import (
    AnswerClaim,
    Bid,
    CallWhist,
    Claim,
    ClaimVerdict,
    DealKind,
    Discard,
    IllegalAction,
    MakeBid,
    NameContract,
    NotYourTurn,
    PassBid,
    Phase,
    PlayCard,
    WhistCall,
    apply,
    legal_actions,
    replay,
    view,
)
from app.engine.cards import parse_cards
from app.engine.claims import claim_options
from app.table import SeatAction, TableRefused
from tests.engine.helpers import deal_of, discard, run, start
from tests.table.claim_deals import (
    CLEAN_MISERE,
    LOSING_MISERE,
    MINUTES,
    NINE_TRICKS,
    TEN_TRICKS,
    bid_misere,
    play_to_claim,
    whist_round,
)
from tests.table.helpers import Table


def test_a_claim_accepted_ends_the_deal_with_the_claimed_tricks() -> None:
    """§4.10: at his turn the declarer claims the rest; his hand is shown to all; the lone whister
    answers on his own clock; on accept the deal ends with the tricks claimed."""
    table = Table.start(TEN_TRICKS, **MINUTES)
    play_to_claim(table)
    state = table.game.state
    assert claim_options(state) == tuple(range(10))  # a lone whister: any number of the 9 remaining
    assert "claims" in view(state, 1) and "claims" not in view(state, 2)
    assert "1" not in view(state, 2)["deal"]["hands"]
    claimed = table.act(Claim(1, 9), after_ms=1000)
    state = claimed.game.state
    assert state.phase is Phase.CLAIM and claimed.game.to_act() == 2
    assert table.game.clock.running == 2  # the answer is a move: the whister's clock runs
    hand = next(e for e in claimed.events if e.kind == "claim")
    assert hand.visible_to is None and len(hand.data["hand"]) == 9
    for viewer in (0, 2, None):  # every seated player and the spectators see his hand (§12)
        assert view(state, viewer)["deal"]["hands"]["1"] == hand.data["hand"]
    assert [a.to_json() for a in legal_actions(state)] == [
        {"type": "claim_answer", "seat": 2, "accept": True},
        {"type": "claim_answer", "seat": 2, "accept": False},
    ]
    ended = table.act(AnswerClaim(2, True))
    result = ended.deals[-1].result
    assert result.kind is DealKind.GAME and result.tricks == {1: 10, 2: 0, 0: 0}
    assert ended.deals[-1].record["record"]["claim"] == {
        "seat": 1, "tricks": 9, "remaining": 9, "answerers": [2], "answers": [[2, True]], "verdict": None,
    }  # fmt: skip
    assert ended.game.state.deal_number == 2


def test_a_number_of_tricks_claimed_and_accepted_gives_the_rest_to_the_whister() -> None:
    table = Table.start(NINE_TRICKS, **MINUTES)
    play_to_claim(table)
    table.act(Claim(1, 8))
    result = table.act(AnswerClaim(2, True)).deals[-1].result
    assert result.tricks == {1: 9, 2: 1, 0: 0}


def test_a_rejected_claim_that_stands_ends_the_deal_as_if_accepted() -> None:
    """§4.10: the rejection ends the wait; the solver, from the true position, upholds the claim."""
    table = Table.start(NINE_TRICKS, **MINUTES)
    play_to_claim(table)
    table.act(Claim(1, 8))
    judged = table.act(AnswerClaim(2, False))
    verdicts = [a.action for a in judged.applied if isinstance(a.action, ClaimVerdict)]
    assert verdicts == [ClaimVerdict("stands")] and judged.applied[1].seat is None
    result = judged.deals[-1].result
    assert result.tricks == {1: 9, 2: 1, 0: 0}
    assert judged.deals[-1].record["record"]["claim"]["verdict"] == "stands"


def test_a_rejected_claim_that_fails_is_void_play_goes_on_open_and_no_second_claim() -> None:
    """§4.10: the declarer cannot take all nine (h7 is lost): the claim is void, play goes on at his turn
    with his hand open to everyone, and he may not claim again in this deal."""
    table = Table.start(NINE_TRICKS, **MINUTES)
    play_to_claim(table)
    table.act(Claim(1, 9))
    judged = table.act(AnswerClaim(2, False))
    assert [e.kind for e in judged.events] == ["claim_answer", "claim_verdict"]
    assert judged.events[-1].data == {"verdict": "fails"}
    state = judged.game.state
    assert state.phase is Phase.PLAY and judged.game.to_act() == 1 and not judged.deals
    assert table.game.clock.running == 1
    for viewer in (0, 2, None):
        assert view(state, viewer)["deal"]["hands"]["1"] == view(state, 1)["deal"]["hands"]["1"]
    assert claim_options(state) == () and "claims" not in view(state, 1)
    with pytest.raises(IllegalAction, match="no second claim"):
        table.act(Claim(1, 8))
    assert table.game.state == state  # refused: nothing changed
    while table.game.state.phase is Phase.PLAY:  # the hand is played out; the open hand stays shown
        table.act(sorted(legal_actions(table.game.state), key=lambda a: str(a.to_json()))[0])
        if table.game.state.phase is Phase.PLAY:
            assert "1" in view(table.game.state, None)["deal"]["hands"]
    record = table.steps[-1].deals[-1].record["record"]
    assert record["claim"]["verdict"] == "fails" and record["claim"]["answers"] == [[2, False]]


def test_out_of_turn_claims_and_claims_by_a_defender_are_refused() -> None:
    table = Table.start(NINE_TRICKS, **MINUTES)
    play_to_claim(table)
    table.act(PlayCard(1, parse_cards(["sK"])[0]))  # now seat 2 is to play
    state = table.game.state
    with pytest.raises(NotYourTurn):
        table.act(Claim(1, 8))
    with pytest.raises(IllegalAction, match="only at his own turn"):
        table.act(Claim(2, 0))
    assert table.game.state == state
    with pytest.raises(TableRefused):
        table.send(SeatAction(1, ClaimVerdict("stands")))  # the verdict is the server's
    assert table.game.state == state


def test_a_claim_waits_for_the_lone_whisters_choice_after_a_dark_lead() -> None:
    """§4.10: once the open/closed choice is made; before the dark lead the declarer may not claim."""
    table = Table.start(NINE_TRICKS, **MINUTES)
    table.act(MakeBid(1, Bid.parse("6s")))
    table.act(PassBid(2))
    table.act(PassBid(0))
    table.act(Discard(1, (deal_of(table.game.state).talon[0], deal_of(table.game.state).talon[1])))
    table.act(NameContract(1, Bid.parse("6s")))
    whist_round(table, (2,))
    assert table.game.state.phase is Phase.PLAY and claim_options(table.game.state) == ()
    with pytest.raises(IllegalAction, match="open/closed choice"):
        table.act(Claim(1, 10))


def test_with_two_whisters_only_the_rest_may_be_claimed_and_both_answer_in_turn() -> None:
    table = Table.start(TEN_TRICKS, **MINUTES)
    play_to_claim(table, whisters=(2, 0))
    assert claim_options(table.game.state) == (9,)
    with pytest.raises(IllegalAction):
        table.act(Claim(1, 8))
    table.act(Claim(1, 9))
    assert table.game.to_act() == 2
    table.act(AnswerClaim(2, True))
    assert table.game.to_act() == 0 and table.game.clock.running == 0
    result = table.act(AnswerClaim(0, True)).deals[-1].result
    assert result.tricks == {1: 10, 2: 0, 0: 0}


def test_a_clean_misere_claim_accepted_by_both_catchers() -> None:
    """§4.10: on a misère, "I take none of the rest"; both catching seats answer."""
    table = Table.start(CLEAN_MISERE, **MINUTES)
    bid_misere(table)
    assert claim_options(table.game.state) == (0,)
    table.act(Claim(1, 0))
    assert table.game.to_act() == 2
    table.act(AnswerClaim(2, True))
    ended = table.act(AnswerClaim(0, True))
    result = ended.deals[-1].result
    assert result.kind is DealKind.MISERE and result.tricks is not None and result.tricks[1] == 0
    assert sum(result.tricks.values()) == 10


def test_a_misere_claim_rejected_and_upheld() -> None:
    table = Table.start(CLEAN_MISERE, **MINUTES)
    bid_misere(table)
    table.act(Claim(1, 0))
    judged = table.act(AnswerClaim(2, False))  # the first rejection ends the wait: seat 0 is not asked
    kinds = [e.kind for e in judged.events]
    assert kinds[:3] == ["claim_answer", "claim_verdict", "deal_over"]
    assert judged.events[1].data == {"verdict": "stands"}
    assert judged.deals[-1].result.kind is DealKind.MISERE


def test_a_misere_claim_rejected_and_void() -> None:
    """The declarer must take a heart (hA behind h7): void; the defenders' hands lie open after his lead."""
    table = Table.start(LOSING_MISERE, **MINUTES)
    bid_misere(table)
    table.act(Claim(1, 0))
    table.act(AnswerClaim(2, True))
    judged = table.act(AnswerClaim(0, False))
    assert judged.events[-1].data == {"verdict": "fails"}
    state = judged.game.state
    assert state.phase is Phase.PLAY and judged.game.to_act() == 1
    led = table.act(PlayCard(1, parse_cards(["s7"])[0]))
    assert [e.kind for e in led.events] == ["card", "hands_open"]
    assert sorted(view(table.game.state, None)["deal"]["hands"]) == ["0", "1", "2"]


def test_a_seat_out_of_time_while_answering_rejects() -> None:
    """§4.10: running out of time while answering is a rejection (here the claim then stands)."""
    table = Table.start(NINE_TRICKS, deal_time=1, reserve_time=0)
    play_to_claim(table)
    table.act(Claim(1, 8))
    expired = table.expire()
    kinds = [a.action.type for a in expired.applied]
    assert kinds == ["claim_answer", "claim_verdict", "shuffle"]
    assert expired.deals[-1].result.tricks == {1: 9, 2: 1, 0: 0}


def test_claims_off_refuses_every_claim() -> None:
    table = Table.start(TEN_TRICKS, claims=False, **MINUTES)
    play_to_claim(table)
    assert claim_options(table.game.state) == ()
    with pytest.raises(IllegalAction, match="off"):
        table.act(Claim(1, 9))


def test_an_undecided_verdict_voids_the_claim() -> None:
    """§4.10: if the solver cannot decide within its node budget the claim is void."""
    table = Table.start(NINE_TRICKS, **MINUTES)
    play_to_claim(table)
    table.act(Claim(1, 9))
    rejected, _ = apply(table.game.state, AnswerClaim(2, False))
    assert judge_claim(rejected, node_budget=10) == ClaimVerdict("undecided")
    assert judge_claim(rejected) == ClaimVerdict("fails")
    voided, events = apply(rejected, ClaimVerdict("undecided"))
    assert voided.phase is Phase.PLAY and events[-1].data == {"verdict": "undecided"}


def test_a_claim_and_its_verdict_replay_from_the_log() -> None:
    table = Table.start(NINE_TRICKS, **MINUTES)
    play_to_claim(table)
    table.act(Claim(1, 9))
    table.act(AnswerClaim(2, False))
    log = [a.action for s in table.steps for a in s.applied]
    assert replay(log, 3, table.game.state.conventions) == table.game.state


def test_after_a_dealer_whist_the_dealer_alone_answers_and_sees_the_claimers_hand() -> None:
    """§4.10 at 4 seats: the dealer who whisted answers alone; the unclaimed tricks go to the defence."""
    state = start(seats=4, dealer=0, hands={1: "sA sK sQ sJ sT s9 s8 s7 hA hK"}, talon="h7 h8")
    state = run(state, MakeBid(1, Bid.parse("6s")), PassBid(2), PassBid(3), discard(1, "h7 h8"))
    state = run(state, NameContract(1, Bid.parse("6s")), CallWhist(2, WhistCall.PASS))
    state = run(state, CallWhist(3, WhistCall.PASS), CallWhist(0, WhistCall.WHIST))
    state = run(state, PlayCard(1, parse_cards(["sA"])[0]))
    while deal_of(state).turn != 1:
        state = run(state, legal_actions(state)[0])
    assert claim_options(state) == tuple(range(10))
    assert "1" not in view(state, 0)["deal"]["hands"]
    state = run(state, Claim(1, 8))
    assert deal_of(state).claim is not None and deal_of(state).claim.answerers == (0,)  # type: ignore[union-attr]
    assert view(state, 0)["to_act"] == 0 and view(state, 0)["deal"]["hands"]["1"]
    state = run(state, AnswerClaim(0, True))
    assert state.phase is Phase.DEAL_OVER
    tricks = state.last_result.tricks  # type: ignore[union-attr]
    assert tricks == {1: 9, 2: 1, 3: 0}
