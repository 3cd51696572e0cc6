"""Hypothesis properties of `ReserveClock` (RULES.md §8.1–§8.3), driven by random operation sequences."""

from __future__ import annotations

import json
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from app.clock import ClockError, ClockSettings, LagPolicy, ReserveClock

DEAL = 10_000
RESERVE = 30_000
BONUS = 5_000

ops = st.lists(
    st.one_of(
        st.tuples(st.just("wait"), st.integers(0, 25_000)),
        st.tuples(st.just("switch"), st.integers(0, 3), st.integers(0, 2_000)),
        st.tuples(st.just("stop"), st.integers(0, 2_000)),
        st.tuples(st.just("expire")),
        st.tuples(st.just("bonus")),
        st.tuples(st.just("new_deal")),
        st.tuples(st.just("freeze")),
        st.tuples(st.just("thaw")),
        st.tuples(st.just("checkpoint")),
        # A restart on another time base, charging the running seat what the crash proves it thought.
        st.tuples(st.just("restart"), st.integers(-(10**9), 10**9), st.integers(0, 10_000)),
    ),
    max_size=60,
)


# One operation: its name, then its arguments in ms or a seat number (as the strategies draw them).
Op = tuple[str | int, ...]


@dataclass
class Run:
    clock: ReserveClock
    now: int = 0


def step(run: Run, op: Op) -> None:
    c, now = run.clock, run.now
    kind = op[0]
    try:
        if kind == "wait":
            run.now += int(op[1])
        elif kind == "switch":
            run.clock = c.switch(int(op[1]) % len(c.seats), now, lag_ms=int(op[2]))
        elif kind == "stop":
            run.clock = c.stop(now, lag_ms=int(op[1]))
        elif kind == "expire":
            run.clock = c.expire(now)[0]
        elif kind == "bonus":
            run.clock = c.add_misere_bonus(now)
        elif kind == "new_deal":
            run.clock = c.new_deal()
        elif kind == "freeze":
            run.clock = c.freeze(now)
        elif kind == "thaw":
            run.clock = c.thaw(now)
        elif kind == "checkpoint":
            run.clock = c.checkpoint(now)
        elif kind == "restart":
            run.now = int(op[1])
            run.clock = ReserveClock.from_json(json.loads(json.dumps(c.to_json()))).resume_after_crash(
                run.now, int(op[2])
            )
    except ClockError:
        pass  # a rejected misuse must leave the clock unchanged: run.clock was not reassigned


def base(seats: int, lag: bool) -> ReserveClock:
    policy = LagPolicy() if lag else LagPolicy.none()
    return ReserveClock.new(seats, ClockSettings(DEAL, RESERVE, BONUS, policy))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([3, 4]), st.booleans(), ops)
def test_time_left_only_grows_by_the_misere_bonus_or_the_deal_reset(
    seats: int, lag: bool, seq: list[Op]
) -> None:
    """§8.1: time left never increases except by the misère bonus and the per-deal reset; the reserve never
    increases at all."""
    run = Run(base(seats, lag))
    for op in seq:
        before = [run.clock.time_left(i, run.now) for i in range(seats)]
        stored = list(run.clock.seats)  # as last charged: the lag credit is measured against this
        if op[0] == "restart":
            # A crash loses the uncharged time since the last persisted charge (documented): compare
            # with what was persisted.
            before = list(run.clock.seats)
        step(run, op)
        after = [run.clock.time_left(i, run.now) for i in range(seats)]
        for b, a, s in zip(before, after, stored, strict=True):
            assert a.reserve_ms <= s.reserve_ms
            if op[0] == "bonus" and a.deal_ms > b.deal_ms:
                assert a.deal_ms - b.deal_ms == BONUS
            elif op[0] == "new_deal" and a.deal_ms > b.deal_ms:
                assert a.deal_ms == DEAL
            elif op[0] in ("stop", "switch") and lag:
                # the lag credit is forgiveness of time just used, bounded by the per-action cap
                assert a.total_ms <= b.total_ms + LagPolicy().per_action_cap_ms
                assert a.total_ms <= s.total_ms
            else:
                assert a.total_ms <= b.total_ms
                assert a.reserve_ms <= b.reserve_ms
            assert a.deal_ms >= 0 and a.reserve_ms >= 0


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([3, 4]), st.booleans(), ops)
def test_serialisation_round_trips_in_every_reachable_state(seats: int, lag: bool, seq: list[Op]) -> None:
    """The clock's JSON form is lossless in every state reachable by the server."""
    run = Run(base(seats, lag))
    for op in seq:
        step(run, op)
        assert ReserveClock.from_json(json.loads(json.dumps(run.clock.to_json()))) == run.clock


one_seat_ops = st.lists(
    st.one_of(
        st.tuples(st.just("think"), st.integers(0, 20_000)),  # seat 0 thinks, then acts (if still in)
        st.tuples(st.just("idle"), st.integers(0, 20_000)),  # another seat thinks
        st.tuples(st.just("new_deal")),
        st.tuples(st.just("bonus")),
    ),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(one_seat_ops)
def test_a_timeout_fires_iff_used_time_reaches_deal_time_plus_reserve(seq: list[Op]) -> None:
    """§8.1/§8.3: the seat runs out exactly when the time it used in this deal reaches its deal time (plus a
    misère bonus) plus the reserve it had left at the start of the deal; an independent model checks it."""
    clock = base(3, lag=False)
    now = 0
    reserve_left = RESERVE  # model: reserve at the start of the deal
    used = 0  # model: seat 0's time used this deal
    deal_budget = DEAL
    bonus_given = False
    for op in seq:
        if op[0] == "think":
            think = int(op[1])
            clock = clock.start(0, now)
            deadline = clock.expires_at()
            now += think
            if clock.is_flagged(0):
                assert deadline == now - think
                clock = clock.expire(now)[0]
                continue
            assert deadline == now - think + (deal_budget + reserve_left - used)
            expired, seat = clock.expire(now)
            used += think
            fires = used >= deal_budget + reserve_left
            assert (seat == 0) == fires
            assert clock.stop(now).is_flagged(0) == fires
            clock = expired if fires else clock.stop(now)
            used = min(used, deal_budget + reserve_left)
        elif op[0] == "idle":
            clock = clock.start(1, now)
            now += int(op[1])
            clock = clock.expire(now)[0].stop(now)
        elif op[0] == "bonus":
            if not bonus_given and not clock.is_flagged(0):
                spent = max(0, used - deal_budget)  # reserve already spent is not paid back
                reserve_left, used = reserve_left - spent, used - spent
                deal_budget += BONUS
            bonus_given = True
            clock = clock.add_misere_bonus(now)
        else:
            reserve_left -= max(0, used - deal_budget)
            used, deal_budget, bonus_given = 0, DEAL, False
            clock = clock.new_deal()
        assert clock.seats[0].total_ms == deal_budget + reserve_left - used
