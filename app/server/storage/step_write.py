"""`StepWrite`: the rows and table fields of one table step, committed in one transaction.

A step's write lives until its batch is committed, tens of milliseconds under load, so the cycle collector
meets it in its young generation (issue 24): what it holds is kept to few tracked objects. The JSON
columns every step writes (the action, its clocks, the table's clock) are encoded here, at once, into
untracked `orjson.Fragment`s (the writer's JSON serializer, `app.db.engine`, passes a fragment through as
it is), not kept as trees of dicts and lists; the rows a step seldom writes are tuples, empty by default
(a list is tracked even when empty; a tuple grows by ``+=`` the few times it does).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from app.table import Game, Step

Rows = tuple[dict[str, Any], ...]


def encoded(value: Any) -> orjson.Fragment:
    """``value`` as the JSON a column stores, encoded now (`app.db.engine`'s serializer writes it as is)."""
    return orjson.Fragment(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))


@dataclass(slots=True)
class StepWrite:
    """What one step writes: rows to insert and table fields to set, committed in one transaction."""

    actions: list[dict[str, Any]] = field(default_factory=list)
    deals: Rows = ()
    interrupted: Rows = ()
    seats: Rows = ()
    table: dict[str, Any] = field(default_factory=dict)
    seat_removed: int | None = None
    seat_seq: tuple[int, int] | None = None  # (seat, client seq) applied by this step
    adjudications: dict[int, dict[str, Any]] = field(default_factory=dict)  # archive row id -> award
    # The award's entry in the deal's history of awards and its audit line: stored with the award itself.
    award_rows: Rows = ()
    audit_rows: Rows = ()
    # A judge's sanction stored with the sheet line it wrote; a revocation's marks (sanction id -> fields).
    sanction_rows: Rows = ()
    sanction_revocations: dict[int, dict[str, Any]] = field(default_factory=dict)
    # RULES §7.7: seats whose holder changes ({table_id, seat, user_id, after_deal}) and first holders.
    substitutions: Rows = ()
    holders: Rows = ()
    # RULES §7.7, a fourth joins: the table's seat rows as they now are (all rewritten: seats moved up),
    # the holdings closed at the seats that moved ({table_id, seat, last_deal}) and those opened after.
    reseated: list[dict[str, Any]] | None = None
    holders_closed: Rows = ()
    holders_opened: Rows = ()

    def add_step(
        self,
        table_id: int,
        before: Game | None,
        result: Step,
        *,
        first_seq: int,
        users: Sequence[int | None],
        clock: dict[str, Any],
        client_seq: int | None = None,
    ) -> int:
        """Add a table step's rows (``before``: the game it started from, None for the game's start;
        ``clock``: the game's clock as `clock_record` stores it); returns how many actions it stores (the
        caller advances its action sequence by that after the commit)."""
        game = result.game
        now = time.time()
        sheet_json = None if before is not None and game.sheet is before.sheet else game.sheet.to_json()
        last = len(result.applied) - 1
        for i, applied in enumerate(result.applied):
            by_player = applied.seat is not None
            self.actions.append(
                {
                    "table_id": table_id,
                    "seq": first_seq + i,
                    "action": encoded(applied.action.to_json()),
                    "user_id": users[applied.seat] if applied.seat is not None else None,
                    "client_seq": client_seq if by_player else None,
                    "by_server": not by_player,
                    "at": now,
                    "clock": encoded(applied.clock.to_json()),
                    # The sheet changes only when a deal ends: stored then, not with every card.
                    "sheet": sheet_json if i == last else None,
                }
            )
        for deal in result.deals:
            self.deals += (
                {
                    "table_id": table_id,
                    "deal_number": deal.deal_number,
                    "result": deal.result.to_json(),
                    "record": deal.record,
                    "at": now,
                },
            )
        for record in result.archived:
            self.interrupted += (
                {
                    "table_id": table_id,
                    "deal_number": record.deal_number,
                    "reason": record.reason[:255],
                    "record": record.to_json(),
                    "clock": record.clocks,
                    "at": now,
                },
            )
        self.table["clock"] = encoded(clock)
        if before is None or game.status is not before.status:
            self.table["status"] = game.status.value
        if sheet_json is not None:
            self.table["sheet"] = sheet_json
        if result.started:
            self.table["started_at"] = now
            self.holders += tuple(
                {"table_id": table_id, "seat": seat, "user_id": user, "first_deal": 1}
                for seat, user in enumerate(users)
                if user is not None
            )
        life = game.life_json()
        if before is None or life != before.life_json():
            self.table["life"] = life
        for change in result.substituted:
            self.substitutions += (
                {"table_id": table_id, "seat": change.seat, "user_id": change.substitute.user_id,
                 "after_deal": change.after_deal},
            )  # fmt: skip
        joined = result.joined
        if joined is not None:  # §7.7: a seat's holder row stays with the deals it numbers (old seats)
            after = joined.after_deal
            self.table["seats"] = len(joined.moved) + 1
            for old, new in enumerate(joined.moved):
                user = users[old]
                if new != old and user is not None:
                    self.holders_closed += ({"table_id": table_id, "seat": old, "last_deal": after},)
                    self.holders_opened += (
                        {"table_id": table_id, "seat": new, "user_id": user, "first_deal": after + 1},
                    )
            self.holders_opened += (
                {"table_id": table_id, "seat": joined.seat, "user_id": joined.newcomer.user_id,
                 "first_deal": after + 1},
            )  # fmt: skip
        if game.outcome is not None and (before is None or game.outcome is not before.outcome):
            self.table["finish_reason"] = game.outcome.termination.value
            self.table["settlement"] = game.outcome.settlement_json()
            if before is None or before.outcome is None:
                self.table["finished_at"] = now
        return len(result.applied)
