"""The end of a tournament round (RULES.md §9.3) as pure values; time is passed in (ms).

- `RoundClock`: a round has a fixed length from its start. The time the server was down is added to it
  **[ours]**, so a restart neither loses nor shortens the round: after a restart the server calls
  `RoundClock.after_outage(last_alive_ms, now_ms)`. The announcement is due `warning_ms` before the end.
- `TableEnd`: one table's way to its end. At the announcement the table is in deal k (or between deals
  after deal k): "after the current deal — 4 more deals", so its last deal is k + 4 and the dealer of that
  deal is marked on the sheet (seats deal in turn clockwise after every deal, all-pass deals included,
  §1). With three players too. The pools do not end it (§7.1). A table that did not hear the announcement
  (adjourned by a judge, or waiting for a player) ends, once every other table of the round has ended,
  after its deal in progress (played out **[ours]**), or at once when it has none.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

MORE_DEALS: Final = 4  # seed 002: «После текущей сдачи – 4 сдачи»


class RoundEndError(ValueError):
    """A round-end step that does not fit the table's state (e.g. announcing twice)."""


def dealer_of(first_dealer: int, seats: int, deal_number: int) -> int:
    """The dealer of deal ``deal_number`` (1-based) at a table whose first dealer is ``first_dealer``."""
    return (first_dealer + deal_number - 1) % seats


@dataclass(frozen=True, slots=True)
class RoundClock:
    """A round's clock: started at ``started_ms`` (wall ms), ``length_ms`` long plus ``downtime_ms``."""

    started_ms: int
    length_ms: int
    warning_ms: int
    downtime_ms: int = 0

    @property
    def ends_at(self) -> int:
        return self.started_ms + self.length_ms + self.downtime_ms

    @property
    def warning_at(self) -> int:
        """When the announcement is due: ``warning_ms`` before the end (at the start if longer)."""
        return max(self.started_ms, self.ends_at - self.warning_ms)

    def warning_due(self, now_ms: int) -> bool:
        return now_ms >= self.warning_at

    def left_ms(self, now_ms: int) -> int:
        return max(0, self.ends_at - now_ms)

    def after_outage(self, last_alive_ms: int, now_ms: int) -> RoundClock:
        """The server was down from ``last_alive_ms`` (its last heartbeat) to ``now_ms``: that time is
        added to the round (§9.3 [ours]). Only downtime within the round counts: an outage after the
        round's end (the tables then only finishing their last deals) adds nothing."""
        start = max(last_alive_ms, self.started_ms)
        stop = min(now_ms, max(start, self.ends_at))
        return replace(self, downtime_ms=self.downtime_ms + max(0, stop - start))

    def to_json(self) -> dict[str, int]:
        return {
            "started_ms": self.started_ms,
            "length_ms": self.length_ms,
            "warning_ms": self.warning_ms,
            "downtime_ms": self.downtime_ms,
            "warning_at": self.warning_at,
            "ends_at": self.ends_at,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> RoundClock:
        return RoundClock(
            int(data["started_ms"]), int(data["length_ms"]), int(data["warning_ms"]), int(data["downtime_ms"])
        )


class EndReason(StrEnum):
    """Why a tournament table ended (§9.3)."""

    LAST_DEAL = "last_deal"  # the 4 more deals after the announcement were played
    STRAGGLER = "straggler"  # it missed the announcement; every other table had ended
    OTHER = "other"  # a timeout, a judge's stop or a fault ended the pulya (§7.7)


@dataclass(frozen=True, slots=True)
class TableEnd:
    """Where one table stands on the way to the round's end."""

    seats: int
    first_dealer: int
    last_deal: int | None = None  # the deal after which the table ends (announced)
    missed: bool = False  # did not hear the announcement (§9.3)
    ended: EndReason | None = None

    @property
    def announced(self) -> bool:
        return self.last_deal is not None

    @property
    def last_dealer(self) -> int | None:
        """The seat marked on the sheet as the last dealer («галочкой»)."""
        if self.last_deal is None:
            return None
        return dealer_of(self.first_dealer, self.seats, self.last_deal)

    def announce(self, deal_number: int) -> TableEnd:
        """The announcement heard while deal ``deal_number`` is in progress, or after it ended and before
        the next is dealt (0: before the first deal): the table plays 4 more deals after it."""
        if self.ended is not None or self.announced:
            raise RoundEndError("the table has already heard the announcement or ended")
        return replace(self, last_deal=deal_number + MORE_DEALS, missed=False)

    def miss(self) -> TableEnd:
        """The table could not hear the announcement when it was made (adjourned, waiting for a player)."""
        if self.ended is not None or self.announced:
            raise RoundEndError("the table has already heard the announcement or ended")
        return replace(self, missed=True)

    def ends_after_deal(self, deal_number: int, *, others_ended: bool) -> EndReason | None:
        """Does the table end once deal ``deal_number`` is over (played, voided or archived)?"""
        if self.ended is not None:
            return self.ended
        if self.last_deal is not None and deal_number >= self.last_deal:
            return EndReason.LAST_DEAL
        if self.missed and others_ended:
            return EndReason.STRAGGLER
        return None

    def ends_between_deals(self, *, others_ended: bool) -> EndReason | None:
        """A straggler with no deal in progress (e.g. adjourned) ends at once when the others have."""
        if self.ended is not None:
            return self.ended
        return EndReason.STRAGGLER if self.missed and others_ended else None

    def end(self, reason: EndReason) -> TableEnd:
        return replace(self, ended=reason)

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": self.seats,
            "first_dealer": self.first_dealer,
            "last_deal": self.last_deal,
            "last_dealer": self.last_dealer,
            "missed": self.missed,
            "ended": None if self.ended is None else self.ended.value,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> TableEnd:
        last, ended = data.get("last_deal"), data.get("ended")
        return TableEnd(
            int(data["seats"]),
            int(data["first_dealer"]),
            None if last is None else int(last),
            bool(data.get("missed", False)),
            None if ended is None else EndReason(ended),
        )
