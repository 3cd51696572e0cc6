"""The table as a pure value: the engine, the clocks, the score sheet and the timeout procedure joined.

`app.engine` knows one deal's rules, `app.clock` the seats' time, `app.engine.scoring` the pulya record and
`app.autoplay` what the server does for a seat out of time. `step(game, command, now_ms=…, moves=…)` is the
one place that joins them (RULES.md §8.1's misère bonus and per-deal reset, §8.2's interrupted deals with
the reserve off, §8.5's finish order, the end of the pulya). It does no I/O and reads no clock: the server
passes the time, the shuffle and the robot in, persists what the step says, then publishes it.
"""

from app.table.commands import (
    AdjournExpiry,
    Answer,
    AskToJoin,
    AwardDeal,
    ClockExpiry,
    Decree,
    EndRound,
    JudgeSheet,
    Propose,
    Ready,
    Resume,
    SeatAction,
    StopGame,
    SubstituteAnswer,
    TableCommand,
    Withdraw,
    WithdrawJoin,
)
from app.table.errors import RobotRequired, TableRefused
from app.table.game import LIVE, Game, Outcome, TableStatus, Termination
from app.table.proposals import Adjournment, Person, Proposal, ProposalKind
from app.table.seats import Seating, normalised_action, player_action
from app.table.step import (
    Applied,
    EndedDeal,
    Joined,
    ServerMoves,
    Step,
    Substitution,
    abort,
    start_game,
    step,
)

__all__ = [
    "LIVE",
    "AdjournExpiry",
    "Adjournment",
    "Answer",
    "Applied",
    "AskToJoin",
    "AwardDeal",
    "ClockExpiry",
    "Decree",
    "EndRound",
    "EndedDeal",
    "Game",
    "Joined",
    "JudgeSheet",
    "Outcome",
    "Person",
    "Proposal",
    "ProposalKind",
    "Propose",
    "Ready",
    "Resume",
    "RobotRequired",
    "SeatAction",
    "Seating",
    "ServerMoves",
    "Step",
    "StopGame",
    "SubstituteAnswer",
    "Substitution",
    "TableCommand",
    "TableRefused",
    "TableStatus",
    "Termination",
    "Withdraw",
    "WithdrawJoin",
    "abort",
    "normalised_action",
    "player_action",
    "start_game",
    "step",
]  # fmt: skip
