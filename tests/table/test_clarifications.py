"""RULES.md §8.6's clarifications through the pure table step (issue 20 §3), one per test, each of which
failed before: fixed decks, a fake time source, three seats, seat 0 deals (first hand is seat 1)."""

from __future__ import annotations

from typing import Any

import pytest

from app.clock import ClockSettings
from app.engine import (
    Bid,
    ConventionError,
    MakeBid,
    NameContract,
    PassBid,
    Phase,
    PlayMode,
    WhistCall,
    conventions_from,
)
from app.table import AwardDeal, SeatAction, StopGame, TableStatus, Termination, abort
from tests.engine.helpers import discard_first_two
from tests.table.helpers import Table

TINY: dict[str, Any] = {"deal_time": 1, "reserve_time": 1}
BOTH_WHIST = ((2, WhistCall.WHIST), (0, WhistCall.WHIST))
SIX = Bid.parse("6s")


def _award(record: Any, tricks: dict[int, int]) -> Any:
    return record.awarded(tricks, contract=SIX, calls=BOTH_WHIST, mode=PlayMode.CLOSED)


def _declarer_out_before_naming(table: Table) -> None:
    """First hand wins the auction at 6♠, discards, and runs out before naming the contract: the robot
    cannot finish such a deal (§8.4), so it is archived as interrupted."""
    table.act(MakeBid(1, Bid.parse("6s")))
    table.act(PassBid(2))
    table.act(PassBid(0))
    table.act(discard_first_two(table.game.state, 1))
    assert table.game.state.phase is Phase.CONTRACT
    table.expire()


def test_one_home_for_reserve_on_a_reserve_that_rounds_to_zero_is_off_everywhere() -> None:
    """§8.6: 0.0004 s rounds to 0 ms: "off" for the clock and for the engine alike, so the game goes on
    after a deal archived as interrupted (§8.2) instead of the engine refusing the next shuffle."""
    conventions = conventions_from(overrides={"reserve_time": 0.0004})
    assert not conventions.reserve_on and conventions.reserve_ms == 0
    assert not ClockSettings.from_conventions(conventions).reserve_on
    table = Table.start(seats=3, deal_time=1, reserve_time=0.0004)
    _declarer_out_before_naming(table)
    game = table.game
    assert game.status is TableStatus.PLAYING and game.pending == (1,)
    assert game.state.deal_number == 2 and game.state.phase is Phase.BIDDING


def test_a_deal_time_that_rounds_to_zero_is_refused_by_validation() -> None:
    """§8.6: a table whose deal time rounds to 0 ms could never start; validation names the field."""
    with pytest.raises(ConventionError, match="deal_time"):
        conventions_from(overrides={"deal_time": 0.0004})
    assert conventions_from(overrides={"deal_time": 0.001}).deal_ms == 1


def test_an_operators_stop_after_a_reserve_on_timeout_keeps_the_penalty_and_an_award_keeps_it() -> None:
    """§7.7 last point, §8.6: seat 2 runs out at its whist (reserve on); the deal goes on; an operator
    stops the game: the deal is archived and seat 2's §5.8 penalty is written all the same; the award of
    the deal is written before it (§8.5) and the penalty stays."""
    table = Table.start(seats=3, **TINY)
    table.act(MakeBid(1, Bid.parse("6s")))
    table.act(PassBid(2))
    table.act(PassBid(0))
    table.act(discard_first_two(table.game.state, 1))
    table.act(NameContract(1, Bid.parse("6s")))
    assert table.game.to_act() == 2
    table.expire()  # seat 2's whist is made for it; the deal goes on
    assert table.game.status is TableStatus.PLAYING and table.game.clock.is_flagged(2)
    stopped = table.send(StopGame("the club closes"))
    game = stopped.game
    assert game.outcome is not None and game.outcome.termination is Termination.INTERRUPTED
    assert [line.summary for line in game.sheet.history] == ["seat 2 ran out of time"]
    assert game.sheet.whists[1][2] == 50 and game.sheet.whists[0][2] == 50
    (record,) = stopped.archived
    award = _award(record, {1: 6, 2: 2, 0: 2})
    awarded = table.send(AwardDeal(record, award)).game
    summaries = [line.summary for line in awarded.sheet.history]
    assert summaries[0].startswith("deal 1 awarded") and summaries[1:] == ["seat 2 ran out of time"]
    assert awarded.status is TableStatus.FINISHED and awarded.outcome is not None
    assert awarded.outcome.termination is Termination.INTERRUPTED
    assert awarded.outcome.settlement_json()["sum"] == 0


def test_a_server_fault_after_a_reserve_on_timeout_keeps_the_penalty() -> None:
    """§8.6: a fault of the table's own step ends the game like an operator's stop, penalty included."""
    table = Table.start(seats=3, **TINY)
    table.act(MakeBid(1, Bid.parse("6s")))
    table.act(PassBid(2))
    table.act(PassBid(0))
    table.act(discard_first_two(table.game.state, 1))
    table.act(NameContract(1, Bid.parse("6s")))
    table.expire()
    ended = abort(table.game, "RuntimeError: bug", now_ms=table.now + 10).game
    assert ended.outcome is not None and ended.outcome.termination is Termination.FAULT
    assert [line.kind for line in ended.sheet.history] == ["timeout"]


def test_an_award_after_a_reserve_on_timeout_can_be_revised() -> None:
    """§8.6: the declarer ran out before naming his contract (reserve on): the game ends awaiting the award;
    the award is given, then revised like any other."""
    table = Table.start(seats=3, **TINY)
    _declarer_out_before_naming(table)
    game = table.game
    assert game.status is TableStatus.AWAITING_ADJUDICATION
    assert game.outcome is not None and game.outcome.termination is Termination.TIMEOUT
    record = table.steps[-1].archived[0]
    first = _award(record, {1: 6, 2: 2, 0: 2})
    table.send(AwardDeal(record, first))
    assert table.game.status is TableStatus.FINISHED
    assert table.game.sheet.awarded_result(1) == first
    second = _award(record, {1: 5, 2: 3, 0: 2})
    revised = table.send(AwardDeal(record, second, revise=True))
    assert revised.awarded == (1,)
    sheet = revised.game.sheet
    assert sheet.history[-1].summary.startswith("deal 1 award revised") and sheet.awarded_result(1) == second
    assert [line.kind for line in sheet.history].count("timeout") == 1  # the penalty stays, once
    assert sheet.mountains[1] > 0  # one trick short of six: the declarer's remise
    assert revised.game.outcome is not None and revised.game.outcome.settlement_json()["sum"] == 0


def test_an_action_counts_when_received_not_when_its_queue_wait_ends() -> None:
    """§8.6: a pass received 400 ms into seat 1's turn, taken from the table's queue 2.5 s later, is charged
    400 ms — beyond the lag allowance's 500 ms cap, the wait would have run the seat out of time."""
    table = Table.start(seats=3, **TINY)
    assert table.game.to_act() == 1 and table.game.clock.since == 0
    stepped = table.send(SeatAction(1, PassBid(1), received_ms=400), after_ms=2_500)
    assert not stepped.too_late and stepped.applied[0].seat == 1
    left = stepped.game.clock.seats[1]
    assert (left.deal_ms, left.reserve_ms) == (600, 1000)
    assert stepped.game.clock.running == 2 and stepped.game.clock.since == 2_500
