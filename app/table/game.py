"""`Game`: a started pulya — engine state, clocks, score sheet, status and outcome — as one value."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from app.clock import ReserveClock
from app.engine.actions import Action
from app.engine.machine import current_actor, legal_actions
from app.engine.scoring import ScoreSheet
from app.engine.scoring.settlement import Settlement
from app.engine.state import TableState
from app.table.proposals import Adjournment, Proposal


class TableStatus(StrEnum):
    WAITING = "waiting"  # seats are not all taken; no game yet
    PLAYING = "playing"
    ADJOURNED = "adjourned"  # §7.7: stopped between deals, every clock frozen, until all say "ready"
    FINISHED = "finished"
    AWAITING_ADJUDICATION = "awaiting_adjudication"  # over, but a deal awaits an administrator's award


# The statuses of a table still in play: a worker process owns and runs it (stored values, for queries).
# An adjourned table is live too: it is loaded on start (its clocks stay frozen) and resumes there.
LIVE: tuple[str, ...] = (TableStatus.WAITING.value, TableStatus.PLAYING.value, TableStatus.ADJOURNED.value)


class Termination(StrEnum):
    """Why a pulya ended (the protocol's ``outcome.reason``)."""

    POOL_COMPLETE = "pool_complete"  # the pools reached n·S (§7.1)
    TIMEOUT = "timeout"  # a seat ran out of deal time and reserve (§8.3)
    INTERRUPTED = "interrupted"  # an operator's or administrator's early end (§7.7)
    FAULT = "server_fault"  # the server's own step failed; the error is in the note
    ROUND_END = "round_end"  # a tournament round's end (§9.3): the last deal after the announcement
    AGREED = "agreed"  # all seated players agreed to settle now (§7.7)
    ADJOURN_LIMIT = "adjourn_limit"  # an adjournment not resumed within `adjourn_limit` (§7.7)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of the pulya: why, the settlement, and the note (who stopped it and why, or the fault).

    ``settlement`` is None only when a fault ended the game before the sheet could be settled. The
    protocol sends it, and the table's row stores it, as `settlement_json`.
    """

    termination: Termination
    settlement: Settlement | None
    note: str | None = None

    def settlement_json(self) -> dict[str, Any]:
        """The protocol's ``outcome.settlement``: the settlement's JSON with the note (if any) beside it."""
        out = {} if self.settlement is None else self.settlement.to_json()
        if self.note:
            out["note"] = self.note
        return out

    @staticmethod
    def from_json(termination: Termination, data: dict[str, Any]) -> Outcome:
        """`settlement_json` read back (a stored table's outcome)."""
        note = data.get("note")
        settlement = Settlement.from_json(data) if "rounding" in data else None
        return Outcome(termination, settlement, None if note is None else str(note))


@dataclass(frozen=True, slots=True)
class Game:
    """A started table. ``pending``: numbers of deals archived as interrupted and not yet awarded;
    ``proposal``: the table's open or agreed proposal (§7.7); ``adjourned``: set while adjourned."""

    state: TableState
    clock: ReserveClock
    sheet: ScoreSheet
    status: TableStatus = TableStatus.PLAYING
    outcome: Outcome | None = None
    pending: tuple[int, ...] = ()
    proposal: Proposal | None = None
    adjourned: Adjournment | None = None

    @property
    def is_over(self) -> bool:
        return self.status in (TableStatus.FINISHED, TableStatus.AWAITING_ADJUDICATION)

    @property
    def playable(self) -> bool:
        """Seats may act and clocks run (not over, not adjourned)."""
        return self.status is TableStatus.PLAYING

    def life_json(self) -> dict[str, Any] | None:
        """The proposal and the adjournment as the table stores and shows them (public, §12)."""
        if self.proposal is None and self.adjourned is None:
            return None
        return {
            "proposal": None if self.proposal is None else self.proposal.to_json(),
            "adjourned": None if self.adjourned is None else self.adjourned.to_json(),
        }

    def to_act(self) -> int | None:
        """The live seat the table waits for (None while the game is over or a seat is out of time)."""
        if not self.playable:
            return None
        seat = current_actor(self.state)
        return None if seat is None or self.clock.is_flagged(seat) else seat

    def legal(self, seat: int | None) -> list[Action]:
        """What ``seat`` may do now: nothing unless the table waits for that seat."""
        if seat is None or self.to_act() != seat:
            return []
        return legal_actions(self.state)

    def with_server_time(self, started: int, now_ms: int) -> Game:
        """The step that started the waiting seat's clock at ``started`` (its ``now_ms``) was stored and
        published only at ``now_ms``: that seat's time counts from then (§8.1: no live clock runs while
        the server acts)."""
        clock = self.clock.hold_until(started, now_ms)
        return self if clock is self.clock else replace(self, clock=clock)
