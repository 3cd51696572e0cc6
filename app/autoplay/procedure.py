"""The timeout procedure (RULES.md §8.2–§8.4, seed 000): what the server does for a seat that ran out.

`timeout_actions` is pure: given the table state and the seat whose clock just ran out, it returns the
engine actions the server must record and apply, the state after them, and — when the robot cannot
finish — the `InterruptedDeal` to archive. Before the robot takes over it acts only while the seat to act
is out of time; when a live player is to act it stops and the server starts that player's clock as usual
(§8.4: "the other players go on playing the deal with their own clocks"). The robot takes over at a
timed-out seat's card or misère discard; from then on it plays every remaining card of every seat, live
seats included, and makes any pending choice itself (a lone whister's open/closed: closed), never waiting
for a live seat (§8.4, §10).

Per phase, for the timed-out seat (§8.4):
- bidding: pass; the dealer's answer to a misère invitation: decline;
- whisting: half-whist where legal at that moment, else pass (else the only call allowed, e.g. a
  compulsory whist); the 4-seat dealer's whist: pass; a lone whister's open/closed choice: closed;
- discard on a misère: the misère discard robot, from the declarer's own twelve cards only;
- discard or contract of any other game: the deal cannot be finished — interrupted;
- card play of a game or misère: the solver robot finishes the deal, lowest optimal card each time;
  if it cannot (budget exceeded) the deal is interrupted;
- all-pass play: `TimeOut` writes the remaining tricks to the seat, capped (the engine applies the cap).

Reserve on, the procedure first records `TimeOut(seat)`, so an auction that then ends in all-pass is void
and the result names the seat. Reserve off (§8.2) **[ours]**: no `TimeOut` is recorded except in all-pass
play — an all-pass after an auto-passed auction is played normally (otherwise running out of deal time
would be a free way out of an all-pass deal), and nothing marks the seat for a penalty.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from app.autoplay.record import InterruptedDeal
from app.engine.actions import (
    Action,
    AnswerClaim,
    AnswerInvitation,
    CallWhist,
    ChoosePlay,
    ClaimVerdict,
    Discard,
    Interrupt,
    PassBid,
    PlayCard,
    TimeOut,
)
from app.engine.cards import Card
from app.engine.events import Event
from app.engine.machine import apply, current_actor, legal_actions
from app.engine.result import PlayMode, WhistCall
from app.engine.state import Phase, TableState
from app.solver.errors import SolverError


class AutoplayError(ValueError):
    """The procedure was asked to act for a seat the table is not waiting for."""


class Robot(Protocol):
    """The solver robot of §10 and the misère discard robot of §8.4."""

    def play(self, state: TableState) -> Card:
        """The lowest optimal card, all cards open, for the hand to move; may raise `SolverError`."""
        ...

    def misere_discard(self, state: TableState) -> tuple[Card, Card]:
        """Two cards for the misère declarer to discard, from his twelve cards only (not the others')."""
        ...


class TableRobot(Robot, Protocol):
    """The robots a table step needs: those of §8.4 and the solver that judges a rejected claim."""

    def judge_claim(self, state: TableState) -> ClaimVerdict:
        """The solver's verdict on a rejected claim (§4.10), from the true position."""
        ...


REASON_NO_CONTRACT = "the declarer ran out of time before naming the contract"
REASON_SOLVER = "the solver robot could not finish the deal"


@dataclass(frozen=True, slots=True)
class TimeoutOutcome:
    """What the timeout procedure did: apply/persist ``actions`` in order; ``state`` is the result.

    ``ends_game``: reserve on — the pulya ends once this deal is over or interrupted (§8.3), and the
    caller writes the penalty and settles (`close_after_timeout`).
    """

    state: TableState
    actions: tuple[Action, ...]
    events: tuple[Event, ...]
    ends_game: bool
    interrupted: InterruptedDeal | None = None

    @property
    def deal_finished(self) -> bool:
        return self.state.phase in (Phase.DEAL_OVER, Phase.INTERRUPTED)


class _Run:
    """Accumulates the actions applied by one run of the procedure."""

    def __init__(self, state: TableState) -> None:
        self.state = state
        self.actions: list[Action] = []
        self.events: list[Event] = []

    def apply(self, action: Action) -> None:
        self.state, events = apply(self.state, action)
        self.actions.append(action)
        self.events += events


def timeout_actions(
    state: TableState,
    seat: int,
    *,
    reserve_on: bool,
    robot: Robot,
    flagged: Iterable[int] = (),
    clocks: dict[str, Any] | None = None,
) -> TimeoutOutcome:
    """Act for ``seat``, whose clock just ran out (or who ran out earlier in this deal), per §8.4.

    ``flagged``: other seats already out of time in this deal; the procedure keeps acting while any of
    them is to act. ``clocks``: the table clock's JSON, archived with an interrupted deal.
    """
    actor = current_actor(state)
    if actor != seat:
        raise AutoplayError(f"the table waits for seat {actor}, not for seat {seat} ({state.phase.value})")
    out = frozenset(flagged) | {seat}
    run = _Run(state)
    deal = state.deal
    assert deal is not None
    all_pass_play = state.phase is Phase.PLAY and deal.allpass
    if seat not in deal.timed_out and (reserve_on or all_pass_play):
        run.apply(TimeOut(seat))
    interrupted: InterruptedDeal | None = None
    while (actor := current_actor(run.state)) is not None and actor in out:
        reason = _act(run, actor, robot)
        if reason is not None:
            run.apply(Interrupt(reason))
            interrupted = InterruptedDeal.from_state(run.state, reason, clocks)
            break
    return TimeoutOutcome(run.state, tuple(run.actions), tuple(run.events), reserve_on, interrupted)


def _act(run: _Run, seat: int, robot: Robot) -> str | None:
    """Take the timed-out seat's turn; return a reason when the deal must be interrupted instead."""
    state = run.state
    deal = state.deal
    assert deal is not None
    phase = state.phase
    if phase is Phase.BIDDING:
        run.apply(PassBid(seat))
    elif phase is Phase.DEALER_INVITATION:
        run.apply(AnswerInvitation(seat, False))
    elif phase is Phase.WHISTING:
        run.apply(_auto_whist(state, seat))
    elif phase is Phase.PLAY_MODE:
        run.apply(ChoosePlay(seat, PlayMode.CLOSED))
    elif phase is Phase.CLAIM:
        run.apply(AnswerClaim(seat, False))  # §4.10: a seat out of time while answering rejects
    elif phase is Phase.DISCARD:
        if deal.bid is None or not deal.bid.is_misere:
            return REASON_NO_CONTRACT
        try:
            cards = robot.misere_discard(state)
        except SolverError:  # the server's guard stopped the search: the deal is archived (§8.4)
            return REASON_SOLVER
        run.apply(Discard(seat, cards))
        return _robot_finishes(run, robot)  # §8.4: the robot took over; it plays the misère out
    elif phase is Phase.CONTRACT:
        return REASON_NO_CONTRACT
    elif phase is Phase.PLAY:
        if deal.allpass:
            run.apply(TimeOut(seat))  # ends the deal; a seat already marked still gets its tricks
        else:
            return _robot_finishes(run, robot)
    else:  # pragma: no cover - current_actor is None outside the phases above
        raise AutoplayError(f"nothing to do for seat {seat} in {phase.value}")
    return None


def _auto_whist(state: TableState, seat: int) -> Action:
    """§8.4: half-whist where legal at that moment, else pass, else the only call allowed."""
    calls = [a for a in legal_actions(state) if isinstance(a, CallWhist)]
    for wanted in (WhistCall.HALF_WHIST, WhistCall.PASS):
        for action in calls:
            if action.call is wanted:
                return action
    return calls[0]


def _robot_finishes(run: _Run, robot: Robot) -> str | None:
    """§8.4/§10: the solver robot plays every seat's cards, card by card, to the end of the deal.

    A lone whister's open/closed choice still pending after a declarer's dark lead is made by the robot
    too: closed (§8.4 [ours]: from the takeover it never waits for a live seat).
    """
    while run.state.phase in (Phase.PLAY, Phase.PLAY_MODE):
        actor = current_actor(run.state)
        assert actor is not None
        if run.state.phase is Phase.PLAY_MODE:
            run.apply(ChoosePlay(actor, PlayMode.CLOSED))
            continue
        try:
            card = robot.play(run.state)
        except SolverError:
            return REASON_SOLVER
        run.apply(PlayCard(actor, card))
    return None
