from __future__ import annotations

import pytest

from app.clock import ClockSettings, LagPolicy, ReserveClock, SeatTime
from tests.clock.conftest import FakeTime

DEAL = 120_000
RESERVE = 600_000
POLICY = LagPolicy(per_action_cap_ms=500, quota_initial_ms=2000, quota_gain_ms=100, quota_max_ms=2000)


def clock() -> ReserveClock:
    return ReserveClock.new(3, ClockSettings(DEAL, RESERVE, 300_000, POLICY))


def test_measured_lag_is_credited_back_up_to_the_per_action_cap(fake_time: FakeTime) -> None:
    """Issue 5 §3: a bounded grace per action; the credit comes out of the quota, which refills slowly."""
    c = clock().start(0, fake_time.now).stop(fake_time.advance(10_000), lag_ms=300)
    assert c.seats[0] == SeatTime(DEAL - 9_700, RESERVE, 2000 - 300 + 100)
    c = c.start(0, fake_time.now).stop(fake_time.advance(10_000), lag_ms=5_000)  # claims far too much
    assert c.seats[0].deal_ms == DEAL - 9_700 - 9_500
    assert c.seats[0].lag_quota_ms == 1800 - 500 + 100


def test_the_quota_bounds_the_total_credit(fake_time: FakeTime) -> None:
    """Issue 5 §3: a seat lagging on every action gets back only the quota plus 100 ms per action."""
    c = clock()
    credited = 0
    for _ in range(40):
        before = c.seats[0].total_ms
        c = c.start(0, fake_time.now).stop(fake_time.advance(1_000), lag_ms=10_000)
        credited += 1_000 - (before - c.seats[0].total_ms)
    assert credited == 2000 + 39 * 100
    assert c.seats[0].lag_quota_ms == 100


def test_credit_never_exceeds_the_elapsed_time(fake_time: FakeTime) -> None:
    """Lag credit only forgives time used; it never adds time."""
    c = clock().start(1, fake_time.now).stop(fake_time.advance(200), lag_ms=500)
    assert c.seats[1].deal_ms == DEAL
    assert c.seats[1].lag_quota_ms == 1900  # only the 200 ms actually used were drawn, then +100


def test_the_flag_waits_for_the_grace_so_an_action_in_flight_is_not_lost(fake_time: FakeTime) -> None:
    """Issue 5 §3: the timer is armed at exhaustion plus min(cap, quota)."""
    start = fake_time.now
    c = clock().start(2, start)
    assert c.expires_at() == start + DEAL + RESERVE + 500
    _, seat = c.expire(start + DEAL + RESERVE + 499)
    assert seat is None
    arrived = c.stop(start + DEAL + RESERVE + 400, lag_ms=450)  # sent in time, arrived late
    assert not arrived.is_flagged(2) and arrived.seats[2].total_ms == 50
    too_late = c.stop(start + DEAL + RESERVE + 400, lag_ms=100)  # the network does not explain it
    assert too_late.is_flagged(2)


@pytest.mark.parametrize("field", ["per_action_cap_ms", "quota_initial_ms", "quota_gain_ms", "quota_max_ms"])
def test_negative_lag_bounds_are_rejected(field: str) -> None:
    values = {"per_action_cap_ms": 1, "quota_initial_ms": 1, "quota_gain_ms": 1, "quota_max_ms": 1}
    with pytest.raises(ValueError, match=field):
        LagPolicy(**(values | {field: -1}))
