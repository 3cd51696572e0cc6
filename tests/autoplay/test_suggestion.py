"""The solver's suggestion for an interrupted deal (issue 11 §2), against the robot's own position."""

from __future__ import annotations

from app.autoplay import InterruptedDeal
from app.autoplay.robot import position_of
from app.autoplay.suggestion import suggest
from app.engine import CallWhist, Discard, MakeBid, NameContract, PassBid, WhistCall, legal_actions
from app.engine.state import Phase
from app.solver import Solver
from tests.autoplay.helpers import bid, dealt, play


def test_a_named_contract_mid_play_gets_the_double_dummy_result_of_the_position() -> None:
    state = play(dealt(), PassBid(1), MakeBid(2, bid("6s")), PassBid(0))
    hand = state.deal.hands[2] if state.deal else ()
    state = play(state, Discard(2, (hand[0], hand[1])), NameContract(2, bid("6s")))
    while (
        state.phase is not Phase.PLAY
        or state.deal is None
        or len(state.deal.tricks) < 2
        or not state.deal.trick
    ):
        legal = legal_actions(state)
        whist = [a for a in legal if isinstance(a, CallWhist) and a.call is WhistCall.WHIST]
        state = play(state, (whist or legal)[0])
    record = InterruptedDeal.from_state(state, "test")
    found = suggest(record)
    expected = Solver().solve(position_of(state)).declarer_tricks + record.taken[2]
    assert found.kind == "position" and found.complete
    assert found.declarer_tricks == expected
    assert found.to_json()["label"] == "suggestion" and found.to_json()["contract"] == "6s"


def test_no_contract_named_gets_the_best_contract_and_discard_of_the_candidates() -> None:
    state = play(dealt(), PassBid(1), MakeBid(2, bid("6s")), PassBid(0))
    record = InterruptedDeal.from_state(state, "test")
    assert record.contract is None and record.declarer == 2
    found = suggest(record)
    assert found.kind == "contract" and found.contract is not None and found.complete
    assert found.contract.rank >= bid("6s").rank
    twelve = {*record.hands[2], *record.talon}
    assert len(found.discard) == 2 and set(found.discard) <= twelve
    assert found.declarer_tricks is not None
    # The suggestion is what it says: with that discard and contract, best play gives those tricks.
    named = InterruptedDeal.from_json(
        {**record.to_json(), "contract": found.contract.text, "discard": [c.text for c in found.discard]}
    )
    assert suggest(named).declarer_tricks == found.declarer_tricks
    if found.declarer_tricks >= 6:
        assert found.contract.level <= found.declarer_tricks
