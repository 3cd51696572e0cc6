"""`ErrorCode`: every reason the server gives for refusing something, the one list of them.

A refusal reaches a client as ``{"type": "error", "code": CODE}`` on a table's websocket or as
``{"error": CODE}`` with an HTTP status on REST; the value of a member is that string, stable on the wire.
The engine, the table step, the websocket and the routes all raise with a member of this enum, and what is
made from it is never written again: the protocol's JSON Schema (``error_codes``: the members of
`WEBSOCKET_CODES` with their meanings), the HTTP status table (`app.server.errors.HTTP_STATUS`), the code
table of docs/protocol.md (a test compares them).

This module imports nothing but `enum`, so that the pure packages (`app.engine`, `app.table`) can name
their refusals with it; `app.protocol` itself imports nothing else of the app, so no cycle can come of it.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Final


class ErrorCode(StrEnum):
    """A refusal's machine name; ``meaning`` is the one line a client's author reads (the schema's)."""

    meaning: str

    # Each member is (value, meaning): the meaning is written once, beside its code. Lookup by value
    # (``ErrorCode("bad_json")``) works as for any enum: the class then no longer calls this.
    def __new__(cls, value: str, meaning: str) -> ErrorCode:
        member = str.__new__(cls, value)
        member._value_ = value
        member.meaning = meaning
        return member

    # ---- a websocket frame the server could not read
    BAD_JSON = "bad_json", "the frame is not a JSON object"
    UNKNOWN_TYPE = "unknown_type", "the message type is not one the server knows"
    INVALID_MESSAGE = "invalid_message", "a field is missing or has the wrong type"
    FRAME_TOO_LARGE = "frame_too_large", "the frame is larger than the server accepts"
    RATE_LIMITED = "rate_limited", "too many messages; this one was dropped"

    # ---- a seat's action the table refused (nothing changed)
    NOT_SEATED = "not_seated", "only a seated player may act (spectators only watch)"
    NOT_YOUR_SEAT = "not_your_seat", "the action names another seat than the connection's"
    STALE_SEQ = "stale_seq", "the sequence number is not above the last applied one"
    SEQ_REUSED = "seq_reused", "the last applied sequence number was sent again with another action"
    ENGINE_ERROR = "engine_error", "the rules refused the action (no narrower code applies)"
    MALFORMED_ACTION = "malformed_action", "the action could not be parsed"
    NOT_YOUR_TURN = "not_your_turn", "the table waits for another seat"
    ILLEGAL_ACTION = "illegal_action", "the rules forbid this action now"
    GAME_OVER = "game_over", "the game has ended"
    NOT_STARTED = "not_started", "the game has not started (seats are not full)"

    # ---- the table could not do it now (try again)
    SERVER_ERROR = "server_error", "the server could not apply the action; nothing changed"
    CONFLICT = "conflict", "the change collided with one stored meanwhile; nothing changed, try again"
    TABLE_BUSY = "table_busy", "too many commands wait at this table; this one was dropped, try again"
    TABLE_CLOSED = "table_closed", "the table was unloaded before it carried the request out; try again"
    TABLE_ELSEWHERE = "table_elsewhere", "another worker took the table over meanwhile; reconnect"
    MOVED = "moved", "another worker runs the table: the close reason is its websocket URL"
    SERVER_FAULT = "server_fault", "the table's step failed on the request (a bug); nothing changed"

    # ---- who may do what
    UNAUTHORIZED = "unauthorized", "missing, invalid or expired token"
    FORBIDDEN = "forbidden", "the role does not allow this"
    DISABLED = "disabled", "the account is disabled"
    PRIVATE_ROOM = "private_room", "the table's private room is closed to this user as a spectator"
    NOT_INVITED = "not_invited", "a private room seats only its invited players"
    NOT_PRACTICE = (
        "not_practice",
        "the solver's hint is given only at practice tables (rooms whose games are not rated)",
    )
    RATING_OUT_OF_RANGE = (
        "rating_out_of_range",
        "the room seats only players whose rating lies within its limits",
    )
    ANALYSIS_NOT_YET = (
        "analysis_not_yet",
        "the deal's analysis is shown only once the deal (or tournament round) is over",
    )
    ANALYSIS_OVER_BUDGET = (
        "analysis_over_budget",
        "the solver cannot analyse this deal within its node budget (it never will with this budget)",
    )
    NOT_FOUND = "not_found", "no such table"
    TOO_MANY_CONNECTIONS = "too_many_connections", "the user or the table has as many connections as allowed"

    # ---- seats (before the game starts)
    GAME_STARTED = "game_started", "the game has started: seats are fixed"
    ALREADY_SEATED = "already_seated", "the user already sits at this table"
    TABLE_FULL = "table_full", "no free seat"
    SEAT_TAKEN = "seat_taken", "the seat asked for is taken"
    BAD_SEAT = "bad_seat", "no such seat at this table"
    TOO_MANY_SEATS = "too_many_seats", "the user holds as many seats at waiting tables as allowed"

    # ---- the lobby and accounts
    ROOM_CLOSED = "room_closed", "the room is closed: it opens no more tables"
    TOO_MANY_TABLES = "too_many_tables", "the room's operator has as many unfinished tables as allowed"
    INVITE_REVOKED = "invite_revoked", "the invite link was revoked"
    INVALID_ACCOUNT = "invalid_account", "the name or password breaks the rules, or the name is taken"
    INVALID_CONVENTION = "invalid_convention", "a convention's value is invalid (``field`` names it)"
    UNKNOWN_USER = "unknown_user", "no user by that name"

    # ---- table chat (issue 22 §4)
    CHAT_CLOSED = "chat_closed", "the players' chat of this room is closed until the deal ends"
    CHAT_MUTED = "chat_muted", "a moderator muted the user in this room or site-wide until a time"
    INVALID_CHAT = "invalid_chat", "the chat message is empty, too long or an unknown preset"
    UNKNOWN_MESSAGE = "unknown_message", "no chat message by that id at a table the user may read"

    # ---- adjudication and sanctions (administrators)
    NOT_PLAYING = "not_playing", "no game is running (or was played) at this table"
    UNKNOWN_TABLE = "unknown_table", "no table by that id"
    UNKNOWN_DEAL = "unknown_deal", "no interrupted deal by that id"
    NOT_PENDING = "not_pending", "the deal awaits no award"
    ALREADY_ADJUDICATED = "already_adjudicated", "the deal has been awarded: revise it instead"
    NOT_AWARDED = "not_awarded", "the deal has no award to revise"
    INVALID_AWARD = "invalid_award", "the award does not fit the deal or the table's conventions"
    AWARD_ENDS_PULYA = "award_ends_pulya", "the award would complete the pulya in the middle of a deal"
    INVALID_SANCTION = "invalid_sanction", "the sanction does not fit the table's sheet"
    SANCTION_ENDS_PULYA = "sanction_ends_pulya", "the entry would complete the pulya in the middle of a deal"
    UNKNOWN_SANCTION = "unknown_sanction", "no sanction by that id"
    ALREADY_REVOKED = "already_revoked", "the sanction has been revoked"
    # §7.7: proposals, adjournment, substitutes
    PROPOSAL_OPEN = "proposal_open", "another proposal is open at this table"
    NO_PROPOSAL = "no_proposal", "no proposal awaits this answer or withdrawal"
    PROPOSAL_AGREED = "proposal_agreed", "an accepted proposal cannot be withdrawn"
    INVALID_PROPOSAL = "invalid_proposal", "the proposal does not fit the table (``field`` names it)"
    ADJOURNED = "adjourned", "the game is adjourned: nothing can be played until it resumes"
    NOT_ADJOURNED = "not_adjourned", "the game is not adjourned"
    TOURNAMENT_TABLE = "tournament_table", "a tournament table takes no proposals from players"
    NO_FOURTH = "no_fourth", "the table's conventions let no fourth player join (``fourth_may_join`` is off)"

    # ---- tournaments (RULES.md §9)
    TOURNAMENT_STATE = "tournament_state", "the tournament's stage does not allow this now"
    INVALID_DRAW = "invalid_draw", "the registered players cannot be seated (too few)"
    INVALID_JUDGING = "invalid_judging", "the decision or appeal breaks §9.5 (the message says which rule)"
    TOURNAMENT_ONE_WORKER = "tournament_one_worker", "tournaments run on a server of one worker process only"
    ROUND_NOT_SEATED = (
        "round_not_seated",
        "the round's tables could not be seated; it was undone and may be drawn again",
    )

    # ---- HTTP itself (the framework's and the middleware's refusals)
    BAD_REQUEST = "bad_request", "the request could not be read"
    INVALID_REQUEST = "invalid_request", "a field of the request is invalid (``field`` names it)"
    METHOD_NOT_ALLOWED = "method_not_allowed", "the route does not take this method"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type", "the body is not of a type the route reads"
    TOO_LARGE = "too_large", "the request body is larger than the server accepts"
    TIMEOUT = "timeout", "the request body did not arrive in time"
    BUSY = "busy", "the server is busy with others of this kind; try again shortly"
    DATABASE_UNAVAILABLE = "database_unavailable", "the database cannot be reached; try again shortly"
    OWNER_UNAVAILABLE = "owner_unavailable", "the worker that runs the table did not answer; try again"


# The codes an ``error`` frame of a table's websocket may carry (the schema's ``error_codes``); every
# other code is answered on REST only. A frame sent with a code outside this set is a bug in the set.
WEBSOCKET_CODES: Final = frozenset(
    {
        ErrorCode.BAD_JSON, ErrorCode.UNKNOWN_TYPE, ErrorCode.INVALID_MESSAGE, ErrorCode.FRAME_TOO_LARGE,
        ErrorCode.RATE_LIMITED,
        ErrorCode.NOT_SEATED, ErrorCode.NOT_YOUR_SEAT, ErrorCode.STALE_SEQ, ErrorCode.SEQ_REUSED,
        ErrorCode.ENGINE_ERROR, ErrorCode.MALFORMED_ACTION, ErrorCode.NOT_YOUR_TURN, ErrorCode.ILLEGAL_ACTION,
        ErrorCode.GAME_OVER, ErrorCode.NOT_STARTED,
        # An action's commit: the database down (server_error) or a key taken meanwhile (conflict).
        ErrorCode.SERVER_ERROR, ErrorCode.CONFLICT, ErrorCode.TABLE_BUSY,
        # Sent once before the server closes the socket (or on a live one whose authority ended).
        ErrorCode.UNAUTHORIZED, ErrorCode.FORBIDDEN, ErrorCode.PRIVATE_ROOM, ErrorCode.NOT_FOUND,
        ErrorCode.TOO_MANY_CONNECTIONS, ErrorCode.MOVED, ErrorCode.TABLE_ELSEWHERE,
    }
)  # fmt: skip


class CloseCode(IntEnum):
    """The codes a table's websocket is closed with, the one list of them (docs/protocol.md explains each).

    The refusals that close a socket send their `ErrorCode` first; the close code tells a client whether
    to come back: never after `UNAUTHORIZED`/`FORBIDDEN`/`NOT_FOUND`, at once to the named worker after
    `MOVED`, after a pause after `POLICY` or `TRY_AGAIN`."""

    meaning: str

    def __new__(cls, value: int, meaning: str) -> CloseCode:
        member = int.__new__(cls, value)
        member._value_ = value
        member.meaning = meaning
        return member

    UNAUTHORIZED = 4401, "the token is missing, invalid, expired or revoked"
    FORBIDDEN = 4403, "another origin, or a private room closed to this spectator"
    NOT_FOUND = 4404, "no such table"
    MOVED = 4307, "another worker runs the table: the close reason is its websocket URL"
    POLICY = 1008, "too many connections, or a client that keeps flooding"
    TRY_AGAIN = 1013, "the server is busy, the table moved meanwhile, or the client did not read its frames"
