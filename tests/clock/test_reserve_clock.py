from __future__ import annotations

import json

import pytest

from app.clock import ClockError, ClockSettings, LagPolicy, ReserveClock, SeatTime, thought_before_crash
from app.engine.conventions import Conventions, conventions_from
from tests.clock.conftest import FakeTime

DEAL = 120_000
RESERVE = 600_000
BONUS = 300_000


def settings(reserve: int = RESERVE, lag: LagPolicy | None = None) -> ClockSettings:
    return ClockSettings(DEAL, reserve, BONUS, LagPolicy.none() if lag is None else lag)


def clock(seats: int = 3, reserve: int = RESERVE, lag: LagPolicy | None = None) -> ReserveClock:
    return ReserveClock.new(seats, settings(reserve, lag))


def test_settings_follow_the_seed_example_two_plus_ten() -> None:
    """§8.1: the seed's 2+10 is deal_time=120 s, reserve_time=600 s, misère bonus 300 s."""
    s = ClockSettings.from_conventions(Conventions())
    assert (s.deal_ms, s.reserve_ms, s.misere_bonus_ms) == (120_000, 600_000, 300_000)
    assert s.reserve_on
    assert not ClockSettings.from_conventions(conventions_from(overrides={"reserve_time": 0})).reserve_on


def test_time_is_charged_to_the_deal_time_first_then_to_the_reserve(fake_time: FakeTime) -> None:
    """§8.1: time is charged to the deal time first, then to the reserve."""
    c = clock().start(0, fake_time.now)
    fake_time.advance(100_000)
    assert c.time_left(0, fake_time.now) == SeatTime(20_000, RESERVE)
    c = c.stop(fake_time.now)
    assert c.seats[0] == SeatTime(20_000, RESERVE)
    c = c.start(0, fake_time.now)
    fake_time.advance(50_000)
    c = c.stop(fake_time.now)
    assert c.seats[0] == SeatTime(0, RESERVE - 30_000)
    assert c.seats[1] == SeatTime(DEAL, RESERVE)  # other seats' clocks did not run


def test_only_the_running_seat_is_charged(fake_time: FakeTime) -> None:
    """§8.1: a player's clock runs only while the table waits for that player."""
    c = clock().start(1, fake_time.now)
    fake_time.advance(5_000)
    c = c.switch(2, fake_time.now)
    fake_time.advance(7_000)
    c = c.switch(None, fake_time.now)
    fake_time.advance(60_000)  # nobody to wait for: nobody is charged
    assert [s.deal_ms for s in c.seats] == [DEAL, DEAL - 5_000, DEAL - 7_000]
    assert c.running is None and c.expires_at() is None


def test_exhaustion_is_exactly_at_deal_time_plus_reserve(fake_time: FakeTime) -> None:
    """§8.3: a seat runs out exactly when deal time and reserve are both spent."""
    start = fake_time.now
    c = clock().start(0, start)
    assert c.expires_at() == start + DEAL + RESERVE
    same, seat = c.expire(start + DEAL + RESERVE - 1)
    assert seat is None and same == c
    assert not c.exhausted(0, start + DEAL + RESERVE - 1)
    assert c.exhausted(0, start + DEAL + RESERVE)
    out, seat = c.expire(start + DEAL + RESERVE)
    assert seat == 0
    assert out.is_flagged(0) and out.seats[0].total_ms == 0 and out.running is None


def test_an_action_that_uses_the_last_millisecond_is_too_late(fake_time: FakeTime) -> None:
    """§8.3: an action charged up to the whole deal time plus reserve flags the seat."""
    c = clock().start(0, fake_time.now)
    in_time = c.stop(fake_time.now + DEAL + RESERVE - 1)
    assert not in_time.is_flagged(0) and in_time.seats[0] == SeatTime(0, 1)
    late = c.stop(fake_time.now + DEAL + RESERVE)
    assert late.is_flagged(0) and late.seats[0].total_ms == 0


def test_reserve_is_never_refilled_and_deal_time_resets_each_deal(fake_time: FakeTime) -> None:
    """§8.1: the deal time resets every deal; the reserve is one for the whole pulya."""
    c = clock().start(2, fake_time.now)
    c = c.stop(fake_time.advance(DEAL + 45_000))
    assert c.seats[2] == SeatTime(0, RESERVE - 45_000)
    c = c.new_deal()
    assert c.seats[2] == SeatTime(DEAL, RESERVE - 45_000)
    assert c.seats[0] == SeatTime(DEAL, RESERVE)
    with pytest.raises(ClockError):
        c.start(0, fake_time.now).new_deal()


def test_misere_bonus_is_added_to_every_seat_once_and_lasts_one_deal(fake_time: FakeTime) -> None:
    """§8.1: a misère deal adds misere_bonus to every player's deal time, for that deal."""
    c = clock(seats=4).start(1, fake_time.now)
    fake_time.advance(DEAL + 10_000)  # seat 1 is already 10 s into its reserve
    c = c.add_misere_bonus(fake_time.now)
    assert c.time_left(1, fake_time.now) == SeatTime(BONUS, RESERVE - 10_000)  # reserve not paid back
    assert [s.deal_ms for i, s in enumerate(c.seats) if i != 1] == [DEAL + BONUS] * 3
    assert c.add_misere_bonus(fake_time.advance(1_000)) == c  # once per deal
    assert c.expires_at() == fake_time.now - 1_000 + BONUS + RESERVE - 10_000
    c = c.stop(fake_time.now).new_deal()
    assert [s.deal_ms for s in c.seats] == [DEAL] * 4
    assert not c.misere_bonus_given


def test_seats_can_run_out_one_after_another_with_the_reserve_off(fake_time: FakeTime) -> None:
    """§8.2: reserve off: a seat out of deal time is flagged for the rest of the deal, and back next deal."""
    c = clock(reserve=0).start(0, fake_time.now)
    assert not c.settings.reserve_on
    c, seat = c.expire(fake_time.advance(DEAL))
    assert seat == 0 and c.is_flagged(0)
    c = c.start(1, fake_time.now)
    c, seat = c.expire(fake_time.advance(DEAL))
    assert seat == 1 and c.flagged == {0, 1}
    # A flagged seat's turn expires at once, so the server's robot acts for it.
    c = c.start(0, fake_time.advance(3))
    assert c.expires_at() == fake_time.now
    c, seat = c.expire(fake_time.now)
    assert seat == 0
    c = c.start(2, fake_time.now).stop(fake_time.advance(DEAL - 1))
    assert not c.is_flagged(2)
    c = c.new_deal()
    assert c.flagged == frozenset() and all(s == SeatTime(DEAL, 0) for s in c.seats)


def test_freeze_and_thaw_across_a_restart_do_not_charge_the_downtime(fake_time: FakeTime) -> None:
    """§8 / §7.7: time the server was down (or the table adjourned) is not charged."""
    c = clock().start(1, fake_time.now)
    c = c.freeze(fake_time.advance(30_000))
    stored = json.dumps(c.to_json())
    assert c.expires_at() is None
    with pytest.raises(ClockError):
        c.start(0, fake_time.now)
    # The new process has another monotonic time base, far from the old one.
    later = FakeTime(now=5)
    revived = ReserveClock.from_json(json.loads(stored)).resume_after_crash(later.now, 0)
    assert revived.running == 1 and not revived.frozen
    assert revived.time_left(1, later.advance(10_000)) == SeatTime(DEAL - 40_000, RESERVE)
    assert revived.expires_at() == 5 + DEAL - 30_000 + RESERVE


def test_after_a_crash_the_clock_resumes_from_its_last_checkpoint(fake_time: FakeTime) -> None:
    """§8: after a crash nothing after the last persisted charge is charged (the player's favour)."""
    c = clock().start(2, fake_time.now)
    c = c.checkpoint(fake_time.advance(20_000))
    assert c.seats[2].deal_ms == DEAL - 20_000 and c.running == 2
    stored = c.to_json()
    fake_time.advance(50_000)  # the server crashes here; these 50 s are never charged
    revived = ReserveClock.from_json(stored).resume_after_crash(77, 0)
    assert revived.time_left(2, 77 + 1_000).deal_ms == DEAL - 21_000


def test_json_round_trips_exactly(fake_time: FakeTime) -> None:
    """The clock serialises to JSON and back to an equal value."""
    c = clock(seats=4, lag=LagPolicy()).start(3, fake_time.now)
    c = c.add_misere_bonus(fake_time.advance(1_234)).freeze(fake_time.advance(10))
    assert ReserveClock.from_json(json.loads(json.dumps(c.to_json()))) == c
    bad = c.to_json() | {"version": 99}
    with pytest.raises(ClockError):
        ReserveClock.from_json(bad)


def test_misuse_is_rejected_with_a_clock_error(fake_time: FakeTime) -> None:
    c = clock().start(0, fake_time.now)
    with pytest.raises(ClockError, match="running"):
        c.start(1, fake_time.now)
    with pytest.raises(ClockError, match="no seat 3"):
        c.time_left(3, fake_time.now)
    with pytest.raises(ClockError):
        ReserveClock.new(5, settings())


def test_snapshot_shows_every_seat_as_of_now(fake_time: FakeTime) -> None:
    """§12: clock times are public; the snapshot charges the running seat virtually."""
    c = clock().start(0, fake_time.now)
    snap = c.snapshot(fake_time.advance(1_500))
    assert snap["running"] == 0
    assert snap["seats"][0] == {"deal_ms": DEAL - 1_500, "reserve_ms": RESERVE, "out": False}


def test_after_a_crash_the_proven_thinking_is_charged_and_the_downtime_is_not(fake_time: FakeTime) -> None:
    """§8.1: after a crash the seat on move is charged what it provably thought (turn start to the last
    heartbeat), and runs on from the restart; a frozen clock just thaws."""
    c = clock().start(2, fake_time.now)
    stored = c.to_json()
    fake_time.advance(50_000)  # the server crashes somewhere in here
    revived = ReserveClock.from_json(stored).resume_after_crash(77, 3_000)
    assert revived.running == 2
    assert revived.time_left(2, 77).deal_ms == DEAL - 3_000
    assert revived.time_left(2, 77 + 1_000).deal_ms == DEAL - 4_000
    assert ReserveClock.from_json(stored).resume_after_crash(77, -5).time_left(2, 77).deal_ms == DEAL
    frozen = c.freeze(fake_time.now)
    assert frozen.resume_after_crash(77, 3_000) == frozen.thaw(77)
    idle = clock()
    assert idle.resume_after_crash(77, 3_000) is idle


def test_a_crash_charges_the_thinking_up_to_the_last_heartbeat_only() -> None:
    """§8.1: from the turn's start to the dead process's last beat; nothing when it never beat after it."""
    assert thought_before_crash(10_000, 13_500) == 3_500
    assert thought_before_crash(10_000, 9_000) == 0  # the last beat came before the turn started
    assert thought_before_crash(10_000, None) == 0  # no heartbeat of that process is known
