"""Where refusals and failures become HTTP responses (their statuses: `app.server.errors.HTTP_STATUS`)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.protocol.codes import ErrorCode
from app.server.errors import HTTP_STATUS, ApiError
from app.server.tables.commands import SeatError
from app.table import TableRefused


def refusal(exc: SeatError | TableRefused) -> ApiError:
    """A table's refusal as a REST caller gets it, the status from `HTTP_STATUS`. A code the table gives
    only to a seat's action has no status there; should one come, the table's state refused it (409)."""
    return ApiError(exc.code, exc.message, status=HTTP_STATUS.get(exc.code, 409))


# The database cannot be reached (refused, reset, timed out, or the driver's connection is unusable): a 503
# to try again, not a 500. A refused statement (an integrity error, say) is not among them.
DATABASE_DOWN: tuple[type[Exception], ...] = (
    OperationalError, InterfaceError, ConnectionError, TimeoutError,
)  # fmt: skip
# The driver's other errors of a database out of reach come as a plain DBAPIError, told by SQLSTATE: class
# 08 (connection exception: "connection was closed in the middle of operation") and 57P (shut down,
# crashed, "the database system is starting up" — all of a restart's recovery).
_DOWN_STATES = ("08", "57P")
DATABASE_RETRY_AFTER = "2"


def database_down(exc: BaseException) -> bool:
    """The database could not be reached, as opposed to refusing a statement (a 500: a bug)."""
    if isinstance(exc, DATABASE_DOWN):
        return True
    if not isinstance(exc, DBAPIError):
        return False
    state = getattr(exc.orig, "sqlstate", None)
    return exc.connection_invalidated or (isinstance(state, str) and state.startswith(_DOWN_STATES))


def database_unavailable() -> JSONResponse:
    return JSONResponse(
        {
            "error": ErrorCode.DATABASE_UNAVAILABLE,
            "message": "the database is unavailable; try again shortly",
        },
        status_code=HTTP_STATUS[ErrorCode.DATABASE_UNAVAILABLE],
        headers={"Retry-After": DATABASE_RETRY_AFTER},
    )


# Starlette's own refusals by status (the reverse of `HTTP_STATUS` for these codes).
HTTP_CODES = {
    HTTP_STATUS[code]: code
    for code in (ErrorCode.BAD_REQUEST, ErrorCode.UNAUTHORIZED, ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND,
                 ErrorCode.METHOD_NOT_ALLOWED, ErrorCode.TOO_LARGE, ErrorCode.UNSUPPORTED_MEDIA_TYPE)
}  # fmt: skip


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        body: dict[str, str] = {"error": exc.code, "message": exc.message}
        if exc.field is not None:
            body["field"] = exc.field
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else {}
        return JSONResponse(body, status_code=exc.status, headers={**headers, **(exc.headers or {})})

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # Starlette's own refusals (no such route, wrong method, unparsable body) in the documented form.
        if exc.status_code == 400 and isinstance(exc.__cause__, RecursionError | ValueError):
            # A body the JSON parser gave up on (nested too deeply) is unparsable like any other: 422, as
            # a syntax error is (docs/protocol.md), not FastAPI's 400 (issue 25).
            message = "body: the body could not be parsed as JSON (nested too deeply?)"
            return JSONResponse(
                {"error": ErrorCode.INVALID_REQUEST, "field": "body", "message": message},
                status_code=HTTP_STATUS[ErrorCode.INVALID_REQUEST],
            )
        fallback = ErrorCode.BAD_REQUEST if exc.status_code < 500 else ErrorCode.SERVER_ERROR
        code = HTTP_CODES.get(exc.status_code, fallback)
        return JSONResponse(
            {"error": code, "message": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers
        )

    async def _database_down(_request: Request, _exc: Exception) -> JSONResponse:
        return database_unavailable()

    for kind in DATABASE_DOWN:
        app.add_exception_handler(kind, _database_down)

    @app.exception_handler(DBAPIError)
    async def _database_error(request: Request, exc: DBAPIError) -> JSONResponse:
        if not database_down(exc):
            raise exc  # a statement the database refused: the 500 with its traceback
        return database_unavailable()

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
        field = ".".join(loc) or "request"
        return JSONResponse(
            {"error": ErrorCode.INVALID_REQUEST, "field": field, "message": f"{field}: {first.get('msg')}"},
            status_code=HTTP_STATUS[ErrorCode.INVALID_REQUEST],
        )
