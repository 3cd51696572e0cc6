"""RULES.md §7.7 through the pure table step: proposals (settle now, adjourn, substitute) accepted,
declined, withdrawn and lapsing; an adjournment's frozen clocks, "ready" and `adjourn_limit`; a substitute
inheriting the seat's records and reserve; operators' decisions without consents. Fixed decks (the first
one: seat 1 declares 6♠ and takes 6 against two whists), a fake time source, three seats, seat 0 deals."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.clock import ReserveClock
from app.engine import PassBid, Phase, legal_actions
from app.engine.scoring import ScoreSheet
from app.table import (
    AdjournExpiry,
    Answer,
    Decree,
    Game,
    Person,
    ProposalKind,
    Propose,
    Ready,
    SeatAction,
    StopGame,
    SubstituteAnswer,
    TableRefused,
    TableStatus,
    Termination,
    Withdraw,
)
from app.tournament import tournament_conventions
from tests.table.helpers import Table

ALICE, BOB, CAROL, DAN = Person(1, "alice"), Person(2, "bob"), Person(3, "carol"), Person(4, "dan")
HOLDERS = (ALICE, BOB, CAROL)
SEATED = (1, 2, 3)
DAY_MS = 24 * 3600 * 1000


def _table() -> Table:
    return Table.start(seats=3, robot=False, pool_size=10, deal_time=60, reserve_time=300)


def _play_out_the_deal(table: Table) -> None:
    """Everyone passes the auction: an all-pass deal played out card by card (first legal card)."""
    deal = table.game.state.deal_number
    while table.game.state.deal_number == deal and table.game.status is TableStatus.PLAYING:
        seat = table.game.to_act()
        assert seat is not None
        table.act(legal_actions(table.game.state)[0], after_ms=100)


def _refused(table: Table, command: object, code: str) -> None:
    before = table.game
    with pytest.raises(TableRefused) as refused:
        table.send(command)  # type: ignore[arg-type]
    assert refused.value.code == code and table.game is before


def test_settle_now_accepted_by_all_takes_effect_when_the_deal_ends() -> None:
    table = _table()
    table.act(PassBid(1), after_ms=500)
    running = table.game.clock
    made = table.send(Propose(1, ProposalKind.SETTLE), after_ms=2_000)
    assert [e.kind for e in made.events] == ["proposal_made"] and made.game.proposal is not None
    assert made.game.clock == running  # answering is not a move: no clock moved, none charged
    table.send(Answer(2, True))
    agreed = table.send(Answer(0, True))
    assert "proposal_agreed" in [e.kind for e in agreed.events]
    assert agreed.game.status is TableStatus.PLAYING  # the deal in progress is played out
    _play_out_the_deal(table)
    game = table.game
    assert game.status is TableStatus.FINISHED and game.outcome is not None
    assert game.outcome.termination is Termination.AGREED and game.outcome.settlement_json()["sum"] == 0
    assert game.state.deal_number == 1 and game.sheet.deals == 1  # no next deal was dealt


def test_a_declined_proposal_ends_and_a_withdrawn_one_too_and_an_agreed_one_cannot_be_withdrawn() -> None:
    table = _table()
    table.send(Propose(1, ProposalKind.SETTLE))
    _refused(table, Propose(2, ProposalKind.ADJOURN), "proposal_open")  # one open proposal at a time
    declined = table.send(Answer(2, False))
    assert declined.game.proposal is None and [e.kind for e in declined.events] == ["proposal_declined"]
    table.send(Propose(2, ProposalKind.ADJOURN))
    _refused(table, Withdraw(1), "no_proposal")  # only the proposer withdraws
    assert table.send(Withdraw(2)).game.proposal is None
    table.send(Propose(0, ProposalKind.SETTLE))
    table.send(Answer(1, True))
    table.send(Answer(2, True))
    _refused(table, Withdraw(0), "proposal_agreed")
    _refused(table, Answer(1, True), "no_proposal")


def test_an_open_proposal_lapses_when_the_next_deal_starts() -> None:
    table = _table()
    table.send(Propose(1, ProposalKind.ADJOURN))
    table.send(Answer(2, True))
    for seat in (1, 2, 0):
        table.act(PassBid(seat))
    _play_out_the_deal(table)
    assert table.game.state.deal_number == 2 and table.game.proposal is None
    lapsed = [e for s in table.steps[-3:] for e in s.events if e.kind == "proposal_lapsed"]
    assert len(lapsed) == 1 and table.game.status is TableStatus.PLAYING


def test_a_tournament_table_takes_no_proposals_from_players() -> None:
    table = _table()
    _refused(table, Propose(1, ProposalKind.SETTLE, tournament=True), "tournament_table")
    # The table's own mark is enough: a tournament seats its tables with it (RULES §9).
    marked = _table()
    marked.game = replace(
        marked.game,
        state=replace(marked.game.state, conventions=tournament_conventions(marked.game.state.conventions)),
    )
    _refused(marked, Propose(1, ProposalKind.ADJOURN), "tournament_table")


def _adjourned(table: Table, wall_ms: int = 1_000) -> Game:
    table.send(Propose(1, ProposalKind.ADJOURN))
    table.send(Answer(2, True))
    table.send(Answer(0, True))
    table.wall_ms = wall_ms
    _play_out_the_deal(table)
    return table.game


def test_adjourn_freezes_every_clock_between_deals_until_all_say_ready() -> None:
    table = _table()
    game = _adjourned(table, wall_ms=5_000)
    assert game.status is TableStatus.ADJOURNED and game.adjourned is not None
    assert game.adjourned.since_wall_ms == 5_000 and game.clock.frozen and game.clock.running is None
    assert game.state.phase is Phase.DEAL_OVER and game.to_act() is None and game.legal(1) == []
    frozen = game.clock.snapshot(table.now)
    table.now += 3 * DAY_MS  # days pass: nobody's time moves
    assert table.game.clock.snapshot(table.now) == frozen
    _refused(table, SeatAction(1, PassBid(1)), "adjourned")
    _refused(table, Propose(2, ProposalKind.ADJOURN), "adjourned")
    table.send(Ready(1))
    table.send(Ready(2))
    assert table.game.status is TableStatus.ADJOURNED and table.game.clock.frozen
    resumed = table.send(Ready(0))
    assert [e.kind for e in resumed.events][:2] == ["ready", "resumed"]
    game = resumed.game
    assert game.status is TableStatus.PLAYING and game.adjourned is None and not game.clock.frozen
    assert game.state.deal_number == 2 and game.state.dealer == 1  # the next dealer deals, as it was
    assert [(s.reserve_ms) for s in game.clock.seats] == [(s["reserve_ms"]) for s in frozen["seats"]]


def test_an_adjourned_game_reads_back_the_same_and_its_clocks_stay_frozen() -> None:
    """A reload: the stored proposal/adjournment and clock JSON rebuild the same game (the server stores
    `Game.life_json` and the clock's JSON)."""
    from app.table.proposals import Adjournment

    table = _table()
    game = _adjourned(table)
    life = game.life_json()
    assert life is not None and life["adjourned"] is not None
    clock = ReserveClock.from_json(game.clock.to_json())
    again = replace(game, clock=clock, adjourned=Adjournment.from_json(life["adjourned"]), proposal=None)
    assert again == game
    assert clock.frozen and clock.snapshot(10**12) == game.clock.snapshot(0)


def test_an_adjournment_past_its_limit_is_settled_as_an_early_end() -> None:
    table = Table.start(seats=3, robot=False, adjourn_limit=3600)
    _adjourned(table, wall_ms=1_000)
    table.wall_ms = 1_000 + 3_600_000 - 1
    assert not table.send(AdjournExpiry()).changed
    table.wall_ms = 1_000 + 3_600_000
    ended = table.send(AdjournExpiry()).game
    assert ended.status is TableStatus.FINISHED and ended.outcome is not None
    assert ended.outcome.termination is Termination.ADJOURN_LIMIT and ended.adjourned is None


def test_settle_agreed_while_adjourned_takes_effect_at_once() -> None:
    table = _table()
    _adjourned(table)
    table.send(Propose(0, ProposalKind.SETTLE))
    table.send(Answer(1, True))
    ended = table.send(Answer(2, True)).game
    assert ended.status is TableStatus.FINISHED and ended.outcome is not None
    assert ended.outcome.termination is Termination.AGREED


def test_a_substitute_holds_the_seat_from_the_next_deal_with_its_records_and_reserve() -> None:
    table = _table()
    table.act(PassBid(1), after_ms=40_000)
    table.act(PassBid(2), after_ms=100)
    proposal = Propose(1, ProposalKind.SUBSTITUTE, holder=BOB, substitute=DAN, seated=SEATED)
    _refused(table, replace(proposal, substitute=CAROL), "invalid_proposal")  # seated at this table
    table.send(proposal)
    table.send(Answer(2, True))
    table.send(Answer(0, True))
    assert table.game.proposal is not None and not table.game.proposal.agreed(3)  # dan has not accepted
    _refused(table, SubstituteAnswer(5, True), "no_proposal")
    table.send(SubstituteAnswer(DAN.user_id, True))
    before_sheet: ScoreSheet = table.game.sheet
    table.act(PassBid(0))
    _play_out_the_deal(table)
    step = next(s for s in table.steps if s.substituted)
    (change,) = step.substituted
    assert (change.seat, change.holder, change.substitute, change.after_deal) == (1, BOB, DAN, 1)
    sheet = table.game.sheet
    assert sheet.history[-1].kind == "substitute"
    assert sheet.history[-1].summary == "seat 1: bob → dan after deal 1"
    assert sheet.deals == 1 and sheet.pools == step.game.sheet.pools and before_sheet.deals == 0
    # The seat's reserve as bob left it: 40 s of deal time spent within 60 s, none of the reserve.
    assert table.game.clock.seats[1].reserve_ms == 300_000 and table.game.state.deal_number == 2


def test_an_operator_adjourns_resumes_substitutes_and_settles_without_consents() -> None:
    table = _table()
    _refused(table, Decree(ProposalKind.ADJOURN, "  "), "invalid_proposal")  # a reason is required
    table.send(Decree(ProposalKind.ADJOURN, "the club closes for the night"))
    table.wall_ms = 7
    _play_out_the_deal(table)
    assert table.game.status is TableStatus.ADJOURNED
    table.send(Decree(ProposalKind.SUBSTITUTE, "carol is gone", seat=2, holder=CAROL, substitute=DAN,
                      seated=SEATED))  # fmt: skip
    assert table.steps[-1].substituted[0].substitute == DAN  # while adjourned: at once, from the next deal
    resumed = table.send(Decree(ProposalKind.ADJOURN, "back", resume=True))
    assert resumed.game.status is TableStatus.PLAYING and resumed.game.state.deal_number == 2
    table.send(Decree(ProposalKind.SETTLE, "the club closes"))
    _play_out_the_deal(table)
    ended = table.game
    assert ended.outcome is not None and ended.outcome.termination is Termination.INTERRUPTED
    assert ended.outcome.note == "the club closes" and ended.state.deal_number == 2


def test_an_operators_stop_ends_an_adjourned_game_and_every_proposal_lapses() -> None:
    table = _table()
    _adjourned(table)
    table.send(Propose(1, ProposalKind.SETTLE))
    stopped = table.send(StopGame("closed"))
    assert stopped.game.status is TableStatus.FINISHED and stopped.game.proposal is None
    assert stopped.game.adjourned is None and "proposal_lapsed" in [e.kind for e in stopped.events]


def test_a_deal_with_a_reserve_on_timeout_keeps_its_penalty_though_all_agreed_to_settle() -> None:
    """§7.7 last point: seat 2 runs out (reserve on) while a settle proposal is agreed: the deal's end is the
    timeout's end (§8.3), its §5.8 penalty written, and the proposal lapses with it."""
    from app.engine import Bid, CallWhist, MakeBid, NameContract, WhistCall
    from tests.engine.helpers import discard_first_two

    table = Table.start(seats=3, deal_time=1, reserve_time=1)
    table.act(MakeBid(1, Bid.parse("6s")))
    table.act(PassBid(2))
    table.act(PassBid(0))
    table.act(discard_first_two(table.game.state, 1))
    table.act(NameContract(1, Bid.parse("6s")))
    table.expire()  # seat 2's whist: made for it
    table.send(Propose(0, ProposalKind.SETTLE))
    table.send(Answer(1, True))
    table.send(Answer(2, True))
    assert table.game.proposal is not None and table.game.proposal.agreed(3)
    if table.game.to_act() == 0 and table.game.state.phase is Phase.WHISTING:
        table.act(CallWhist(0, WhistCall.WHIST))
    _play_out_the_deal(table)
    game = table.game
    assert game.outcome is not None and game.outcome.termination is Termination.TIMEOUT
    assert [line.kind for line in game.sheet.history][-1] == "timeout" and game.proposal is None
