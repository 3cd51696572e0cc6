"""RULES.md §6.5 through the engine and the sheet: a made 7 exits a running all-pass series, a 6 does not.

The deal between two all-pass deals is played through the state machine; the next deal's series count,
the step its all-pass deal is priced at, and the score sheet's series count must all follow.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.engine import (
    Bid,
    CallWhist,
    NameContract,
    PassBid,
    Phase,
    Shuffle,
    TableState,
    WhistCall,
    apply,
)
from app.engine.result import DealKind
from app.engine.scoring.sheet import ScoreSheet

from .helpers import bid, deck_for, discard, run, start

PASS = WhistCall.PASS


def game_in_series(contract: str) -> TableState:
    """Inside a series of one all-pass deal, seat 1 plays ``contract`` in spades, both defenders pass."""
    state = start(3, 0, hands={1: "sA sK sQ sJ sT s9 s8 hA dA cA"}, series=1)
    state = run(state, bid(1, contract), PassBid(2), PassBid(0))
    state = run(state, discard(1, "hQ hK"), NameContract(1, Bid.parse(contract)))
    state = run(state, CallWhist(2, PASS), CallWhist(0, PASS))
    assert state.phase is Phase.DEAL_OVER and state.last_result is not None
    assert state.last_result.kind is DealKind.GAME and state.last_result.contract == Bid.parse(contract)
    return state


@pytest.mark.parametrize(("contract", "series_after"), [("7s", 0), ("6s", 1)])
def test_a_made_seven_exits_the_series_and_a_made_six_does_not(contract: str, series_after: int) -> None:
    """§6.5: the series ends only after a made 7-level game (whisted or not); a 6-level game continues it,
    so the next all-pass deal is priced at step 1 after the 7 and at step 2 after the 6."""
    state = game_in_series(contract)
    result = state.last_result
    assert result is not None
    sheet = replace(ScoreSheet.new(3, state.conventions), allpass_series=1).apply(result)
    assert sheet.allpass_series == series_after
    state = run(state, Shuffle(deck_for(3, 1, {})))
    assert state.allpass_series == series_after
    state = run(state, PassBid(2), PassBid(0))
    state, events = apply(state, PassBid(1))
    assert state.deal is not None and state.deal.allpass
    steps = [e.data["series_step"] for e in events if e.kind == "allpass"]
    assert steps == [series_after + 1]
