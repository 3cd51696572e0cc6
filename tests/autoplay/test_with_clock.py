"""The clock and the timeout procedure together, as the server runs them, on a fake time source (§8)."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.autoplay import close_after_timeout, timeout_actions
from app.clock import ClockSettings, LagPolicy, ReserveClock
from app.engine import DealKind, PassBid, Phase, TableState, TimeOut, apply, current_actor, new_table
from app.engine.actions import Action
from app.engine.scoring import ScoreSheet
from tests.autoplay.helpers import NoRobot, conventions, first_legal, next_deal

DEAL_S, RESERVE_S = 10, 15


@dataclass
class Table:
    """A miniature of the server's table loop: one clock, one timer, the timeout procedure."""

    state: TableState
    clock: ReserveClock
    now: int = 0
    log: list[Action] = field(default_factory=list)
    expiries: list[tuple[int, int]] = field(default_factory=list)  # (seat, instant)

    def play_deal(self, think_ms: dict[int, int], seed: int) -> None:
        """Deal and play one deal; a seat's first action of the deal takes ``think_ms[seat]``."""
        self.state = next_deal(self.state, seed)
        self.clock = self.clock.new_deal()
        thought: set[int] = set()
        while (actor := current_actor(self.state)) is not None:
            self.clock = self.clock.start(actor, self.now)
            delay = 0 if actor in thought else think_ms.get(actor, 0)
            thought.add(actor)
            deadline = self.clock.expires_at()
            assert deadline is not None
            if deadline <= self.now + delay:
                self.now = deadline
                self.clock, seat = self.clock.expire(self.now)
                assert seat == actor
                self.expiries.append((seat, self.now))
                out = timeout_actions(
                    self.state,
                    seat,
                    reserve_on=self.clock.settings.reserve_on,
                    robot=NoRobot(),
                    flagged=self.clock.flagged,
                )
                self.state = out.state
                self.log += out.actions
            else:
                self.now += delay
                self.clock = self.clock.stop(self.now)
                action = first_legal(self.state)
                self.state, _ = apply(self.state, action)
                self.log.append(action)


def table(reserve_on: bool) -> Table:
    conv = conventions(reserve_on, deal_time=DEAL_S, reserve_time=RESERVE_S if reserve_on else 0)
    settings = ClockSettings.from_conventions(conv, lag=LagPolicy.none())
    return Table(new_table(3, conv, first_dealer=0), ReserveClock.new(3, settings))


def test_reserve_on_the_reserve_carries_the_overrun_until_it_is_spent_then_the_game_ends() -> None:
    """§8.1/§8.3: 20 s on a 10 s deal time spends 10 s of reserve; the next deal's 20 s exceeds 10 + 5 s, so
    the seat times out exactly 15 s after its clock started, the auction is auto-passed, and the all-pass
    after it is void; §8.5: penalty, settlement."""
    t = table(reserve_on=True)
    t.play_deal({1: 20_000}, seed=11)  # deal 1: seat 0 deals, seat 1 is first hand
    assert t.expiries == [] and t.state.phase is Phase.DEAL_OVER
    assert t.clock.seats[1].reserve_ms == 5_000 and t.clock.seats[2].reserve_ms == RESERVE_S * 1000
    assert t.state.last_result is not None
    sheet = ScoreSheet.new(3, t.state.conventions).apply(t.state.last_result)
    start = t.now  # deal 2: seat 1 deals; seats 2 and 0 pass at once, then seat 1's clock starts
    t.play_deal({1: 20_000}, seed=12)
    assert len(t.expiries) == 1
    seat, instant = t.expiries[0]
    assert seat == 1 and instant == start + DEAL_S * 1000 + 5_000
    i = t.log.index(TimeOut(1))
    assert t.log[i + 1] == PassBid(1)
    result = t.state.last_result
    assert result is not None and result.kind is DealKind.VOID and result.timed_out == (1,)
    close = close_after_timeout(sheet, t.state)
    assert close.penalised == (1,) and close.sheet.whists[0][1] == close.sheet.whists[2][1] == 50


def test_reserve_off_the_robot_acts_for_the_rest_of_the_deal_and_the_seat_is_back_next_deal() -> None:
    """§8.2: reserve off — out of deal time, the robot acts for the seat until the deal ends (every later
    turn of the seat expires at once); the next deal it has its full deal time again, no penalty."""
    t = table(reserve_on=False)
    t.play_deal({1: 20_000}, seed=21)
    assert [seat for seat, _ in t.expiries] == [1, 1]  # its bidding turn, then its first all-pass turn
    assert t.expiries[1][1] == t.expiries[0][1]  # no time passes: the robot acts at once
    result = t.state.last_result
    assert result is not None and result.kind is DealKind.ALLPASS and result.tricks is not None
    assert result.tricks[1] == t.state.conventions.allpass_timeout_cap
    t.play_deal({}, seed=22)
    assert len(t.expiries) == 2 and not t.clock.flagged
    assert t.clock.seats[1].deal_ms == DEAL_S * 1000 and t.state.phase is Phase.DEAL_OVER
