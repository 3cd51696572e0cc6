"""Sending a table to its connections: each viewer its own view (RULES.md §12), under one version.

Every connection gets every version (an update may carry no event for a viewer who may see none of that
step's events), so a gap always means a lost frame. The update for one kind of viewer (each seat — the
4-seat dealer is a seat — and the spectators) is built and encoded once (orjson), and the same text goes
to every connection of that kind. What every viewer's update has in common — the public part of the view
(`public_view`: no hand, no discard), the clocks, the sheet, the outcome — is built once per version and
only the viewer's own part (his events, hands, legal actions) per viewer kind.

A snapshot (every new connection, every resync) is the dearest frame: its parts that only change with
the table's version — each viewer kind's view and legal actions, and the score sheet with its whole
history — are encoded once and kept (`ViewCache`); only the clocks, the seats and the viewer's ``last_seq``
are encoded per snapshot.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from app.engine.events import Event
from app.engine.scoring import ScoreSheet
from app.engine.views import public_view, viewer_view
from app.protocol.messages import ClockMessage, GameOutcome, PresenceMessage, SeatInfo
from app.server.connections.connection import Connection
from app.table import Game


def outcome_message(game: Game | None) -> GameOutcome | None:
    if game is None or game.outcome is None:
        return None
    return GameOutcome(reason=game.outcome.termination.value, settlement=game.outcome.settlement_json())


def _view(
    game: Game | None, public: dict[str, Any] | None, seat: int | None, legal: list[dict[str, Any]]
) -> dict[str, Any] | None:
    # `legal`: what the table lets this seat do now (nothing once the game is over or its time ran out);
    # the view lists the same. `public`: the game's `public_view`, shared by every viewer's.
    if game is None or public is None:
        return None
    return viewer_view(game.state, public, seat, legal)


def _public(game: Game | None) -> dict[str, Any] | None:
    return None if game is None else public_view(game.state)


def _clock(game: Game | None, now_ms: int) -> dict[str, Any] | None:
    return None if game is None else game.clock.snapshot(now_ms)


def _legal(game: Game | None, seat: int | None) -> list[dict[str, Any]]:
    return [] if game is None else [a.to_json() for a in game.legal(seat)]


def _encode(message: dict[str, Any]) -> str:
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


def _fragment(value: Any) -> orjson.Fragment:
    """``value`` encoded once, to be embedded as it is in the messages built from it."""
    return orjson.Fragment(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))


@dataclass(slots=True)
class ViewCache:
    """A table's encoded parts that change only with its version (or, for the sheet, when it changes)."""

    version: int = -1
    parts: dict[int | None, tuple[orjson.Fragment, orjson.Fragment]] = field(default_factory=dict)
    sheet: ScoreSheet | None = None
    sheet_json: orjson.Fragment | None = None

    def view_and_legal(
        self, version: int, game: Game | None, seat: int | None
    ) -> tuple[orjson.Fragment, orjson.Fragment]:
        if version != self.version:
            self.version = version
            self.parts.clear()
        parts = self.parts.get(seat)
        if parts is None:
            # The version's public view is built again for each kind of viewer that asks for a snapshot,
            # not kept from its update: kept, every table's would live as long as its version, scanned by
            # the cycle collector twice for every move (a few dozen dicts and lists each), for snapshots
            # that come seldom (a new socket, a resync) and then once per kind of viewer (issue 24).
            legal = _legal(game, seat)
            parts = self.parts[seat] = (
                _fragment(_view(game, _public(game), seat, legal)),
                _fragment(legal),
            )
        return parts

    def sheet_of(self, game: Game | None) -> orjson.Fragment | None:
        if game is None:
            return None
        if self.sheet is not game.sheet or self.sheet_json is None:
            self.sheet = game.sheet
            self.sheet_json = _fragment(game.sheet.to_json())
        return self.sheet_json


@dataclass(slots=True)
class _Shared:
    """One version's parts common to every viewer's update."""

    table_id: int
    version: int
    status: str
    game: Game | None
    events: list[Event]
    public: dict[str, Any] | None
    clock: orjson.Fragment
    sheet: dict[str, Any] | orjson.Fragment | None
    outcome: orjson.Fragment
    actions: int
    life: orjson.Fragment
    # The seat the table waits for and what it may do, found once for the version (every other viewer
    # may do nothing now): asked per viewer, the engine found the seat to act once for each (issue 24).
    acting: int | None
    acting_legal: list[dict[str, Any]]


def update_text(shared: _Shared, seat: int | None) -> str:
    """The `UpdateMessage` for viewer ``seat`` (None: a spectator), encoded: the same JSON as
    ``UpdateMessage(...).model_dump_json()``, built without a model per frame."""
    visible = [
        {"kind": e.kind, "data": e.data}
        for e in shared.events
        if e.visible_to is None or (seat is not None and seat in e.visible_to)
    ]
    game = shared.game
    legal = shared.acting_legal if seat is not None and seat == shared.acting else []
    message = {
        "type": "update",
        "table": shared.table_id,
        "v": shared.version,
        "status": shared.status,
        "events": visible,
        "view": _view(game, shared.public, seat, legal),
        "clock": shared.clock,
        "legal": legal,
        "sheet": shared.sheet,
        "outcome": shared.outcome,
        "actions": shared.actions,
        "life": shared.life,
    }
    return _encode(message)


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
    cache: ViewCache | None = None,
) -> None:
    """Send one stored step to every open connection, filtered for its viewer.

    The score sheet (which grows with every deal) goes out only when it changed or the game is over.
    """
    sheet: dict[str, Any] | orjson.Fragment | None = None
    if game is not None and (sheet_changed or game.is_over):
        sheet = game.sheet.to_json() if cache is None else cache.sheet_of(game)
    outcome = outcome_message(game)
    acting = None if game is None else game.to_act()
    shared = _Shared(
        table_id=table_id,
        version=version,
        status=status,
        game=game,
        events=list(events),
        public=_public(game),
        clock=_fragment(_clock(game, now_ms)),
        sheet=sheet,
        outcome=_fragment(None if outcome is None else outcome.model_dump(mode="json")),
        actions=actions,
        life=_fragment(None if game is None else game.life_json()),
        acting=acting,
        acting_legal=_legal(game, acting),
    )
    if cache is not None and cache.version != version:  # the last version's snapshot parts go now
        cache.version = version
        cache.parts.clear()
    built: dict[int | None, str] = {}
    for conn in list(connections):
        if conn.closed.is_set():
            continue
        seat = conn.seat
        text = built.get(seat)
        if text is None:
            text = built[seat] = update_text(shared, seat)
        conn.send(text)


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
    cache: ViewCache,
) -> None:
    """The protocol's `SnapshotMessage` for the connection's viewer, encoded from the cached parts."""
    seat = conn.seat
    view_json, legal_json = cache.view_and_legal(version, game, seat)
    outcome = outcome_message(game)
    message = {
        "type": "snapshot",
        "table": table_id,
        "v": version,
        "status": status,
        "seat": seat,
        "seats": [info.model_dump(mode="json") for info in seats],
        "view": view_json,
        "clock": _clock(game, now_ms),
        "legal": legal_json,
        "sheet": cache.sheet_of(game),
        "outcome": None if outcome is None else outcome.model_dump(mode="json"),
        "last_seq": last_seq,
        "actions": actions,
        "life": None if game is None else game.life_json(),
    }
    conn.resync_pending = False
    conn.send(_encode(message))


def publish_presence(connections: Iterable[Connection], table_id: int, seats: list[SeatInfo]) -> None:
    message = PresenceMessage(table=table_id, seats=seats)
    for conn in list(connections):
        conn.send(message)


def publish_clock(
    connections: Iterable[Connection],
    table_id: int,
    version: int,
    game: Game | None,
    now_ms: int,
    *,
    paused: bool,
    reason: str | None,
) -> None:
    """Tell every viewer the clocks stopped or started again without a step (RULES §8.6: the players
    are told both moments). The clocks are public: one text for every connection."""
    message = ClockMessage.model_validate(
        {"table": table_id, "v": version, "paused": paused, "reason": reason, "clock": _clock(game, now_ms)}
    )
    text = message.model_dump_json()
    for conn in list(connections):
        conn.send(text)
