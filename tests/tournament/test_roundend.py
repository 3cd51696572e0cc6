"""The end of a round (RULES.md §9.3): the announcement, the 4 more deals, stragglers, downtime."""

from __future__ import annotations

import random

import pytest

from app.engine.conventions import ConventionError, Conventions, conventions_from
from app.engine.scoring import ScoreSheet
from app.engine.state import Phase
from app.tournament.draw import DrawnTable, RoundDraw
from app.tournament.roundend import EndReason, RoundClock, RoundEndError, TableEnd, dealer_of
from app.tournament.seating import is_tournament_table, tournament_conventions
from app.tournament.simulate import play_round

MINUTE = 60_000
CONVENTIONS = tournament_conventions(Conventions())


def one_round(
    seat_counts: list[int], *, length_min: int = 20, deaf: frozenset[int] = frozenset(), seed: int = 5
):
    tables, at = [], 0
    for number, seats in enumerate(seat_counts, start=1):
        tables.append(DrawnTable(number, tuple(f"p{at + i}" for i in range(seats)), number % seats))
        at += seats
    clock = RoundClock(0, length_min * MINUTE, 10 * MINUTE)
    ended = play_round(
        RoundDraw(1, seed, tuple(tables)), CONVENTIONS, clock, random.Random(seed), "random", deaf=deaf
    )
    return clock, ended


@pytest.mark.parametrize("seats", [3, 4])
def test_after_the_announcement_exactly_four_more_deals_are_played(seats: int) -> None:
    clock, ended = one_round([seats])
    [(table, reason)] = ended
    # the deal in progress at the warning: the deals shuffled before it
    in_progress = sum(t < clock.warning_at for t in table.deals_started_ms)
    assert in_progress >= 1
    assert table.end.last_deal == in_progress + 4
    assert table.state.deal_number == in_progress + 4 and table.state.phase is Phase.DEAL_OVER
    assert reason is EndReason.LAST_DEAL
    assert table.end.last_dealer == dealer_of(table.end.first_dealer, seats, in_progress + 4)
    assert table.end.last_dealer == table.state.dealer  # the marked seat dealt the last deal


def test_the_pools_do_not_end_a_tournament_table() -> None:
    """§7.1: the round ends the table; a sheet whose pools passed n·S goes on."""
    assert is_tournament_table(CONVENTIONS) and not is_tournament_table(Conventions())
    with pytest.raises(ConventionError):
        conventions_from(
            "fspr-leningrad", {"tournament": True}
        )  # a room cannot make its tables tournament ones
    sheet = ScoreSheet.new(3, CONVENTIONS)
    sheet = ScoreSheet(3, CONVENTIONS, (30, 30, 30), sheet.mountains, sheet.whists)
    assert not sheet.finished
    assert ScoreSheet(3, Conventions(), (30, 30, 30), sheet.mountains, sheet.whists).finished


def test_a_straggler_ends_after_its_deal_in_progress_once_every_other_table_has_ended() -> None:
    _clock, ended = one_round([4, 3, 3], deaf=frozenset({2}))
    order = [t.number for t, _ in ended]
    assert order[-1] == 2  # the straggler ends last
    straggler, reason = ended[-1]
    assert reason is EndReason.STRAGGLER and straggler.end.missed and straggler.end.last_dealer is None
    others_done = max(t.time_ms for t, _ in ended[:-1])
    # its last deal was the one in progress when the others had all ended: it started before that
    assert straggler.deals_started_ms[-1] <= others_done
    assert straggler.state.phase is Phase.DEAL_OVER


def test_the_announcement_and_the_marks_are_refused_twice() -> None:
    end = TableEnd(4, 2).announce(3)
    assert end.last_deal == 7 and end.last_dealer == dealer_of(2, 4, 7) == 0
    with pytest.raises(RoundEndError):
        end.announce(4)
    assert end.ends_after_deal(6, others_ended=True) is None
    assert end.ends_after_deal(7, others_ended=False) is EndReason.LAST_DEAL
    deaf = TableEnd(3, 0).miss()
    assert deaf.ends_between_deals(others_ended=False) is None
    assert deaf.ends_between_deals(others_ended=True) is EndReason.STRAGGLER
    assert TableEnd.from_json(end.to_json()) == end


def test_downtime_is_added_to_the_round_after_a_restart() -> None:
    clock = RoundClock(started_ms=1_000, length_ms=30 * MINUTE, warning_ms=10 * MINUTE)
    assert clock.warning_at == 1_000 + 20 * MINUTE
    restarted = clock.after_outage(last_alive_ms=5 * MINUTE, now_ms=8 * MINUTE)
    assert restarted.downtime_ms == 3 * MINUTE
    assert restarted.ends_at == clock.ends_at + 3 * MINUTE
    assert restarted.warning_at == clock.warning_at + 3 * MINUTE
    # an outage that began before the start counts only from the start; one after the end adds nothing
    assert RoundClock(10_000, MINUTE, 0).after_outage(0, 20_000).downtime_ms == 10_000
    assert clock.after_outage(clock.ends_at + 1, clock.ends_at + MINUTE).downtime_ms == 0
    assert RoundClock.from_json(restarted.to_json()) == restarted
