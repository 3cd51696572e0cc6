"""The wire protocol: pydantic models of every websocket message (``python -m app.protocol schema``) and
`ErrorCode`, every refusal's code (`app.protocol.codes`, importable by the pure packages)."""

from app.protocol.codes import WEBSOCKET_CODES, CloseCode, ErrorCode
from app.protocol.messages import (
    CLIENT_MESSAGES,
    ERROR_CODES,
    SERVER_MESSAGES,
    AckMessage,
    ActionMessage,
    ClientMessage,
    ClockMessage,
    ErrorMessage,
    EventFrame,
    PingMessage,
    PongMessage,
    PresenceMessage,
    ResyncMessage,
    SeatInfo,
    SnapshotMessage,
    UpdateMessage,
    parse_client_message,
    schema,
)

__all__ = [
    "CLIENT_MESSAGES",
    "ERROR_CODES",
    "SERVER_MESSAGES",
    "WEBSOCKET_CODES",
    "AckMessage",
    "ActionMessage",
    "ClientMessage",
    "ClockMessage",
    "CloseCode",
    "ErrorCode",
    "ErrorMessage",
    "EventFrame",
    "PingMessage",
    "PongMessage",
    "PresenceMessage",
    "ResyncMessage",
    "SeatInfo",
    "SnapshotMessage",
    "UpdateMessage",
    "parse_client_message",
    "schema",
]
