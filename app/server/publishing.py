"""Sending a table to its connections: each viewer its own view (RULES.md §12), under one version.

Every connection gets every version (an update may carry no event for a viewer who may see none of that
step's events), so a gap always means a lost frame. The update for one viewer kind (a seat, or the
spectators) is built once and sent to every connection of that kind.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.engine.events import Event
from app.engine.views import view
from app.protocol.messages import (
    EventFrame,
    GameOutcome,
    PresenceMessage,
    SeatInfo,
    SnapshotMessage,
    UpdateMessage,
)
from app.server.connection import Connection
from app.table import Game


def outcome_message(game: Game | None) -> GameOutcome | None:
    if game is None or game.outcome is None:
        return None
    return GameOutcome(reason=game.outcome.termination.value, settlement=game.outcome.settlement)


def _view(game: Game | None, seat: int | None) -> dict[str, Any] | None:
    return None if game is None else view(game.state, seat)


def _clock(game: Game | None, now_ms: int) -> dict[str, Any] | None:
    return None if game is None else game.clock.snapshot(now_ms)


def _legal(game: Game | None, seat: int | None) -> list[dict[str, Any]]:
    return [] if game is None else [a.to_json() for a in game.legal(seat)]


def publish_update(
    connections: Iterable[Connection],
    *,
    table_id: int,
    version: int,
    status: str,
    game: Game | None,
    events: Iterable[Event],
    sheet_changed: bool,
    now_ms: int,
    actions: int,
) -> None:
    """Send one stored step to every open connection, filtered for its viewer.

    The score sheet (which grows with every deal) goes out only when it changed or the game is over.
    """
    events = list(events)
    sheet = None
    if game is not None and (sheet_changed or game.is_over):
        sheet = game.sheet.to_json()
    clock = _clock(game, now_ms)
    outcome = outcome_message(game)
    built: dict[int | None, UpdateMessage] = {}
    for conn in list(connections):
        if conn.closed.is_set():
            continue
        seat = conn.seat
        message = built.get(seat)
        if message is None:
            visible = [
                EventFrame(kind=e.kind, data=e.data)
                for e in events
                if e.visible_to is None or (seat is not None and seat in e.visible_to)
            ]
            message = built[seat] = UpdateMessage(
                table=table_id,
                v=version,
                status=status,
                events=visible,
                view=_view(game, seat),
                clock=clock,
                legal=_legal(game, seat),
                sheet=sheet,
                outcome=outcome,
                actions=actions,
            )
        conn.send(message)


def send_snapshot(
    conn: Connection,
    *,
    table_id: int,
    version: int,
    status: str,
    seats: list[SeatInfo],
    game: Game | None,
    last_seq: int,
    now_ms: int,
    actions: int,
) -> None:
    seat = conn.seat
    conn.send(
        SnapshotMessage(
            table=table_id,
            v=version,
            status=status,
            seat=seat,
            seats=seats,
            view=_view(game, seat),
            clock=_clock(game, now_ms),
            legal=_legal(game, seat),
            sheet=None if game is None else game.sheet.to_json(),
            outcome=outcome_message(game),
            last_seq=last_seq,
            actions=actions,
        )
    )


def publish_presence(connections: Iterable[Connection], table_id: int, seats: list[SeatInfo]) -> None:
    message = PresenceMessage(table=table_id, seats=seats)
    for conn in list(connections):
        conn.send(message)
