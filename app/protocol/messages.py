"""Websocket messages of one table connection (see docs/protocol.md).

Client → server: ``action`` (with a client sequence number), ``resync``, ``ping``.
Server → client: ``snapshot`` (everything the viewer may see), ``update`` (one versioned step of the
table: its events visible to this viewer and the viewer's new view), ``ack``, ``error``, ``presence``,
``clock`` (the clocks stopped or started again by the server, not by a step), ``pong``. Versions count
the table's steps; every connection sees every version (an update may carry no event for a viewer who
may see none of that step's events), so a gap always means a lost frame.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, WithJsonSchema

from app.protocol.codes import WEBSOCKET_CODES, ErrorCode

# The codes an ``error`` frame may carry, each with its meaning: the schema's ``error_codes``.
ERROR_CODES: Final[dict[str, str]] = {
    code.value: code.meaning for code in ErrorCode if code in WEBSOCKET_CODES
}


# The largest client sequence number: far below the 32-bit column, so a seat can always go on numbering.
MAX_SEQ: Final = 1_000_000_000


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ---- client → server ---------------------------------------------------------------------------------


class ActionMessage(_Message):
    """A game action for the connection's own seat. ``seq`` increases by at least 1 per new command;
    resending a command with the last applied ``seq`` is acknowledged as a duplicate and not applied again."""

    type: Literal["action"]
    seq: int = Field(ge=1, le=MAX_SEQ)
    action: dict[str, Any]


class ResyncMessage(_Message):
    """Ask for a full snapshot (sent by a client that saw a version gap)."""

    type: Literal["resync"]
    v: int | None = None


class PingMessage(_Message):
    type: Literal["ping"]
    id: int | None = None


ClientMessage = Annotated[ActionMessage | ResyncMessage | PingMessage, Field(discriminator="type")]
CLIENT_MESSAGES: Final = (ActionMessage, ResyncMessage, PingMessage)
_CLIENT_ADAPTER: Final = TypeAdapter[ActionMessage | ResyncMessage | PingMessage](ClientMessage)
_CLIENT_TYPES: Final = {"action", "resync", "ping"}


class ProtocolError(Exception):
    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def parse_client_message(text: str) -> ActionMessage | ResyncMessage | PingMessage:
    """Parse one client frame or raise `ProtocolError` with a code from `ERROR_CODES`."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError(ErrorCode.BAD_JSON, "the frame is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_JSON, "the frame must be a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _CLIENT_TYPES:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {str(kind)[:40]!r}")
    try:
        return _CLIENT_ADAPTER.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, f"{where}: {first['msg']}") from None


def action_frame(text: str) -> tuple[int, dict[str, Any]] | None:
    """The ``(seq, action)`` of a well-formed ``action`` frame, parsed without a model (the one frame a
    player sends per move); None for any other frame, or one with any doubt about it — that one goes
    through `parse_client_message`, which accepts and refuses exactly as before. orjson parses only what
    ``json`` parses the same way (it refuses NaN, 2**64 and lone surrogates, which ``json`` takes)."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if type(data) is not dict or len(data) != 3 or data.get("type") != "action":
        return None
    seq, action = data.get("seq"), data.get("action")
    if type(seq) is not int or not 1 <= seq <= MAX_SEQ or type(action) is not dict:
        return None
    return seq, action


# ---- server → client ---------------------------------------------------------------------------------


class SeatInfo(_Message):
    seat: int
    user: str | None
    connected: bool
    robot: str | None = None  # a robot seat: its level (easy, strong, random)


class EventFrame(_Message):
    kind: str
    data: dict[str, Any]


class GameOutcome(_Message):
    """How the game ended: ``reason`` is pool_complete, timeout, interrupted, server_fault or round_end (a
    tournament round, RULES §9.3)."""

    reason: str
    settlement: dict[str, Any] | None = None


class SnapshotMessage(_Message):
    type: Literal["snapshot"] = "snapshot"
    table: int
    v: int
    status: str  # waiting | playing | adjourned | finished | awaiting_adjudication
    seat: int | None  # the viewer's seat; None for a spectator
    seats: list[SeatInfo]
    view: dict[str, Any] | None  # app.engine.view for this viewer; None before the game starts
    clock: dict[str, Any] | None
    legal: list[dict[str, Any]]  # the viewer's legal actions when it is its turn, else empty
    sheet: dict[str, Any] | None
    outcome: GameOutcome | None = None
    last_seq: int = 0  # the last client sequence number applied for this seat
    actions: int = 0  # the length of the table's action log at this version
    # RULES §7.7: the open or agreed proposal and the adjournment (public); None: neither.
    life: dict[str, Any] | None = None


class UpdateMessage(_Message):
    """One step (a player's action with the server's moves that follow it: the next shuffle, automatic
    calls, the robot's cards). ``sheet`` is present only when the score sheet changed (or the game is over).
    ``actions``: the length of the table's action log after this step."""

    type: Literal["update"] = "update"
    table: int
    v: int
    status: str
    events: list[EventFrame]
    view: dict[str, Any] | None
    clock: dict[str, Any] | None
    legal: list[dict[str, Any]]
    sheet: dict[str, Any] | None
    outcome: GameOutcome | None = None
    actions: int = 0
    life: dict[str, Any] | None = None  # as in the snapshot (RULES §7.7)


class AckMessage(_Message):
    type: Literal["ack"] = "ack"
    seq: int
    v: int
    duplicate: bool = False


def ack_text(seq: int, v: int) -> str:
    """``AckMessage(seq=seq, v=v).model_dump_json()`` without building a model: one per accepted action."""
    return f'{{"type":"ack","seq":{int(seq)},"v":{int(v)},"duplicate":false}}'


class ErrorMessage(_Message):
    type: Literal["error"] = "error"
    # Typed, so that no code is sent that `ErrorCode` does not name; a plain string in the schema, whose
    # ``error_codes`` lists the codes with their meanings.
    code: Annotated[ErrorCode, WithJsonSchema({"title": "Code", "type": "string"})]
    message: str
    seq: int | None = None


class PresenceMessage(_Message):
    """Connection status of every seat (not versioned: it is not part of the game)."""

    type: Literal["presence"] = "presence"
    table: int
    seats: list[SeatInfo]


class ClockMessage(_Message):
    """The table's clocks stopped or started without a step (not versioned: ``v`` is the table's current
    version). ``paused``: the clocks stand still; ``reason`` says why (RULES §8.6): ``storage`` (the
    server cannot store: its database is away or hung) or ``reconnect`` (after a restart or a takeover, the
    seat to move has not reconnected yet, at most ``grace`` 10 s). With ``paused`` false the running
    seat's clock runs again from the moment the frame was sent."""

    type: Literal["clock"] = "clock"
    table: int
    v: int
    paused: bool
    reason: Literal["storage", "reconnect"] | None = None
    clock: dict[str, Any] | None


class PongMessage(_Message):
    type: Literal["pong"] = "pong"
    id: int | None = None


class ChatEntry(_Message):
    """One table chat message (issue 22 §4): plain text (never HTML), or a preset's key (``preset``) that
    each page shows in its own language."""

    id: int
    channel: str  # players | spectators
    user: str
    seat: int | None
    text: str
    preset: str | None = None
    at: float


class ChatFrame(_Message):
    """A new chat message at the table, sent only to the connections that may read its channel (the
    spectators' channel never to a seated player) and not to those who muted its writer."""

    type: Literal["chat"] = "chat"
    table: int
    message: ChatEntry


class ChatRemovedFrame(_Message):
    """A moderator removed a message: the page drops it."""

    type: Literal["chat_removed"] = "chat_removed"
    table: int
    id: int


class ChatMutedFrame(_Message):
    """To the muted user: a moderator muted him in this room (``site_wide`` false) or everywhere until
    ``until`` (seconds since the epoch)."""

    type: Literal["chat_muted"] = "chat_muted"
    table: int
    until: float
    site_wide: bool
    reason: str


SERVER_MESSAGES: Final = (
    SnapshotMessage,
    UpdateMessage,
    AckMessage,
    ErrorMessage,
    PresenceMessage,
    ClockMessage,
    PongMessage,
    ChatFrame,
    ChatRemovedFrame,
    ChatMutedFrame,
)


def schema() -> dict[str, Any]:
    """JSON Schema of every client and server message."""
    return {
        "title": "Preferans table protocol",
        "client": {m.__name__: m.model_json_schema() for m in CLIENT_MESSAGES},
        "server": {m.__name__: m.model_json_schema() for m in SERVER_MESSAGES},
        "error_codes": ERROR_CODES,
    }
