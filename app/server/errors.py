"""The server's typed refusals: what a caller is told, with the HTTP status it maps to.

`HTTP_STATUS` is the one table of statuses: every `ErrorCode` that a REST call can answer has its status
here (the others are in `WEBSOCKET_CODES` only: a test checks that each code is in one or the other). An
`ApiError` takes its status from it; the few calls that answer one code with another status say so where
they raise it, with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from app.protocol.codes import ErrorCode

HTTP_STATUS: Final[Mapping[ErrorCode, int]] = {
    ErrorCode.BAD_REQUEST: 400,
    ErrorCode.UNAUTHORIZED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.DISABLED: 403,
    ErrorCode.PRIVATE_ROOM: 403,
    ErrorCode.NOT_INVITED: 403,
    ErrorCode.RATING_OUT_OF_RANGE: 403,
    ErrorCode.NOT_PRACTICE: 403,
    ErrorCode.ANALYSIS_NOT_YET: 409,
    ErrorCode.ANALYSIS_OVER_BUDGET: 422,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.TIMEOUT: 408,
    ErrorCode.INVITE_REVOKED: 410,
    ErrorCode.TOO_LARGE: 413,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: 415,
    ErrorCode.RATE_LIMITED: 429,
    # The request is well-formed but names something that does not fit (``field`` says what).
    ErrorCode.INVALID_REQUEST: 422,
    ErrorCode.INVALID_ACCOUNT: 422,
    ErrorCode.INVALID_CONVENTION: 422,
    ErrorCode.UNKNOWN_USER: 422,
    ErrorCode.UNKNOWN_TABLE: 422,
    ErrorCode.UNKNOWN_DEAL: 422,
    ErrorCode.UNKNOWN_SANCTION: 422,
    ErrorCode.ALREADY_REVOKED: 422,
    ErrorCode.ALREADY_ADJUDICATED: 422,
    ErrorCode.INVALID_AWARD: 422,
    ErrorCode.INVALID_SANCTION: 422,
    ErrorCode.BAD_SEAT: 422,
    ErrorCode.INVALID_PROPOSAL: 422,
    ErrorCode.INVALID_CHAT: 422,
    ErrorCode.UNKNOWN_MESSAGE: 404,
    ErrorCode.CHAT_MUTED: 403,
    # The request is fine but the table's (or the room's) state refuses it now.
    ErrorCode.GAME_STARTED: 409,
    ErrorCode.ALREADY_SEATED: 409,
    ErrorCode.TABLE_FULL: 409,
    ErrorCode.TOO_MANY_SEATS: 409,
    ErrorCode.SEAT_TAKEN: 409,
    ErrorCode.NOT_SEATED: 409,
    ErrorCode.NOT_YOUR_TURN: 409,  # a practice hint asked while the table waits for another seat
    ErrorCode.NOT_STARTED: 409,
    ErrorCode.NOT_PLAYING: 409,
    ErrorCode.GAME_OVER: 409,
    ErrorCode.NOT_PENDING: 409,
    ErrorCode.NOT_AWARDED: 409,
    ErrorCode.AWARD_ENDS_PULYA: 409,
    ErrorCode.SANCTION_ENDS_PULYA: 409,
    ErrorCode.ROOM_CLOSED: 409,
    ErrorCode.TOURNAMENT_STATE: 409,
    ErrorCode.INVALID_DRAW: 422,
    ErrorCode.INVALID_JUDGING: 422,
    ErrorCode.TOURNAMENT_ONE_WORKER: 409,
    ErrorCode.ROUND_NOT_SEATED: 503,
    ErrorCode.TOO_MANY_TABLES: 409,
    ErrorCode.CHAT_CLOSED: 409,
    ErrorCode.CONFLICT: 409,
    ErrorCode.PROPOSAL_OPEN: 409,
    ErrorCode.NO_PROPOSAL: 409,
    ErrorCode.PROPOSAL_AGREED: 409,
    ErrorCode.ADJOURNED: 409,
    ErrorCode.NOT_ADJOURNED: 409,
    ErrorCode.TOURNAMENT_TABLE: 403,
    ErrorCode.NO_FOURTH: 403,
    # A bug in the table's step: nothing changed and the game goes on.
    ErrorCode.SERVER_FAULT: 500,
    # Try again (most with Retry-After).
    ErrorCode.SERVER_ERROR: 503,
    ErrorCode.BUSY: 503,
    ErrorCode.TABLE_BUSY: 503,
    ErrorCode.TABLE_CLOSED: 503,
    ErrorCode.TABLE_ELSEWHERE: 503,
    ErrorCode.OWNER_UNAVAILABLE: 503,
    ErrorCode.DATABASE_UNAVAILABLE: 503,
}


class ApiError(Exception):
    """A REST refusal: the body ``{"error": code, "message": message, "field": field?}`` with the code's
    status from `HTTP_STATUS` (``status`` only where one call answers the code otherwise)."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        field: str | None = None,
        *,
        status: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = HTTP_STATUS[code] if status is None else status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers


class TableElsewhere(ApiError):
    def __init__(self, table_id: int) -> None:
        super().__init__(
            ErrorCode.TABLE_ELSEWHERE,
            f"table {table_id} is run by another worker; try again",
            headers={"Retry-After": "1"},
        )
