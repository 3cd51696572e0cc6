"""RULES.md §7.7, [K 3.1.2] through the pure table step: a fourth player joins three (convention
`fourth_may_join`). He asks as a proposal is made; all three accept; at the end of the deal in progress
(at once while adjourned) he sits left of the player who has just dealt, writes the average pool (rounded
down) and mountain (rounded up), takes the smallest reserve left and deals the next deal; the end of §7.1
then counts 4·S. Fixed decks, a fake time source, three seats, seat 0 deals first."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.engine import (
    Bid,
    CallWhist,
    IllegalAction,
    JoinFourth,
    MakeBid,
    NameContract,
    PassBid,
    Phase,
    WhistCall,
    apply,
    legal_actions,
    replay,
)
from app.engine.conventions import conventions_from
from app.engine.scoring import ScoreSheet
from app.engine.scoring.records import mountain, pool, whists
from app.engine.scoring.sheet import HistoryLine
from app.table import (
    Answer,
    AskToJoin,
    Game,
    Person,
    ProposalKind,
    Propose,
    Ready,
    StopGame,
    TableRefused,
    TableStatus,
    Termination,
    WithdrawJoin,
)
from app.table.seats import player_action
from tests.table.helpers import Table, deck

ALICE, BOB, CAROL, DAN = Person(1, "alice"), Person(2, "bob"), Person(3, "carol"), Person(4, "dan")
SEATED = (1, 2, 3)
ASK = AskToJoin(DAN, SEATED)

# Seat 1 (first hand) holds the spades; an all-pass deal played with each seat's first legal card.
DECK = deck(
    "s7 s8 s9 sT sJ sQ sK sA c7 c8",
    "c9 cT cJ cQ cK cA d7 d8 d9 dT",
    "dJ dQ dK dA h7 h8 h9 hT hJ hQ",
    "hK hA",
)


def _table(**overrides: object) -> Table:
    conventions = {"pool_size": 10, "deal_time": 60, "reserve_time": 300, "fourth_may_join": True}
    return Table.start(DECK, seats=3, robot=False, **{**conventions, **overrides})


def _play_out_the_deal(table: Table) -> None:
    deal = table.game.state.deal_number
    while table.game.state.deal_number == deal and table.game.status is TableStatus.PLAYING:
        assert table.game.to_act() is not None
        table.act(legal_actions(table.game.state)[0], after_ms=100)


def _refused(table: Table, command: object, code: str) -> None:
    before = table.game
    with pytest.raises(TableRefused) as refused:
        table.send(command)  # type: ignore[arg-type]
    assert refused.value.code == code and table.game is before


def _sheet(pools: tuple[int, int, int], mountains: tuple[int, int, int], **overrides: object) -> ScoreSheet:
    """The sheet so far: these pools and mountains, and 12 whists seat 0 wrote on seat 2."""
    conventions = conventions_from(overrides={"pool_size": 10, "fourth_may_join": True, **overrides})
    writes = [pool(s, p, "deal") for s, p in enumerate(pools) if p]
    writes += [mountain(s, m, "remise") for s, m in enumerate(mountains) if m]
    writes.append(whists(0, 2, 12, "whists"))
    return ScoreSheet.new(3, conventions).write(HistoryLine("game", "deals so far", tuple(writes)))


def _adjourned(table: Table) -> Game:
    """Deal 1 played out with an adjournment agreed meanwhile: the table stands between deals."""
    table.send(Propose(1, ProposalKind.ADJOURN))
    table.send(Answer(2, True))
    table.send(Answer(0, True))
    _play_out_the_deal(table)
    assert table.game.status is TableStatus.ADJOURNED
    return table.game


def _all_agree(table: Table) -> None:
    table.send(ASK)
    for seat in (0, 1, 2):
        table.send(Answer(seat, True))


def test_the_newcomer_writes_the_kodeks_averages_and_deals_the_next_deal() -> None:
    """Adjourned after deal 1 (dealt by seat 0): dan sits in seat 1, bob and carol move to seats 2 and 3.
    Pools 4, 6, 1: 11/3 = 3.67, dan writes 3 (down); mountains 2, 0, 5: 7/3 = 2.33, dan writes 3 (up)."""
    table = _table()
    _adjourned(table)
    clock = table.game.clock
    left = (250_000, 120_000, 90_000)
    reserves = tuple(replace(s, reserve_ms=r) for s, r in zip(clock.seats, left, strict=True))
    table.game = replace(table.game, sheet=_sheet((4, 6, 1), (2, 0, 5)), clock=replace(clock, seats=reserves))
    table.send(ASK)
    table.send(Answer(0, True))
    table.send(Answer(2, True))
    assert table.game.state.seats == 3  # one consent is missing
    joined = table.send(Answer(1, True))  # while adjourned an agreed proposal takes effect at once (§7.7)
    assert joined.joined is not None
    assert (joined.joined.seat, joined.joined.moved, joined.joined.after_deal) == (1, (0, 2, 3), 1)
    game = joined.game
    assert game.state.seats == 4 and game.proposal is None and game.status is TableStatus.ADJOURNED
    assert game.sheet.pools == (4, 3, 6, 1) and game.sheet.mountains == (2, 3, 0, 5)
    assert game.sheet.whists[0][3] == 12 and sum(game.sheet.whists[1]) == 0  # carol's whists moved with her
    assert game.sheet.history[-1].summary == "seat 1: dan joins after the deal dealt by seat 0"
    assert [s.reserve_ms for s in game.clock.seats] == [250_000, 90_000, 120_000, 90_000]  # the smallest
    assert [e.kind for e in joined.events][-2:] == ["seat_joined", "joined"]
    for seat in (0, 1, 2):
        table.send(Ready(seat))
    assert table.game.status is TableStatus.ADJOURNED  # four seats now: dan is ready too, or nobody plays
    resumed = table.send(Ready(3)).game
    assert resumed.status is TableStatus.PLAYING
    assert resumed.state.deal_number == 2 and resumed.state.dealer == 1  # the newcomer deals
    deal = resumed.state.deal
    assert deal is not None and deal.active == (2, 3, 0) and deal.hands[1] == ()  # the dealer sits out


def test_a_join_agreed_during_a_deal_takes_effect_when_it_ends() -> None:
    table = _table()
    table.act(PassBid(1), after_ms=1_000)
    _all_agree(table)
    assert table.game.state.seats == 3 and table.game.proposal is not None  # the deal is played out first
    _play_out_the_deal(table)
    step = next(s for s in table.steps if s.joined is not None)
    assert step.joined is not None and step.joined.seat == 1 and step.joined.after_deal == 1
    kinds = [e.kind for e in step.events]
    # Deal 1 ends, then the join, then deal 2 is dealt by the newcomer: one step, no wait between.
    assert kinds.index("deal_over") < kinds.index("joined") < kinds.index("deal_started")
    assert step.joined.events_before == kinds.index("seat_joined")
    game = table.game
    assert game.state.seats == 4 and game.state.deal_number == 2 and game.state.dealer == 1
    assert game.clock.running == 2 and len(game.clock.seats) == 4  # first hand, left of dan, bids
    assert game.sheet.seats == 4 and game.sheet.deals == 1


def test_the_table_replays_across_the_join_from_its_log() -> None:
    """The join is an action of the log (seat count 3 → 4): replaying the log from three seats gives the
    live state, as the server does after a restart."""
    table = _table()
    _all_agree(table)
    _play_out_the_deal(table)
    _play_out_the_deal(table)
    log = [a.action for s in table.steps for a in s.applied]
    assert JoinFourth(1) in log
    assert replay(log, 3, table.game.state.conventions, 0) == table.game.state
    assert table.game.state.seats == 4 and table.game.state.deal_number == 3


def test_the_end_counts_four_times_the_pool_size_after_the_join() -> None:
    """Pools 10, 10, 9 (29 of a three-seat end at 30): dan writes 29/3 = 9, so 38 of 40. The game goes on
    past 3·S and ends only when the four pools reach 4·S = 40 (§7.1)."""
    table = _table()
    _adjourned(table)
    table.game = replace(table.game, sheet=_sheet((10, 10, 9), (0, 0, 0)))
    _all_agree(table)
    assert table.game.sheet.pools == (10, 9, 10, 9) and not table.game.sheet.finished
    for seat in range(4):
        table.send(Ready(seat))
    table.play_randomly(seed=3)
    game = table.game
    assert game.outcome is not None and game.outcome.termination is Termination.POOL_COMPLETE
    assert sum(game.sheet.pools) >= 40 and game.state.seats == 4
    assert len(game.outcome.settlement_json()["exact"]) == 4
    before_last = next(s for s in reversed(table.steps[:-1]) if s.game.sheet is not game.sheet).game.sheet
    assert sum(before_last.pools) < 40


def test_a_decline_ends_the_asking_and_the_newcomer_may_withdraw_it() -> None:
    table = _table()
    table.send(ASK)
    table.send(Answer(0, True))
    declined = table.send(Answer(2, False))
    assert declined.game.proposal is None and "proposal_declined" in [e.kind for e in declined.events]
    table.send(ASK)
    _refused(table, WithdrawJoin(ALICE.user_id), "no_proposal")  # only the one who asked withdraws it
    withdrawn = table.send(WithdrawJoin(DAN.user_id))
    assert withdrawn.game.proposal is None
    table.send(ASK)
    for seat in (0, 1, 2):
        table.send(Answer(seat, True))
    _refused(table, WithdrawJoin(DAN.user_id), "proposal_agreed")


def test_an_asking_still_open_when_the_next_deal_starts_lapses() -> None:
    table = _table()
    table.send(ASK)
    table.send(Answer(1, True))
    _play_out_the_deal(table)
    assert table.game.proposal is None and table.game.state.seats == 3 and table.game.state.deal_number == 2


def test_who_may_not_ask_is_refused_typed_and_nothing_changes() -> None:
    _refused(_table(fourth_may_join=False), ASK, "no_fourth")
    _refused(_table(), AskToJoin(DAN, SEATED, tournament=True), "tournament_table")
    _refused(_table(), AskToJoin(CAROL, SEATED), "already_seated")
    _refused(_table(), Propose(1, ProposalKind.JOIN), "invalid_proposal")  # the seated do not ask
    four = Table.start(DECK, seats=4, robot=False, fourth_may_join=True)
    _refused(four, AskToJoin(Person(5, "eve"), (1, 2, 3, 4)), "table_full")
    busy = _table()
    busy.send(Propose(0, ProposalKind.SETTLE))
    _refused(busy, ASK, "proposal_open")
    awaiting = _table()
    awaiting.game = replace(awaiting.game, pending=(1,))  # a deal interrupted, its award not yet given
    _refused(awaiting, ASK, "invalid_proposal")
    over = _table()
    over.send(StopGame("closing"))
    _refused(over, ASK, "game_over")


def _six_spades_unwhisted(table: Table) -> None:
    """Deal 1: seat 1 (the spades) bids and names 6♠, both others pass the whist: he writes 2 to his pool."""
    table.act(MakeBid(1, Bid.parse("6s")))
    table.act(PassBid(2))
    table.act(PassBid(0))
    table.act(legal_actions(table.game.state)[0])  # the discard
    table.act(NameContract(1, Bid.parse("6s")))
    while table.game.status is TableStatus.PLAYING and table.game.state.phase is Phase.WHISTING:
        seat = table.game.to_act()
        assert seat is not None
        table.act(CallWhist(seat, WhistCall.PASS))


def test_nobody_joins_after_the_deal_that_ends_the_pulya() -> None:
    """All three accepted during the deal that completes the pools (29 + 2 of 30): the pulya ends there,
    the asking lapses, and a new one is refused."""
    table = _table()
    table.game = replace(table.game, sheet=_sheet((10, 10, 9), (0, 0, 0)))
    _all_agree(table)
    _six_spades_unwhisted(table)
    game = table.game
    assert game.status is TableStatus.FINISHED and game.state.seats == 3 and game.proposal is None
    assert game.outcome is not None and game.outcome.termination is Termination.POOL_COMPLETE
    _refused(table, ASK, "game_over")


def test_a_player_cannot_send_the_servers_join() -> None:
    with pytest.raises(TableRefused) as refused:
        player_action({"type": "join", "seat": 1}, 1)
    assert refused.value.code == "malformed_action"


def test_the_engine_takes_the_join_only_between_deals_left_of_the_last_dealer() -> None:
    """The recorded action itself (what a replay applies): refused mid-deal, in another seat, at four,
    and by a table whose conventions let no fourth join."""
    table = _table()
    state = table.game.state
    with pytest.raises(IllegalAction):
        apply(state, JoinFourth(1))  # deal 1 is in progress
    _play_out_the_deal(table)
    over = table.steps[-1].game.state  # deal 2 dealt at once: take the state of deal 1's end instead
    ended = replace(over, phase=Phase.DEAL_OVER, deal_number=1, dealer=0)
    with pytest.raises(IllegalAction):
        apply(ended, JoinFourth(2))  # not left of the last dealer
    with pytest.raises(IllegalAction):
        apply(
            replace(ended, conventions=conventions_from(overrides={"fourth_may_join": False})), JoinFourth(1)
        )
    joined, events = apply(ended, JoinFourth(1))
    assert joined.seats == 4 and joined.phase is Phase.AWAITING_DEAL and joined.next_dealer == 1
    assert [e.kind for e in events] == ["seat_joined"]
    with pytest.raises(IllegalAction):
        apply(replace(joined, phase=Phase.DEAL_OVER), JoinFourth(1))  # a table of four takes no fifth
