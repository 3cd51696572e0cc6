"""The one place where server-side failures become HTTP 4xx responses."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.server.errors import ApiError

SEAT_ERROR_STATUS = {
    "game_started": 409,
    "already_seated": 409,
    "table_full": 409,
    "seat_taken": 409,
    "bad_seat": 422,
    "not_seated": 409,
    "not_playing": 409,
    "not_pending": 409,
    "award_ends_pulya": 409,
    "table_closed": 503,
    "table_busy": 503,
    "conflict": 409,
    "server_fault": 500,
    "server_error": 503,
}


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
        {"error": "database_unavailable", "message": "the database is unavailable; try again shortly"},
        status_code=503,
        headers={"Retry-After": DATABASE_RETRY_AFTER},
    )


HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
              405: "method_not_allowed", 413: "too_large", 415: "unsupported_media_type"}  # fmt: skip


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
        code = HTTP_CODES.get(exc.status_code, "bad_request" if exc.status_code < 500 else "server_error")
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
            {"error": "invalid_request", "field": field, "message": f"{field}: {first.get('msg')}"},
            status_code=422,
        )
