"""The table step and RULES.md §8, one clause per test, with fixed decks and a fake time source.

Three seats, seat 0 deals: first hand is seat 1, then seat 2, then seat 0. Clocks are tiny (1 s of deal
time, 1 s of reserve or none) and the test moves time itself.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import (
    Bid,
    CallWhist,
    ChoosePlay,
    DealKind,
    MakeBid,
    NameContract,
    PassBid,
    Phase,
    PlayCard,
    PlayMode,
    WhistCall,
    legal_actions,
)
from app.table import AwardDeal, ClockExpiry, Step, TableStatus, Termination
from tests.engine.helpers import deal_of, discard_first_two
from tests.table.helpers import Table, deck

TINY: dict[str, Any] = {"deal_time": 1, "reserve_time": 1, "misere_bonus": 5}
RESERVE_OFF: dict[str, Any] = {"deal_time": 1, "reserve_time": 0}
BOTH_WHIST = ((2, WhistCall.WHIST), (0, WhistCall.WHIST))
SIX_SPADES = Bid.parse("6s")
ACES_IN_THE_TALON = deck(
    "s7 s8 c7 c8 c9 cT d7 d8 d9 dT", "s9 sT cJ cQ cK cA dJ dQ dK dA", "sJ sQ sK h7 h8 h9 hT hJ hQ hK", "sA hA"
)


def _server_played_cards(step: Step) -> list[int]:
    return [a.action.seat for a in step.applied if isinstance(a.action, PlayCard) and a.seat is None]


def test_reserve_off_an_unfinishable_deal_is_archived_and_the_game_goes_on() -> None:
    """§8.2: reserve off, the declarer runs out before naming the contract: the deal is archived as
    interrupted (naming who ran out), the game goes on with the next deal, and the award, given later,
    is written as "deal 1 awarded"."""
    table = Table.start(seats=3, **RESERVE_OFF)
    table.act(MakeBid(1, Bid.parse("6s")))
    table.act(PassBid(2))
    table.act(PassBid(0))
    table.act(discard_first_two(table.game.state, 1))
    assert table.game.state.phase is Phase.CONTRACT
    stepped = table.expire()
    assert [r.timed_out for r in stepped.archived] == [(1,)]
    assert stepped.archived[0].deal_number == 1
    game = stepped.game
    assert game.status is TableStatus.PLAYING and game.pending == (1,)
    assert game.state.deal_number == 2 and game.state.phase is Phase.BIDDING
    assert game.to_act() == 2  # the next deal: seat 1 deals, seat 2 is first hand

    record = stepped.archived[0]
    award = record.awarded(
        {1: 6, 2: 2, 0: 2}, contract=Bid.parse("6s"), calls=BOTH_WHIST, mode=PlayMode.CLOSED
    )
    before = table.game.sheet
    awarded = table.send(AwardDeal(record, award))
    assert awarded.awarded == (1,) and awarded.game.pending == ()
    line = awarded.game.sheet.history[-1]
    assert line.summary.startswith("deal 1 awarded") and awarded.game.sheet.pools[1] == before.pools[1] + 2
    assert awarded.game.status is TableStatus.PLAYING and awarded.game.state == table.steps[-2].game.state


def test_reserve_off_a_pulya_ending_with_an_award_outstanding_awaits_adjudication() -> None:
    """§8.2: the pulya reaches its end while deal 1 awaits its award: "awaiting adjudication", provisional;
    the award settles it again, final."""
    table = Table.start(seats=3, pool_size=2, **RESERVE_OFF)
    table.act(MakeBid(1, Bid.parse("6s")))
    table.act(PassBid(2))
    table.act(PassBid(0))
    table.act(discard_first_two(table.game.state, 1))
    record = table.expire().archived[0]
    table.play_randomly(seed=3)
    game = table.game
    assert game.status is TableStatus.AWAITING_ADJUDICATION and game.pending == (1,)
    assert game.outcome is not None and game.outcome.termination is Termination.POOL_COMPLETE
    provisional = game.outcome.settlement
    award = record.awarded(
        {1: 10, 2: 0, 0: 0}, contract=Bid.parse("6s"), calls=BOTH_WHIST, mode=PlayMode.CLOSED
    )
    final = table.send(AwardDeal(record, award))
    assert final.game.status is TableStatus.FINISHED and final.game.outcome is not None
    assert final.game.outcome.settlement != provisional and final.game.outcome.settlement_json()["sum"] == 0
    assert [e.kind for e in final.events] == ["deal_awarded", "game_over"]


def test_reserve_off_a_timeout_in_allpass_play_writes_the_tricks_and_the_pulya_goes_on() -> None:
    """§8.2 with §8.4: reserve off, first hand runs out in an all-pass deal (raspasy): the remaining tricks
    are written to him up to the cap (6 of 10), the deal goes into the sheet at the series' first price
    (§6.3: 6 × 2 = 12 on his mountain), nobody gets a penalty, and the pulya goes on with the next deal,
    where he is back in control. Only a reserve-on timeout ends the pulya early (§8.3, §7.7)."""
    table = Table.start(seats=3, **RESERVE_OFF)
    for seat in (1, 2, 0):
        table.act(PassBid(seat))
    deal = deal_of(table.game.state)
    assert deal.allpass and table.game.to_act() == 1
    ended = table.expire()
    result = ended.deals[-1].result
    assert result.kind is DealKind.ALLPASS and result.timed_out == (1,)
    assert result.tricks is not None and result.tricks[1] == 6
    game = ended.game
    assert game.status is TableStatus.PLAYING and game.outcome is None
    assert [line.kind for line in game.sheet.history] == ["allpass"] and game.sheet.mountains[1] == 12
    assert game.state.deal_number == 2 and game.state.phase is Phase.BIDDING
    assert game.state.allpass_series == 1 and game.to_act() == 2 and not game.clock.is_flagged(1)


def test_the_misere_bonus_is_there_for_the_discard() -> None:
    """§8.1: the bonus is added the moment the auction ends with a misère, so the declarer's discard has it:
    2.5 s into the discard is in time with 1 s deal time + 1 s reserve + 5 s bonus."""
    table = Table.start(seats=3, **TINY)
    table.act(MakeBid(1, Bid.parse("misere")), after_ms=200)
    table.act(PassBid(2))
    ended = table.act(PassBid(0))
    clock = ended.game.clock
    assert ended.game.state.phase is Phase.DISCARD and clock.running == 1
    assert clock.seats[1].deal_ms == 800 + 5000 and clock.seats[2].deal_ms == 1000 + 5000
    assert table.send(ClockExpiry(), after_ms=2500).applied == ()  # not out yet: a stale timer
    discarded = table.act(discard_first_two(table.game.state, 1))
    assert not discarded.too_late and discarded.game.state.phase is Phase.PLAY


def test_the_allpass_cap_counts_the_talon_tricks_written_to_the_three_seat_dealer() -> None:
    """§8.4 with §6.2: the talon's aces take tricks 1 and 2 for the dealer (seat 0), who then runs out:
    at most 6 tricks are written to him in all, talon included (4 of his own + 2), not 6 + 2."""
    table = Table.start(ACES_IN_THE_TALON, seats=3, **TINY)
    for seat in (1, 2, 0):
        table.act(PassBid(seat))
    while len(deal_of(table.game.state).tricks) < 2 or table.game.to_act() != 0:
        table.act(legal_actions(table.game.state)[0])
    deal = deal_of(table.game.state)
    assert deal.talon_taken == 2 and deal.taken[0] == 0
    ended = table.expire()
    result = ended.deals[-1].result
    assert result.tricks is not None and result.tricks[0] + result.talon_tricks == 6
    assert result.tricks[0] == 4 and result.timed_out == (0,)
    assert ended.game.outcome is not None and ended.game.outcome.termination is Termination.TIMEOUT


def test_after_a_misere_discard_timeout_the_robot_plays_every_card_and_no_live_clock_runs() -> None:
    """§8.4: the declarer (seat 2, not first hand) runs out before the discard: the robot discards from his
    hand and, having taken over, plays every card of every seat — the live first hand's lead included —
    at once, without starting any live seat's clock (§8.1)."""
    table = Table.start(seats=3, **TINY)
    table.act(PassBid(1))
    table.act(MakeBid(2, Bid.parse("misere")))
    reserves = [s.reserve_ms for s in table.act(PassBid(0)).game.clock.seats]
    ended = table.expire()
    kinds = [type(a.action).__name__ for a in ended.applied]
    assert kinds[:2] == ["TimeOut", "Discard"] and kinds.count("PlayCard") == 30
    assert sorted(set(_server_played_cards(ended))) == [0, 1, 2]
    assert all(a.clock.running is None for a in ended.applied)
    clock = ended.game.clock
    assert [s.reserve_ms for s in clock.seats][:2] == reserves[:2]
    assert ended.deals[-1].result.kind.value == "misere" and ended.deals[-1].result.timed_out == (2,)
    assert ended.game.outcome is not None and ended.game.outcome.termination is Termination.TIMEOUT


def _declared_six_spades_by_first_hand(table: Table) -> None:
    table.act(MakeBid(1, Bid.parse("6s")))
    table.act(PassBid(2))
    table.act(PassBid(0))
    table.act(discard_first_two(table.game.state, 1))
    table.act(NameContract(1, Bid.parse("6s")))


def test_a_dark_lead_timeout_lets_the_robot_choose_for_the_lone_whister_and_play_out() -> None:
    """§4.9, §8.4: the first-hand declarer runs out at his dark lead against a lone whister: the robot leads,
    makes the whister's pending open/closed choice itself (closed) and plays the deal out."""
    table = Table.start(seats=3, **TINY)
    _declared_six_spades_by_first_hand(table)
    while table.game.state.phase is Phase.WHISTING:
        seat = table.game.to_act()
        assert seat is not None
        table.act(CallWhist(seat, WhistCall.WHIST if seat == 2 else WhistCall.PASS))
    assert table.game.state.phase is Phase.PLAY and table.game.to_act() == 1
    assert deal_of(table.game.state).mode_chooser == 2
    ended = table.expire()
    chosen = [(a.action, a.seat) for a in ended.applied if isinstance(a.action, ChoosePlay)]
    assert chosen == [(ChoosePlay(2, PlayMode.CLOSED), None)]  # the whister's choice, made by the server
    assert len(_server_played_cards(ended)) == 30 and ended.deals[-1].result.tricks is not None


def test_two_seats_out_in_one_deal_are_both_recorded_and_penalised() -> None:
    """§8.5: every seat that runs out in the deal gets the penalty, and the deal record lists them all."""
    table = Table.start(seats=3, **TINY)
    _declared_six_spades_by_first_hand(table)
    assert table.game.to_act() == 2
    table.expire()  # seat 2's whist: auto
    assert table.game.to_act() == 0
    ended = table.expire()  # seat 0's whist: auto
    result = ended.deals[-1].result
    assert result.timed_out == (0, 2)
    penalties = [line for line in ended.game.sheet.history if line.kind == "timeout"]
    assert [line.summary for line in penalties] == ["seat 0 ran out of time", "seat 2 ran out of time"]
    assert ended.game.outcome is not None and ended.game.outcome.settlement_json()["sum"] == 0


def test_an_action_at_the_deadline_is_too_late_and_the_procedure_acts_instead() -> None:
    """§8.5: acting at the very millisecond of the deadline is too late."""
    table = Table.start(seats=3, reserve_time=0, deal_time=1)
    late = table.act(PassBid(1), after_ms=1000)
    assert late.too_late and [type(a.action).__name__ for a in late.applied] == ["PassBid"]
    assert late.applied[0].seat is None  # the server's automatic pass, not the player's
    assert late.game.to_act() == 2


def test_the_waiting_seat_is_not_charged_for_the_time_the_server_spent() -> None:
    """§8.1: the clock of the seat the step left waiting counts from when the server was done."""
    table = Table.start(seats=3, **TINY)
    stepped = table.act(PassBid(1), after_ms=100)
    started = table.now
    assert stepped.game.clock.running == 2 and stepped.game.clock.since == started
    later = stepped.game.with_server_time(started, started + 150)
    assert later.clock.since == started + 150
    assert later.clock.time_left(2, started + 150).deal_ms == 1000
    assert stepped.game.with_server_time(started - 1, started + 150) is stepped.game


@pytest.mark.parametrize("seed", [1, 2])
def test_a_whole_pulya_through_the_step_settles_to_zero(seed: int) -> None:
    table = Table.start(seats=3, pool_size=3, robot=False)
    table.play_randomly(seed)
    game = table.game
    assert game.status is TableStatus.FINISHED and game.outcome is not None
    assert game.outcome.termination is Termination.POOL_COMPLETE
    assert game.outcome.settlement_json()["sum"] == 0
    assert game.sheet.deals == game.state.deal_number
