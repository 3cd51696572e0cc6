"""`ReserveClock`: the clocks of one table under the "reserve time" convention (RULES.md §8, seed 000).

Each seat has a deal time («время на сдачу», reset every deal) and a reserve («резервное время», one for the
whole pulya, never refilled). While the table waits for a seat, that seat's clock runs; time is charged to
the deal time first, then to the reserve (§8.1). A misère deal adds ``misere_bonus`` to every seat's deal
time, once (§8.1). A seat whose deal time and reserve are both spent has *run out* (is flagged): with the
reserve on the game ends after the deal is completed automatically (§8.3); with ``reserve_time = 0`` the
robot acts for that seat until the deal ends and the seat is back in control next deal (§8.2).

The clock is a pure, immutable value. It never reads a clock: every method that needs the time takes
``now``, an integer number of milliseconds on one monotonic time base chosen by the caller (the server's
is `app.server.timebase.mono_ms`: monotonic, less the time the process stood still in a full collection).
All durations are integer milliseconds, so charging is exact and JSON round-trips losslessly; conventions
in seconds are converted once by `ClockSettings`.

Restarts. The instants stored in a clock (``since``) belong to the time base of the process that wrote
them, so a clock read back after a restart is resumed with `resume_after_crash` at the restart instant:

- after a graceful shutdown the server froze every clock (`freeze`): the running seat was charged up to
  the freeze and thaws at the restart instant — the downtime is not charged to anybody;
- after a crash the clock was not frozen: the running seat is charged the thinking the server can prove
  (`thought_before_crash`: from the turn's start, stored on the wall clock with each step, to the dead
  process's last heartbeat) and runs on from the restart instant; the rest is charged to nobody.

The same `freeze`/`thaw` pair serves an adjourned pulya (§7.7: "clocks frozen").
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from app.clock.lag import LagPolicy
from app.engine.conventions import Conventions

CLOCK_JSON_VERSION = 1


class ClockError(Exception):
    """A misuse of the clock (starting a second seat, acting while frozen, an unknown seat)."""


@dataclass(frozen=True, slots=True)
class ClockSettings:
    """The table's clock conventions (§8.1) in milliseconds, plus the lag allowance."""

    deal_ms: int
    reserve_ms: int
    misere_bonus_ms: int
    lag: LagPolicy = field(default_factory=LagPolicy)

    def __post_init__(self) -> None:
        if self.deal_ms <= 0 or self.reserve_ms < 0 or self.misere_bonus_ms < 0:
            raise ValueError("clock settings: deal time must be positive, reserve and bonus not negative")

    @property
    def reserve_on(self) -> bool:
        """Reserve on: running out ends the game (§8.3); off (0): the robot finishes the deal (§8.2)."""
        return self.reserve_ms > 0

    @staticmethod
    def from_conventions(conventions: Conventions, lag: LagPolicy | None = None) -> ClockSettings:
        return ClockSettings(
            deal_ms=conventions.deal_ms,
            reserve_ms=conventions.reserve_ms,
            misere_bonus_ms=conventions.misere_bonus_ms,
            lag=LagPolicy() if lag is None else lag,
        )


@dataclass(frozen=True, slots=True)
class SeatTime:
    """One seat's time left, in milliseconds, and its lag quota."""

    deal_ms: int
    reserve_ms: int
    lag_quota_ms: int = 0

    @property
    def total_ms(self) -> int:
        return self.deal_ms + self.reserve_ms

    def charged(self, ms: int) -> SeatTime:
        """This seat after ``ms`` more of its time was used: deal time first, then the reserve (§8.1)."""
        from_deal = min(ms, self.deal_ms)
        from_reserve = min(ms - from_deal, self.reserve_ms)
        return SeatTime(self.deal_ms - from_deal, self.reserve_ms - from_reserve, self.lag_quota_ms)


@dataclass(frozen=True, slots=True)
class ReserveClock:
    """The clocks of all seats of one table; build one with `ReserveClock.new`.

    ``running``/``since``: the seat the table waits for and the instant its clock was last charged up to.
    ``frozen``: the table is adjourned or the server is shutting down; ``resume`` is the seat to restart.
    ``flagged``: seats that have run out during this deal (time left 0).
    """

    settings: ClockSettings
    seats: tuple[SeatTime, ...]
    running: int | None = None
    since: int | None = None
    frozen: bool = False
    resume: int | None = None
    flagged: frozenset[int] = frozenset()
    misere_bonus_given: bool = False

    @staticmethod
    def new(seats: int, settings: ClockSettings) -> ReserveClock:
        if seats not in (3, 4):
            raise ClockError(f"a table has 3 or 4 seats, not {seats}")
        fresh = SeatTime(settings.deal_ms, settings.reserve_ms, settings.lag.quota_initial_ms)
        return ReserveClock(settings, (fresh,) * seats)

    # ---- reading -------------------------------------------------------------------------------------

    def time_left(self, seat: int, now: int) -> SeatTime:
        """The seat's deal time and reserve as of ``now`` (the running seat charged up to ``now``)."""
        self._check_seat(seat)
        current = self.seats[seat]
        if seat == self.running and self.since is not None:
            return current.charged(max(0, now - self.since))
        return current

    def is_flagged(self, seat: int) -> bool:
        """The seat has run out in this deal (the server acts for it until the deal ends)."""
        return seat in self.flagged

    def exhausted(self, seat: int, now: int) -> bool:
        """Deal time and reserve both spent as of ``now`` (before any lag grace)."""
        return seat in self.flagged or self.time_left(seat, now).total_ms <= 0

    def expires_at(self) -> int | None:
        """The instant the server must call `expire` unless the running seat acts first; None if idle.

        That is the running seat's exhaustion plus its lag grace (`LagPolicy.grace`); for a flagged seat
        it is the instant it was started, so the robot acts at once.
        """
        if self.running is None or self.since is None:
            return None
        if self.running in self.flagged:
            return self.since
        current = self.seats[self.running]
        return self.since + current.total_ms + self.settings.lag.grace(current.lag_quota_ms)

    # ---- running the clocks --------------------------------------------------------------------------

    def start(self, seat: int, now: int) -> ReserveClock:
        """The table now waits for ``seat``; its clock runs from ``now``."""
        self._check_seat(seat)
        self._check_not_frozen("start")
        if self.running is not None:
            raise ClockError(f"seat {self.running}'s clock is running; stop it before starting seat {seat}")
        return self._run(self.seats, seat, now, self.flagged)

    def stop(self, now: int, lag_ms: int = 0) -> ReserveClock:
        """The running seat acted at ``now``: charge it, crediting back up to ``lag_ms`` of measured lag.

        ``lag_ms`` must be lag the server measured itself; it is bounded by the `LagPolicy`. If the charge
        uses up the seat's time the seat is flagged: the server must then treat its action as too late and
        run the timeout procedure instead. Stopping an idle clock changes nothing.
        """
        self._check_not_frozen("stop")
        seat, since = self.running, self.since
        if seat is None or since is None:
            return self
        if seat in self.flagged:
            return self._run(self.seats, None, None, self.flagged)
        elapsed = max(0, now - since)  # a caller's time base never runs backwards; never charge < 0
        current = self.seats[seat]
        credit = self.settings.lag.credit(lag_ms, current.lag_quota_ms, elapsed)
        charged = current.charged(elapsed - credit)
        quota = self.settings.lag.quota_after(current.lag_quota_ms, credit)
        charged = SeatTime(charged.deal_ms, charged.reserve_ms, quota)
        flagged = self.flagged | {seat} if charged.total_ms <= 0 else self.flagged
        return self._run(self._with(seat, charged), None, None, flagged)

    def switch(self, seat: int | None, now: int, lag_ms: int = 0) -> ReserveClock:
        """Stop the running seat (as `stop`) and start ``seat`` (if not None) at ``now``."""
        stopped = self.stop(now, lag_ms)
        return stopped if seat is None else stopped.start(seat, now)

    def hold_until(self, started: int, now: int) -> ReserveClock:
        """The server started the running seat's clock at ``started`` but went on working (its own moves,
        storing them) until ``now``: the clock counts from ``now`` (§8.1: no live clock runs while the
        server acts). A clock started at any other instant is left as it is."""
        if self.running is None or self.since != started or now <= started or self.running in self.flagged:
            return self
        return self._run(self.seats, self.running, now, self.flagged)

    def expire(self, now: int) -> tuple[ReserveClock, int | None]:
        """The server's timer fired: if the running seat is out at ``now``, flag it and stop its clock.

        Returns the new clock and the seat that ran out, or None when the timer was stale (the seat acted,
        or it is not yet ``expires_at``). The seat's deal time and reserve are both 0 afterwards.
        """
        deadline = self.expires_at()
        if self.frozen or deadline is None or now < deadline:
            return self, None
        seat = self.running
        assert seat is not None
        spent = replace(self.seats[seat], deal_ms=0, reserve_ms=0)
        clock = replace(self, seats=self._with(seat, spent), running=None, since=None)
        return replace(clock, flagged=clock.flagged | {seat}), seat

    def new_deal(self) -> ReserveClock:
        """Reset every seat's deal time for the next deal (§8.1); the reserve carries over unchanged.

        A seat that ran out with the reserve off is back in control (§8.2).
        """
        self._check_not_frozen("new_deal")
        if self.running is not None:
            raise ClockError(f"seat {self.running}'s clock is still running at the end of the deal")
        seats = tuple(replace(s, deal_ms=self.settings.deal_ms) for s in self.seats)
        return replace(self, seats=seats, flagged=frozenset(), misere_bonus_given=False)

    def add_misere_bonus(self, now: int) -> ReserveClock:
        """A misère deal: add ``misere_bonus`` to every seat's deal time, once per deal (§8.1).

        The running seat is charged up to ``now`` first, so the bonus never pays back reserve already spent.
        A flagged seat stays flagged (the robot finishes the deal for it).
        """
        if self.misere_bonus_given:
            return self
        clock = self.checkpoint(now)
        bonus = self.settings.misere_bonus_ms
        seats = tuple(
            s if i in clock.flagged else replace(s, deal_ms=s.deal_ms + bonus)
            for i, s in enumerate(clock.seats)
        )
        return replace(clock, seats=seats, misere_bonus_given=True)

    def checkpoint(self, now: int) -> ReserveClock:
        """Charge the running seat up to ``now`` and keep it running (persist the result: see restarts).

        A seat already exhausted is left as it is; `expire` flags it.
        """
        seat, since = self.running, self.since
        if self.frozen or seat is None or since is None or seat in self.flagged:
            return self
        elapsed = max(0, now - since)
        current = self.seats[seat]
        if elapsed >= current.total_ms:
            return self
        return replace(self, seats=self._with(seat, current.charged(elapsed)), since=max(now, since))

    # ---- freezing ------------------------------------------------------------------------------------

    def freeze(self, now: int) -> ReserveClock:
        """Stop all time at ``now`` (shutdown or adjournment): the running seat is charged up to ``now``."""
        if self.frozen:
            return self
        seat, since = self.running, self.since
        seats = self.seats
        if seat is not None and since is not None and seat not in self.flagged:
            seats = self._with(seat, self.seats[seat].charged(max(0, now - since)))
        return replace(self, seats=seats, running=None, since=None, frozen=True, resume=seat)

    def thaw(self, now: int) -> ReserveClock:
        """Undo `freeze` at ``now``: the seat that was running runs again from ``now``."""
        if not self.frozen:
            return self
        thawed = replace(self, frozen=False, resume=None)
        return thawed if self.resume is None else thawed.start(self.resume, now)

    def resume_after_crash(self, now: int, thought_ms: int) -> ReserveClock:
        """A clock read back after a crash: the running seat is charged ``thought_ms`` more (its thinking
        before the crash, as far as the server can prove it) and runs on from ``now``; the downtime is
        charged to nobody. A frozen clock thaws at ``now`` (nothing ran while it was frozen)."""
        if self.frozen:
            return self.thaw(now)
        if self.running is None:
            return self
        return replace(self, since=now - max(0, thought_ms))

    # ---- serialisation -------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "version": CLOCK_JSON_VERSION,
            "deal_ms": self.settings.deal_ms,
            "reserve_ms": self.settings.reserve_ms,
            "misere_bonus_ms": self.settings.misere_bonus_ms,
            "lag": self.settings.lag.to_json(),
            "seats": [[s.deal_ms, s.reserve_ms, s.lag_quota_ms] for s in self.seats],
            "running": self.running,
            "since": self.since,
            "frozen": self.frozen,
            "resume": self.resume,
            "flagged": sorted(self.flagged),
            "misere_bonus_given": self.misere_bonus_given,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> ReserveClock:
        if data.get("version") != CLOCK_JSON_VERSION:
            raise ClockError(f"unknown clock JSON version {data.get('version')!r}")
        settings = ClockSettings(
            int(data["deal_ms"]), int(data["reserve_ms"]), int(data["misere_bonus_ms"]),
            LagPolicy.from_json(data["lag"]),
        )  # fmt: skip
        clock = ReserveClock(
            settings=settings,
            seats=tuple(SeatTime(int(d), int(r), int(q)) for d, r, q in data["seats"]),
            running=_opt_int(data.get("running")),
            since=_opt_int(data.get("since")),
            frozen=bool(data.get("frozen", False)),
            resume=_opt_int(data.get("resume")),
            flagged=frozenset(int(s) for s in data.get("flagged", ())),
            misere_bonus_given=bool(data.get("misere_bonus_given", False)),
        )
        if len(clock.seats) not in (3, 4) or (clock.running is None) != (clock.since is None):
            raise ClockError("inconsistent clock JSON")
        return clock

    def snapshot(self, now: int) -> dict[str, Any]:
        """What every viewer may see of the clocks at ``now`` (public: times are not secret)."""
        return {
            "running": self.running,
            "frozen": self.frozen,
            "seats": [
                {"deal_ms": t.deal_ms, "reserve_ms": t.reserve_ms, "out": i in self.flagged}
                for i, t in ((i, self.time_left(i, now)) for i in range(len(self.seats)))
            ],
        }

    # ---- helpers -------------------------------------------------------------------------------------

    def _run(
        self, seats: tuple[SeatTime, ...], running: int | None, since: int | None, flagged: frozenset[int]
    ) -> ReserveClock:
        """This clock with other times, running seat and flags: the constructor with every field, which
        costs half of `dataclasses.replace`, and every move starts and stops a clock (issue 24)."""
        return ReserveClock(
            self.settings, seats, running, since, self.frozen, self.resume, flagged, self.misere_bonus_given
        )

    def _with(self, seat: int, value: SeatTime) -> tuple[SeatTime, ...]:
        return (*self.seats[:seat], value, *self.seats[seat + 1 :])

    def _check_seat(self, seat: int) -> None:
        if not 0 <= seat < len(self.seats):
            raise ClockError(f"no seat {seat} at a {len(self.seats)}-seat table")

    def _check_not_frozen(self, what: str) -> None:
        if self.frozen:
            raise ClockError(f"cannot {what}: the clock is frozen (thaw it first)")


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def thought_before_crash(turn_start_wall: int, last_beat_wall: int | None) -> int:
    """§8.1 after a crash: how long the running seat thought, as far as the server can prove it — from its
    turn's start to the dead process's last heartbeat (both wall-clock ms); 0 when the process never beat
    after the turn started. The downtime after the last beat is charged to nobody."""
    if last_beat_wall is None:
        return 0
    return max(0, last_beat_wall - turn_start_wall)
