"""The timeout procedure of RULES.md §8.3–§8.5, one branch per test, driven through the engine.

Tables here have 3 seats with seat 0 dealing (first hand is seat 1, then seat 2, then seat 0) unless a
test says 4 seats (seat 0 deals and sits out; seats 1, 2, 3 play).
"""

from __future__ import annotations

import json

import pytest

from app.autoplay import (
    REASON_NO_CONTRACT,
    REASON_SOLVER,
    AdjudicationError,
    AutoplayError,
    InterruptedDeal,
    close_after_adjudication,
    close_after_timeout,
    timeout_actions,
)
from app.engine import (
    AnswerInvitation,
    CallWhist,
    DealKind,
    Discard,
    GameOver,
    Interrupt,
    InviteDealer,
    MakeBid,
    NameContract,
    PassBid,
    Phase,
    PlayMode,
    TableState,
    TimeOut,
    WhistCall,
    apply,
    current_actor,
)
from app.engine.cards import Card
from app.engine.scoring import ScoreSheet
from app.engine.scoring.settlement import settle
from app.solver.errors import SolverCancelled
from tests.autoplay.helpers import NoRobot, bid, dealt, drive, first_legal, next_deal, play, sheet_for

PASS, WHIST, HALF = WhistCall.PASS, WhistCall.WHIST, WhistCall.HALF_WHIST


def declared(state: TableState, declarer: int, contract: str) -> TableState:
    """The declarer discards his two lowest cards and names ``contract``."""
    deal = state.deal
    assert deal is not None and state.phase is Phase.DISCARD
    hand = deal.hands[declarer]
    return play(state, Discard(declarer, (hand[0], hand[1])), NameContract(declarer, bid(contract)))


def assert_penalty(close_sheet: ScoreSheet, before: ScoreSheet, seat: int) -> None:
    """§5.8: every other player writes 50 whists on the seat that ran out; settled, that is 50·(n−1)."""
    n = close_sheet.seats
    assert close_sheet.history[-1].kind == "timeout"
    for other in range(n):
        if other != seat:
            assert close_sheet.whists[other][seat] - before.whists[other][seat] == 50
    with_penalty, without = settle(close_sheet).variant1, settle(before).variant1
    diff = [a - b for a, b in zip(with_penalty, without, strict=True)]
    assert diff == [-50 * (n - 1) if s == seat else 50 for s in range(n)]
    assert sum(with_penalty) == 0


def test_bidding_timeout_passes_and_the_deal_goes_on_then_the_game_ends() -> None:
    """§8.4: in bidding the timed-out player passes; the others play on; §8.5 penalty and settlement."""
    state = dealt()
    out = timeout_actions(state, 1, reserve_on=True, robot=NoRobot())
    assert out.actions == (TimeOut(1), PassBid(1))
    assert out.ends_game and not out.deal_finished and out.interrupted is None
    assert current_actor(out.state) == 2
    state = play(out.state, MakeBid(2, bid("6s")), PassBid(0))
    state = declared(state, 2, "6s")
    state = play(state, CallWhist(0, PASS))
    # Seat 1 is out of time: its whisting turn comes and the procedure acts again, without a new TimeOut.
    again = timeout_actions(state, 1, reserve_on=True, robot=NoRobot())
    assert again.actions == (CallWhist(1, HALF),)
    state = play(again.state, CallWhist(0, PASS))  # seat 0 does not take the whist back
    assert state.phase is Phase.DEAL_OVER and state.last_result is not None
    assert state.last_result.timed_out == (1,)
    start = sheet_for(state)
    close = close_after_timeout(start, state)
    assert not close.provisional and close.penalised == (1,)
    deal_only = start.apply(state.last_result)
    assert deal_only.pools == (0, 0, 2) and deal_only.whists[1][2] == 8  # 6♠ made; half-whist 8 (§5.6)
    assert_penalty(close.sheet, deal_only, seat=1)
    assert close.sheet.pools == deal_only.pools


def test_whisting_timeout_half_whists_where_legal() -> None:
    """§8.4: in whisting the timed-out defender says half-whist where it is legal for him at that moment."""
    state = play(dealt(), PassBid(1), MakeBid(2, bid("6s")), PassBid(0))
    state = play(declared(state, 2, "6s"), CallWhist(0, PASS))
    out = timeout_actions(state, 1, reserve_on=True, robot=NoRobot())
    assert out.actions == (TimeOut(1), CallWhist(1, HALF))
    assert current_actor(out.state) == 0  # seat 0 may now take the whist back (§4.5)


def test_whisting_timeout_passes_where_half_whist_is_not_legal() -> None:
    """§8.4: on an 8-level contract no half-whist exists, so the timed-out defender passes."""
    state = play(dealt(no_jumps=False), PassBid(1), MakeBid(2, bid("8s")), PassBid(0))
    state = play(declared(state, 2, "8s"), CallWhist(0, PASS))
    out = timeout_actions(state, 1, reserve_on=True, robot=NoRobot())
    assert out.actions == (TimeOut(1), CallWhist(1, PASS))
    assert out.deal_finished and out.state.last_result is not None
    assert out.state.last_result.kind is DealKind.GAME and out.state.last_result.tricks is None


def test_four_seat_dealer_timeout_declines_the_invitation_and_passes_the_dealer_whist() -> None:
    """§8.4: the dealer's answer to a misère invitation: declined; the dealer's whist decision: pass."""
    state = dealt(seats=4)
    state = play(state, InviteDealer(1))
    out = timeout_actions(state, 0, reserve_on=True, robot=NoRobot())
    assert out.actions == (TimeOut(0), AnswerInvitation(0, False))
    assert out.state.phase is Phase.BIDDING and current_actor(out.state) == 1
    state = play(out.state, PassBid(1), MakeBid(2, bid("6s")), PassBid(3))
    state = play(declared(state, 2, "6s"), CallWhist(3, PASS), CallWhist(1, PASS))
    assert current_actor(state) == 0  # the dealer is asked last (§4.8)
    again = timeout_actions(state, 0, reserve_on=True, robot=NoRobot())
    assert again.actions == (CallWhist(0, PASS),)
    assert again.state.phase is Phase.DEAL_OVER
    start = sheet_for(state)
    close = close_after_timeout(start, again.state)
    assert again.state.last_result is not None
    assert_penalty(close.sheet, start.apply(again.state.last_result), seat=0)
    assert sum(close.sheet.whists[s][0] for s in (1, 2, 3)) == 150  # 150 whists at 4 seats (§5.8)


def test_all_pass_after_a_timed_out_auction_is_void_and_ends_the_game() -> None:
    """§8.4: an auction with the timed-out player that ends in all-pass is not played: a void deal."""
    state = dealt()
    out = timeout_actions(state, 1, reserve_on=True, robot=NoRobot())
    state = play(out.state, PassBid(2), PassBid(0))
    assert state.phase is Phase.DEAL_OVER and state.last_result is not None
    assert state.last_result.kind is DealKind.VOID
    start = sheet_for(state)
    close = close_after_timeout(start, state)
    assert close.sheet.history[0].kind == "void" and close.sheet.history[0].writes == ()
    assert close.sheet.pools == (0, 0, 0) and close.sheet.mountains == (0, 0, 0)
    assert_penalty(close.sheet, start.apply(state.last_result), seat=1)


@pytest.mark.parametrize("tricks_before", [3, 7])
def test_all_pass_timeout_writes_the_remaining_tricks_up_to_the_cap(tricks_before: int) -> None:
    """§8.4: remaining all-pass tricks go to the timed-out player, never more than allpass_timeout_cap."""
    state = play(dealt(seed=5), PassBid(1), PassBid(2), PassBid(0))
    assert state.phase is Phase.PLAY
    while state.deal is not None and len(state.deal.tricks) < tricks_before:
        state, _ = apply(state, first_legal(state))
    seat = current_actor(state)
    assert seat is not None and state.deal is not None
    taken_before = state.deal.taken
    out = timeout_actions(state, seat, reserve_on=True, robot=NoRobot())
    assert out.actions == (TimeOut(seat),)
    result = out.state.last_result
    assert result is not None and result.kind is DealKind.ALLPASS and result.tricks is not None
    cap = state.conventions.allpass_timeout_cap
    expected = max(taken_before[seat], min(cap, taken_before[seat] + 10 - tricks_before))
    assert result.tricks[seat] == expected
    assert all(result.tricks[s] == taken_before[s] for s in result.tricks if s != seat)
    start = sheet_for(state)
    close = close_after_timeout(start, out.state)
    assert_penalty(close.sheet, start.apply(result), seat=seat)


@pytest.mark.parametrize("at", ["discard", "contract"])
def test_declarer_timeout_before_naming_a_game_interrupts_the_deal(at: str) -> None:
    """§8.4: a non-misère declarer out of time before naming the contract: archived as interrupted, the
    settlement provisional; an administrator's award then settles the pulya again, final."""
    state = play(dealt(), PassBid(1), MakeBid(2, bid("6s")), PassBid(0))
    if at == "contract":
        hand = state.deal.hands[2] if state.deal else ()
        state = play(state, Discard(2, (hand[0], hand[1])))
    clocks = {"version": 1, "note": "the clock JSON is archived as given"}
    out = timeout_actions(state, 2, reserve_on=True, robot=NoRobot(), clocks=clocks)
    assert out.actions == (TimeOut(2), Interrupt(REASON_NO_CONTRACT))
    assert out.state.phase is Phase.INTERRUPTED and out.deal_finished
    record = out.interrupted
    assert record is not None
    assert record.timed_out == (2,) and record.declarer == 2 and record.bid == bid("6s")
    assert record.contract is None and record.clocks == clocks
    assert set(record.hands) == {0, 1, 2} and all(len(h) == 10 for h in record.hands.values())
    assert len(record.talon) == 2 and len(record.discard) == (2 if at == "contract" else 0)
    assert record.auction == ((1, None), (2, bid("6s")), (0, None))
    assert InterruptedDeal.from_json(json.loads(json.dumps(record.to_json()))) == record

    start = sheet_for(state)
    provisional = close_after_timeout(start, out.state)
    assert provisional.provisional and provisional.sheet.pools == (0, 0, 0)
    assert_penalty(provisional.sheet, start, seat=2)
    with pytest.raises(GameOver):
        next_deal(out.state)  # the pulya is over, awaiting adjudication

    award = record.awarded({0: 2, 1: 2, 2: 6}, calls=((0, WHIST), (1, WHIST)), mode=PlayMode.CLOSED)
    final = close_after_adjudication(provisional, record, award)
    assert not final.provisional
    assert [line.kind for line in final.sheet.history] == ["game", "timeout"]
    assert final.sheet.pools == (0, 0, 2)
    # Each whister writes 2P = 4 whists per trick on the declarer (§5.2), then 50 of penalty (§5.8).
    assert final.sheet.whists[0][2] == final.sheet.whists[1][2] == 8 + 50
    assert_penalty(final.sheet, start.apply(award), seat=2)


def test_an_award_can_void_the_interrupted_deal() -> None:
    """§8.4: the administrator may award the interrupted deal as void."""
    state = play(dealt(), PassBid(1), MakeBid(2, bid("6s")), PassBid(0))
    out = timeout_actions(state, 2, reserve_on=True, robot=NoRobot())
    assert out.interrupted is not None
    provisional = close_after_timeout(sheet_for(state), out.state)
    final = close_after_adjudication(provisional, out.interrupted, out.interrupted.awarded(None))
    assert [line.kind for line in final.sheet.history] == ["void", "timeout"]
    assert final.settlement.variant1 == provisional.settlement.variant1
    with pytest.raises(AdjudicationError):
        close_after_adjudication(final, out.interrupted, out.interrupted.awarded(None))
    with pytest.raises(AdjudicationError):
        out.interrupted.awarded({0: 1, 1: 1, 2: 1})


def test_reserve_off_acts_for_the_seat_without_penalty_and_the_game_goes_on() -> None:
    """§8.2: reserve off — the server acts for the seat by §8.4 until the deal ends, no penalty, next deal.
    [ours] The all-pass after its auto-pass is played (not void); its all-pass turn writes capped tricks."""
    state = dealt(reserve_on=False)
    out = timeout_actions(state, 1, reserve_on=False, robot=NoRobot())
    assert out.actions == (PassBid(1),) and not out.ends_game
    state = play(out.state, PassBid(2), PassBid(0))
    assert state.phase is Phase.PLAY  # played, not void
    state, outcomes = drive(state, {1}, reserve_on=False, robot=NoRobot())
    assert outcomes[-1].actions == (TimeOut(1),)
    result = state.last_result
    assert result is not None and result.kind is DealKind.ALLPASS and result.tricks is not None
    assert result.tricks[1] == state.conventions.allpass_timeout_cap
    sheet = sheet_for(state).apply(result)
    assert all(line.kind != "timeout" for line in sheet.history)
    state = next_deal(state)
    assert state.phase is Phase.BIDDING and state.deal is not None and not state.deal.timed_out


def test_the_procedure_acts_only_for_the_seat_the_table_waits_for() -> None:
    state = dealt()
    with pytest.raises(AutoplayError, match="waits for seat 1"):
        timeout_actions(state, 2, reserve_on=True, robot=NoRobot())


def test_closing_needs_a_finished_deal_with_a_timeout() -> None:
    state = dealt()
    with pytest.raises(AdjudicationError):
        close_after_timeout(sheet_for(state), state)
    state = play(state, PassBid(1), PassBid(2), PassBid(0))
    state, _ = drive(state, (), reserve_on=True, robot=NoRobot())
    with pytest.raises(AdjudicationError, match="nobody ran out"):
        close_after_timeout(sheet_for(state), state)


def test_two_seats_out_of_time_in_one_deal_are_both_auto_played_and_penalised() -> None:
    """§8.4: the first timeout ends the game; a second seat that runs out while the deal is completed is
    auto-played too, and [ours] each seat that ran out gets the §5.8 penalty."""
    state = dealt()
    state = timeout_actions(state, 1, reserve_on=True, robot=NoRobot()).state
    state = play(state, MakeBid(2, bid("6s")))
    out = timeout_actions(state, 0, reserve_on=True, robot=NoRobot(), flagged={1})
    assert out.actions == (TimeOut(0), PassBid(0))
    state = declared(out.state, 2, "6s")
    # Both defenders are out of time: one run of the procedure takes every call they still owe.
    out = timeout_actions(state, 0, reserve_on=True, robot=NoRobot(), flagged={0, 1})
    assert out.actions == (CallWhist(0, PASS), CallWhist(1, HALF), CallWhist(0, PASS))
    assert out.state.phase is Phase.DEAL_OVER
    start = sheet_for(state)
    close = close_after_timeout(start, out.state)
    assert close.penalised == (0, 1)
    assert close.sheet.whists[2][0] == close.sheet.whists[2][1] == 50
    assert close.sheet.whists[0][1] == 50 and close.sheet.whists[1][0] == 50
    assert [line.kind for line in close.sheet.history] == ["game", "timeout", "timeout"]


class _GuardStops:
    """A robot whose search the server's wall-time guard stopped (app.server.tables.robot)."""

    def play(self, state: TableState) -> Card:
        raise SolverCancelled("the guard ran out", 1024)

    def misere_discard(self, state: TableState) -> tuple[Card, Card]:
        raise SolverCancelled("the guard ran out", 1024)


def test_a_misere_discard_stopped_by_the_guard_archives_the_deal_as_interrupted() -> None:
    """§8.4: when the robot cannot finish — here its discard search was cancelled — the deal is archived."""
    state = play(dealt(seed=7), PassBid(1), MakeBid(2, bid("misere")), PassBid(0))
    assert state.phase is Phase.DISCARD
    out = timeout_actions(state, 2, reserve_on=True, robot=_GuardStops())
    assert out.state.phase is Phase.INTERRUPTED and out.interrupted is not None
    assert out.interrupted.reason == REASON_SOLVER and out.interrupted.timed_out == (2,)
