"""`step(game, command, now_ms=…, moves=…)`: one command applied to a started table, to the next wait.

A step applies the command, then makes every move the server owes before the table waits for a live seat
again: the shuffle of the next deal, the automatic calls and the robot's cards for seats out of time
(§8.4), the end of the pulya (§7.1, §8.3–§8.5). All of it happens at the one instant ``now_ms``: no live
seat's clock runs while the server acts (§8.1); the clock of the seat the table then waits for starts at
``now_ms`` (the server moves it to the moment it publishes: `Game.with_server_time`).

The result says what to store (the actions with the clocks after each, the ended deals, the archived
interrupted deals, the award) and what to publish (the events); a refused command raises `EngineError` or
`TableRefused` and changes nothing.

Order of writes (§8.5): a completed deal is written to the sheet, then the timeout penalties, then the
settlement. Reserve off (§8.2): a deal the robot cannot finish is archived, the game goes on, and the
award is written later as "deal N awarded"; a pulya that ends with an award outstanding ends
"awaiting adjudication".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from app.autoplay.finish import PulyaClose, close_after_adjudication, close_after_timeout
from app.autoplay.procedure import TableRobot, timeout_actions
from app.autoplay.record import InterruptedDeal
from app.clock import ClockSettings, ReserveClock
from app.engine.actions import Action, ClaimVerdict, Interrupt, Shuffle
from app.engine.cards import Card
from app.engine.claims import awaits_verdict
from app.engine.conventions import Conventions
from app.engine.events import Event, public
from app.engine.machine import apply, current_actor
from app.engine.result import DealResult
from app.engine.scoring import ScoreSheet
from app.engine.scoring.records import ScoringError
from app.engine.scoring.settlement import settle
from app.engine.state import Phase, TableState, new_table
from app.engine.views import view
from app.protocol.codes import ErrorCode
from app.table.commands import (
    AwardDeal,
    ClockExpiry,
    EndRound,
    JudgeSheet,
    LifeCommand,
    Resume,
    SeatAction,
    StopGame,
    TableCommand,
)
from app.table.errors import RobotRequired, TableRefused
from app.table.game import Game, Outcome, TableStatus, Termination
from app.table.proposals import Person
from app.table.seats import refuse_foreign
from app.tournament.roundend import MORE_DEALS

_OVER = (Phase.DEAL_OVER, Phase.INTERRUPTED)
_BETWEEN_DEALS = (Phase.AWAITING_DEAL, Phase.DEAL_OVER, Phase.INTERRUPTED)


class _Unattended:
    """The robot of a step run on the server's event loop: the solver must not run there."""

    def play(self, state: TableState) -> Card:
        raise RobotRequired("the solver robot must play a card")

    def misere_discard(self, state: TableState) -> tuple[Card, Card]:
        raise RobotRequired("the misère discard robot must discard")

    def judge_claim(self, state: TableState) -> ClaimVerdict:
        raise RobotRequired("the solver must judge the rejected claim")


@dataclass(frozen=True, slots=True)
class ServerMoves:
    """What the server brings to a step: the next deal's shuffle and the robot (None: see `RobotRequired`)."""

    shuffle: Callable[[], Shuffle]
    robot: TableRobot | None = None
    wall_ms: int = 0  # the wall clock (ms): an adjournment's start and its `adjourn_limit` (§7.7)

    def robot_or_refusal(self) -> TableRobot:
        return _Unattended() if self.robot is None else self.robot


@dataclass(frozen=True, slots=True)
class Applied:
    """One engine action of the step, by ``seat`` (None: the server's), and the clocks right after it."""

    action: Action
    seat: int | None
    clock: ReserveClock


@dataclass(frozen=True, slots=True)
class EndedDeal:
    """A deal that ended in this step: its result and its full record (§12: shown to all once over)."""

    deal_number: int
    result: DealResult
    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Substitution:
    """A seat changed hands (§7.7): ``substitute`` holds it from the deal after ``after_deal``."""

    seat: int
    holder: Person
    substitute: Person
    after_deal: int


@dataclass(frozen=True, slots=True)
class Joined:
    """A fourth joined three (§7.7) after deal ``after_deal``: ``newcomer`` holds ``seat`` from the next
    deal; ``moved[s]`` is where old seat ``s`` sits now; ``events_before``: how many of the step's events
    came before the join (they name the old seats)."""

    newcomer: Person
    seat: int
    moved: tuple[int, ...]
    after_deal: int
    events_before: int


@dataclass(frozen=True, slots=True)
class Step:
    game: Game
    events: tuple[Event, ...] = ()
    applied: tuple[Applied, ...] = ()
    deals: tuple[EndedDeal, ...] = ()
    archived: tuple[InterruptedDeal, ...] = ()
    awarded: tuple[int, ...] = ()  # deal numbers awarded by this step
    too_late: bool = False  # the player's action came after the seat's time ran out; the server acted
    started: bool = False  # the game started in this step
    substituted: tuple[Substitution, ...] = ()
    joined: Joined | None = None

    @property
    def changed(self) -> bool:
        """Anything to store and publish (a stale timer changes nothing)."""
        return bool(self.applied or self.awarded or self.started or self.events)


class _Run:
    """The step being built: the game's fields as they change, and what to store and publish."""

    def __init__(self, game: Game, now: int, moves: ServerMoves) -> None:
        self.game = game
        self.state = game.state
        self.clock = game.clock
        self.sheet = game.sheet
        self.status = game.status
        self.outcome = game.outcome
        self.pending = game.pending
        self.proposal = game.proposal
        self.adjourned = game.adjourned
        self.substituted: list[Substitution] = []
        self.joined: Joined | None = None
        self.now = now
        self.moves = moves
        self.events: list[Event] = []
        self.applied: list[Applied] = []
        self.deals: list[EndedDeal] = []
        self.archived: list[InterruptedDeal] = []

    @property
    def reserve_on(self) -> bool:
        return self.clock.settings.reserve_on

    def result(self, *, too_late: bool = False, awarded: tuple[int, ...] = (), started: bool = False) -> Step:
        game = Game(
            self.state, self.clock, self.sheet, self.status, self.outcome, self.pending, self.proposal,
            self.adjourned,
        )  # fmt: skip
        return Step(game, tuple(self.events), tuple(self.applied), tuple(self.deals), tuple(self.archived),
                    awarded, too_late, started, tuple(self.substituted), self.joined)  # fmt: skip


# ---------------------------------------------------------------------------------------------- entry


def start_game(
    seats: int, conventions: Conventions, first_dealer: int, *, now_ms: int, moves: ServerMoves
) -> Step:
    """All seats are taken: the pulya starts and the first deal is dealt."""
    state = new_table(seats, conventions, first_dealer)
    clock = ReserveClock.new(seats, ClockSettings.from_conventions(conventions))
    run = _Run(Game(state, clock, ScoreSheet.new(seats, conventions)), now_ms, moves)
    run.events.append(public("game_started", first_dealer=first_dealer))
    _drive(run)
    return run.result(started=True)


def step(game: Game, command: TableCommand, *, now_ms: int, moves: ServerMoves) -> Step:
    """Apply ``command`` at ``now_ms`` and make the server's moves up to the next wait (module docstring)."""
    run = _Run(game, now_ms, moves)
    match command:
        case SeatAction(seat, action, lag_ms, received_ms):
            at = now_ms if received_ms is None else min(now_ms, received_ms)
            return _seat_action(run, seat, action, lag_ms, at)
        case ClockExpiry():
            return _expiry(run)
        case Resume():
            if game.playable:
                _drive(run)
            return run.result()
        case StopGame(reason):
            return _stop(run, reason)
        case AwardDeal(record, result, revise):
            return _revise(run, record, result) if revise else _award(run, record, result)
        case JudgeSheet(write):
            return _judge(run, write)
        case EndRound(straggler):
            return _end_round(run, straggler)
    if isinstance(command, LifeCommand):
        from app.table.life import life_step  # §7.7's module builds on this one's moves

        return life_step(run, command)
    raise TypeError(f"not a table command: {command!r}")  # pragma: no cover


# ------------------------------------------------------------------------------------------- commands


def _seat_action(run: _Run, seat: int, action: Action, lag_ms: int, received: int) -> Step:
    if run.status is TableStatus.ADJOURNED:
        raise TableRefused(ErrorCode.ADJOURNED, "the game is adjourned: say ready to resume it")
    if run.status is not TableStatus.PLAYING:
        raise TableRefused(ErrorCode.GAME_OVER, "the game has ended")
    refuse_foreign(seat, getattr(action, "seat", seat), action.type)  # a shuffle names no seat
    if run.clock.is_flagged(seat):
        raise TableRefused(ErrorCode.NOT_YOUR_TURN, "your time ran out: the server plays for you this deal")
    applied = apply(run.state, action)  # raises EngineError: nothing changed
    if run.clock.running == seat:
        # §8.6: the action counts at the instant the server received it, never later.
        run.clock = run.clock.stop(received, lag_ms)
        if run.clock.is_flagged(seat):
            # §8.5: acting at the deadline is too late; the timeout procedure acts instead.
            _timeout(run, seat)
            _drive(run)
            return run.result(too_late=True)
    _record(run, action, seat, applied)
    _drive(run)
    return run.result()


def _expiry(run: _Run) -> Step:
    if run.status is not TableStatus.PLAYING:
        return run.result()
    clock, seat = run.clock.expire(run.now)
    if seat is None:
        return run.result()  # stale: the seat acted, or its time is not up yet
    run.clock = clock
    _timeout(run, seat)
    _drive(run)
    return run.result()


def _stop(run: _Run, reason: str) -> Step:
    """§7.7: the pulya ends early, settled as it stands; a deal in progress is archived as interrupted."""
    if run.status not in (TableStatus.PLAYING, TableStatus.ADJOURNED):
        raise TableRefused(ErrorCode.NOT_PLAYING, "no game is running at this table")
    run.clock = run.clock.thaw(run.now).stop(run.now)
    if run.state.phase not in _BETWEEN_DEALS:
        _record(run, Interrupt(reason[:200]), None)
    _finish(run, Termination.INTERRUPTED, _sheet_at_early_end(run), note=reason)
    return run.result()


def _sheet_at_early_end(run: _Run) -> ScoreSheet:
    """§7.7 last point: a deal that ran a seat out of time (reserve on) keeps its §5.8 penalty whatever ends
    the game after it — an operator's stop or a fault (§8.6) — written after the deal as §8.5 orders."""
    deal = run.state.deal
    if run.reserve_on and deal is not None and deal.timed_out and run.state.phase in _OVER:
        return close_after_timeout(run.sheet, run.state).sheet
    return run.sheet


def abort(game: Game, fault: str, *, now_ms: int) -> Step:
    """A fault in the table's own step (a bug, not a player's doing) ends the game, so that a table never
    waits for a step that fails every time. As an early stop (§7.7): a deal in progress is archived for an
    administrator and the sheet is settled as it stands; if even that fails (the fault is in the engine or
    the settlement), the game just ends, without a settlement. ``Termination.FAULT`` either way, the fault
    in the note."""
    if game.is_over:
        raise TableRefused(ErrorCode.NOT_PLAYING, "no game is running at this table")
    note = f"server fault: {fault}"[:500]
    # §8.6: a fault in the table's own step ends the game like an operator's stop (§7.7).
    moves = ServerMoves(_no_shuffle)
    try:
        run = _Run(game, now_ms, moves)
        run.clock = run.clock.thaw(now_ms).stop(now_ms)
        if run.state.phase not in _BETWEEN_DEALS:
            _record(run, Interrupt(note[:200]), None)
        _finish(run, Termination.FAULT, _sheet_at_early_end(run), note=note)
        return run.result()
    except Exception:
        run = _Run(game, now_ms, moves)
        # No clock runs at a table that is over, whatever the state of the deal it was in.
        run.clock = replace(run.clock, running=None, since=None, frozen=False, resume=None)
        run.status = TableStatus.FINISHED
        run.outcome = Outcome(Termination.FAULT, None, note)
        run.events.append(
            public("game_over", reason=Termination.FAULT.value, settlement=run.outcome.settlement_json(),
                   status=run.status.value)
        )  # fmt: skip
        return run.result()


def _no_shuffle() -> Shuffle:
    raise TableRefused(ErrorCode.GAME_OVER, "the game is ending: no next deal")


def _award(run: _Run, record: InterruptedDeal, result: DealResult) -> Step:
    """Write an administrator's award; a game over is settled again (final once no award is pending)."""
    number = record.deal_number
    if number not in run.pending:
        raise TableRefused(ErrorCode.NOT_PENDING, f"deal {number} of this table awaits no award")
    outcome = run.outcome
    if _penalised_close(run, number):
        # Reserve on (§8.4–§8.5): the penalties written after the provisional close are written again
        # after the awarded deal — whatever ended the game after the timeout (§7.7, §8.6).
        provisional = PulyaClose(run.sheet, settle(run.sheet), record.timed_out, provisional=True)
        sheet = close_after_adjudication(provisional, record, result).sheet
    else:
        sheet = run.sheet.award(number, result)
    if run.status is TableStatus.PLAYING and sheet.finished:  # §8.6: refused until the game is over
        raise TableRefused(
            ErrorCode.AWARD_ENDS_PULYA,
            "this award would complete the pulya in the middle of a deal; give it when the game is over",
        )
    run.sheet = sheet
    run.pending = tuple(n for n in run.pending if n != number)
    run.events.append(public("deal_awarded", deal_number=number, result=result.to_json()))
    if outcome is not None:
        _settle(run, outcome.termination, note=outcome.note)
    return run.result(awarded=(number,))


def _penalised_close(run: _Run, number: int) -> bool:
    """The game closed after a reserve-on timeout in interrupted deal ``number`` (its last deal): its sheet
    ends with the §5.8 penalties, which the award's deal must precede (§8.5)."""
    if run.outcome is None or number != run.state.deal_number or not run.reserve_on:
        return False
    deal = run.state.deal
    return deal is not None and bool(deal.timed_out) and run.state.phase is Phase.INTERRUPTED


def _revise(run: _Run, record: InterruptedDeal, result: DealResult) -> Step:
    """A revision of an award already given: the difference is written and the settlement follows."""
    number = record.deal_number
    if number in run.pending or run.sheet.awarded_result(number) is None:
        raise TableRefused(ErrorCode.NOT_AWARDED, f"deal {number} of this table has no award to revise")
    # §8.6: an award given after a reserve-on timeout may be revised like any other.
    sheet = run.sheet.revise_award(number, result)
    if run.status is TableStatus.PLAYING and sheet.finished:
        raise TableRefused(
            ErrorCode.AWARD_ENDS_PULYA,
            "this revision would complete the pulya in the middle of a deal; give it when the game is over",
        )
    run.sheet = sheet
    run.events.append(public("deal_awarded", deal_number=number, result=result.to_json(), revised=True))
    outcome = run.outcome
    if outcome is not None:
        _settle(run, outcome.termination, note=outcome.note)
    return run.result(awarded=(number,))


def _judge(run: _Run, write: Callable[[ScoreSheet], ScoreSheet]) -> Step:
    """A judge's sanction or revocation (§11): written into the sheet; a game over is settled again."""
    try:
        sheet = write(run.sheet)
    except ScoringError as exc:
        raise TableRefused(ErrorCode.INVALID_SANCTION, str(exc)) from None
    if run.status is TableStatus.PLAYING and sheet.finished and not run.sheet.finished:
        raise TableRefused(
            ErrorCode.SANCTION_ENDS_PULYA,
            "this entry would complete the pulya in the middle of a deal; write it when the game is over",
        )
    run.sheet = sheet
    run.events.append(public("sanction", summary=sheet.history[-1].summary))
    outcome = run.outcome
    if outcome is not None:
        _settle(run, outcome.termination, note=outcome.note)
    return run.result()


def _end_round(run: _Run, straggler: bool) -> Step:
    """§9.3: "after the current deal, 4 more deals", the last dealer marked on the sheet; a straggler ends
    after its deal in progress (at once between deals). The pools never end a tournament table (§7.1).
    Idempotent: a table that already ends after a marked deal keeps that end and changes nothing."""
    if run.status is not TableStatus.PLAYING or not run.state.conventions.tournament:
        raise TableRefused(ErrorCode.TOURNAMENT_STATE, "no tournament game is running at this table")
    if run.sheet.last_deal is not None:
        # Heard already (the round clock asks again when it lost the answer): nothing changes, and the reply's
        # sheet tells after which deal the table ends.
        return run.result()
    state = run.state
    current = state.deal_number
    last = current if straggler else current + MORE_DEALS
    dealer = None if straggler else (state.dealer + last - current) % state.seats
    try:
        run.sheet = run.sheet.mark_round_end(last, dealer)
    except ScoringError as exc:
        raise TableRefused(ErrorCode.TOURNAMENT_STATE, str(exc)) from None
    run.events.append(public("round_end", last_deal=last, last_dealer=dealer, straggler=straggler))
    if state.phase in _BETWEEN_DEALS and current >= last:
        _finish(run, Termination.ROUND_END, run.sheet)
    return run.result()


# ----------------------------------------------------------------------------------- the server's moves


def _drive(run: _Run) -> None:
    """Make the server's moves until the table waits for a live seat or the pulya is over."""
    while run.status is TableStatus.PLAYING:
        state = run.state
        deal = state.deal
        if state.phase in _OVER:
            if run.reserve_on and deal is not None and deal.timed_out:
                # §8.3–§8.5: the deal with the timeout is over: the deal, the penalties, the settlement.
                close = close_after_timeout(run.sheet, state)
                _finish(run, Termination.TIMEOUT, close.sheet)
                return
            if run.sheet.finished:
                _finish(run, Termination.POOL_COMPLETE, run.sheet)
                return
            if run.sheet.last_deal is not None and state.deal_number >= run.sheet.last_deal:
                _finish(run, Termination.ROUND_END, run.sheet)  # §9.3: the round's last deal is over
                return
        if state.phase in _BETWEEN_DEALS:
            from app.table.life import before_next_deal  # §7.7: agreed proposals act between deals

            if not before_next_deal(run):
                return
            _record(run, run.moves.shuffle(), None)
            continue
        if awaits_verdict(state):  # §4.10: a rejected claim is judged at once, from the true position
            _record(run, run.moves.robot_or_refusal().judge_claim(state), None)
            continue
        seat = current_actor(state)
        if seat is None:  # pragma: no cover - every live phase has a seat to act
            return
        if run.clock.is_flagged(seat):
            _timeout(run, seat)
            continue
        if run.clock.running is None:
            run.clock = run.clock.start(seat, run.now)
        return


def _timeout(run: _Run, seat: int) -> None:
    """§8.2–§8.4: the timeout procedure acts for ``seat`` (and every seat out of time, and the robot)."""
    outcome = timeout_actions(
        run.state,
        seat,
        reserve_on=run.reserve_on,
        robot=run.moves.robot_or_refusal(),
        flagged=run.clock.flagged,
        clocks=run.clock.to_json(),
    )
    for action in outcome.actions:
        _record(run, action, None)


def _record(
    run: _Run, action: Action, seat: int | None, applied: tuple[TableState, list[Event]] | None = None
) -> None:
    """Apply one engine action and everything it means for the clocks and the sheet."""
    before = run.state
    state, events = applied or apply(before, action)
    clock = run.clock
    if isinstance(action, Shuffle):
        clock = clock.new_deal()  # §8.1: deal time resets every deal
    deal = state.deal
    if deal is not None and deal.bid is not None and deal.bid.is_misere:
        clock = clock.add_misere_bonus(run.now)  # §8.1: from the end of the auction (once per deal)
    if state.phase is Phase.DEAL_OVER and before.phase is not Phase.DEAL_OVER:
        result = state.last_result
        assert result is not None and deal is not None
        if not (run.reserve_on and deal.timed_out):  # else `close_after_timeout` writes it (§8.5)
            run.sheet = run.sheet.apply(result)
        run.deals.append(EndedDeal(state.deal_number, result, view(state, None)))
    if state.phase is Phase.INTERRUPTED and before.phase is not Phase.INTERRUPTED:
        reason = state.interrupt_reason or "interrupted"
        record = InterruptedDeal.from_state(state, reason, clock.to_json(), out_of_time=clock.flagged)
        run.archived.append(record)
        run.pending = (*run.pending, state.deal_number)
    run.state, run.clock = state, clock
    run.applied.append(Applied(action, seat, clock))
    run.events += events


def _finish(run: _Run, termination: Termination, sheet: ScoreSheet, note: str | None = None) -> None:
    if run.clock.running is not None:
        run.clock = run.clock.stop(run.now)
    run.sheet = sheet
    _settle(run, termination, note)


def _settle(run: _Run, termination: Termination, note: str | None) -> None:
    """The settlement as the sheet stands; provisional ("awaiting adjudication") while awards are due."""
    if run.proposal is not None or run.adjourned is not None:
        # §7.7: the game ended otherwise first: every proposal lapses.
        run.events.append(public("proposal_lapsed"))
        run.proposal = run.adjourned = None
    run.status = TableStatus.AWAITING_ADJUDICATION if run.pending else TableStatus.FINISHED
    run.outcome = Outcome(termination, settle(run.sheet), note or None)
    run.events.append(
        public(
            "game_over",
            reason=termination.value,
            settlement=run.outcome.settlement_json(),
            status=run.status.value,
        )
    )
