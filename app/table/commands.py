"""What can happen to a started table: the inputs of `step`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.autoplay.record import InterruptedDeal
from app.engine.actions import Action
from app.engine.result import DealResult
from app.engine.scoring import ScoreSheet
from app.table.proposals import Person, ProposalKind


@dataclass(frozen=True, slots=True)
class SeatAction:
    """A seated player's action. ``lag_ms``: network lag the server measured itself, credited by the clock;
    ``received_ms``: when the server received it (the step's time base; None: at the step's ``now_ms``) —
    the action counts then, its wait in the table's queue is charged to nobody (§8.6)."""

    seat: int
    action: Action
    lag_ms: int = 0
    received_ms: int | None = None


@dataclass(frozen=True, slots=True)
class ClockExpiry:
    """The server's timer for the running seat fired (stale expiries change nothing)."""


@dataclass(frozen=True, slots=True)
class Resume:
    """Make the moves the server owes (a recovered table: the next shuffle, a robot's turn)."""


@dataclass(frozen=True, slots=True)
class StopGame:
    """An operator's or administrator's early end of the pulya (§7.7), settled as it stands."""

    reason: str


@dataclass(frozen=True, slots=True)
class AwardDeal:
    """An administrator's award for an interrupted deal (§8.2, §8.4)."""

    record: InterruptedDeal
    result: DealResult
    # A later award of a deal already awarded: the sheet follows it (issue 11 §2).
    revise: bool = False


@dataclass(frozen=True, slots=True)
class JudgeSheet:
    """A judge's entry written into the pulya (RULES §11): a sanction, or the revocation of one. ``write``
    is pure and makes the next sheet from the sheet as it stands when the table takes the command (it
    raises `ScoringError` naming the field at fault)."""

    write: Callable[[ScoreSheet], ScoreSheet]


@dataclass(frozen=True, slots=True)
class EndRound:
    """A tournament round's end reaches the table (RULES §9.3): the announcement ("after the current deal,
    4 more deals"), or, for a straggler that missed it, the end after its deal in progress."""

    straggler: bool = False


@dataclass(frozen=True, slots=True)
class Propose:
    """A seated player's proposal (§7.7). ``holder``: the proposer as the seat's holder (a substitution);
    ``seated``: the users seated at the table (a substitute must not be one of them); ``tournament``: the
    table is a tournament table, where players propose nothing."""

    seat: int
    kind: ProposalKind
    holder: Person | None = None
    substitute: Person | None = None
    seated: tuple[int, ...] = ()
    tournament: bool = False


@dataclass(frozen=True, slots=True)
class Answer:
    """A seated player accepts or declines the open proposal (not a move: no clock runs for it)."""

    seat: int
    accept: bool


@dataclass(frozen=True, slots=True)
class SubstituteAnswer:
    """The named substitute (not seated) accepts or declines."""

    user_id: int
    accept: bool


@dataclass(frozen=True, slots=True)
class Withdraw:
    seat: int


@dataclass(frozen=True, slots=True)
class AskToJoin:
    """A registered user not seated asks to join the three as a fourth (§7.7, convention
    `fourth_may_join`). ``seated``: the users seated at the table; ``tournament``: the table is a
    tournament table (refused there)."""

    newcomer: Person
    seated: tuple[int, ...] = ()
    tournament: bool = False


@dataclass(frozen=True, slots=True)
class WithdrawJoin:
    """The user who asked to join withdraws his asking."""

    user_id: int


@dataclass(frozen=True, slots=True)
class Ready:
    """A seated player of an adjourned pulya is ready to go on."""

    seat: int


@dataclass(frozen=True, slots=True)
class Decree:
    """An operator's or administrator's settle, adjourn or substitution without consents, with a reason
    (§7.7); ``resume``: resume an adjourned pulya (``kind`` is then ignored)."""

    kind: ProposalKind
    reason: str
    seat: int | None = None
    holder: Person | None = None
    substitute: Person | None = None
    seated: tuple[int, ...] = ()
    resume: bool = False


@dataclass(frozen=True, slots=True)
class AdjournExpiry:
    """The server's timer: an adjournment may have run past `adjourn_limit` (checked on the wall clock the
    server passes in `ServerMoves.wall_ms`)."""


LifeCommand = (
    Propose | Answer | SubstituteAnswer | Withdraw | Ready | Decree | AdjournExpiry | AskToJoin | WithdrawJoin
)

TableCommand = SeatAction | ClockExpiry | Resume | StopGame | AwardDeal | JudgeSheet | EndRound | LifeCommand
