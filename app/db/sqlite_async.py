"""SQLite under the async ORM with one hand-over to the connection's thread per statement (issue 24).

SQLAlchemy's aiosqlite adapter hands every DB-API call to aiosqlite's thread and waits for it on the
event loop: a cursor, the statement, its rows, the cursor's close, and the rollback that ends every
session, five round trips between the loop and the thread for a read by primary key. Each costs the loop
a future, a wake-up through its self-pipe and a turn, and the thread the interpreter back; every REST
request on SQLite reads through such sessions (`bench/sqlite_reads.py` measures a session's read both
ways).

Here a statement is one hand-over: the thread makes the cursor, runs it, takes its rows, description,
row count and last row id and closes it, all in one call. A rollback or commit with no transaction open
(every session that only read: the legacy isolation of Python's `sqlite3` opens one only before a
write) goes nowhere: it would do nothing there either, unless a statement is still running on the
thread (its waiter cancelled: a request that went away), when it goes behind it as before. What runs on
the thread, in what order, on what connection, is what aiosqlite ran before; only the waits between the
calls are gone.

Server-side cursors (``stream()``, none on SQLite in the server) stay the stock adapter's, a hand-over
per call, and are not counted: a streamed write whose waiter was cancelled could have its rollback
skipped; use a buffered result for writes.

Built on aiosqlite's own queue (``Connection._execute``, the call its public methods make), through the
dialect's documented ``module`` argument (`app.db.engine.make_engine`); `tests/server/test_sqlite_one_hop.py`
checks this adapter against what the driver's own does.
"""

from __future__ import annotations

import collections
import sqlite3
from typing import Any, cast

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.util.concurrency import await_

# What a statement leaves behind: its description, row count, last row id and rows.
_Ran = tuple[Any, int, int | None, list[Any]]


def _run(owner: OneHopConnection, operation: str, parameters: Any, many: bool) -> _Ran:
    """On the connection's thread: one statement from cursor to close."""
    try:
        cursor = owner._connection._conn.cursor()
        try:
            if many:
                cursor.executemany(operation, parameters)
            elif parameters is None:
                cursor.execute(operation)
            else:
                cursor.execute(operation, parameters)
            description = cursor.description
            rows = cursor.fetchall() if description else []
            return description, cursor.rowcount, cursor.lastrowid, rows
        finally:
            cursor.close()
    finally:
        owner._done += 1  # written by this thread only, ``_queued`` by the loop's only


class OneHopCursor(AsyncAdapt_aiosqlite_cursor):
    """A buffered cursor whose statement is one call on the connection's thread."""

    __slots__ = ("_description", "_lastrowid", "_rowcount")

    def __init__(self, adapt_connection: Any) -> None:
        # No cursor on the thread until a statement runs (the base class would make one: a round trip).
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._cursor = None  # type: ignore[assignment]
        self._soft_closed_memoized = {}  # type: ignore[assignment]
        self._rows = collections.deque()
        self._description: Any = None
        self._rowcount = -1
        self._lastrowid: int | None = None

    @property
    def description(self) -> Any:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> int:
        return self._lastrowid  # type: ignore[return-value]

    @property
    def arraysize(self) -> int:
        return 1

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        return None

    async def _async_soft_close(self) -> None:
        return None  # nothing open on the thread: the rows and description are already here

    def close(self) -> None:
        self._rows.clear()

    def execute(self, operation: Any, parameters: Any = None) -> Any:
        try:
            return await_(self._ran(operation, parameters, False))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    def executemany(self, operation: Any, seq_of_parameters: Any) -> Any:
        try:
            return await_(self._ran(operation, seq_of_parameters, True))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    async def _ran(self, operation: Any, parameters: Any, many: bool) -> None:
        connection: aiosqlite.Connection = self._connection  # type: ignore[assignment]
        owner = cast(OneHopConnection, self._adapt_connection)
        async with owner._execute_mutex:
            if connection._running and connection._connection is not None:
                owner._queued += 1  # else `_execute` refuses it at once, queueing nothing
            ran: _Ran = await connection._execute(_run, owner, operation, parameters, many)  # type: ignore[no-untyped-call]
        self._description, self._rowcount, self._lastrowid, rows = ran
        self._rows = collections.deque(rows)

    def nextset(self) -> None:
        return None

    def setinputsizes(self, *inputsizes: Any) -> None:
        return None


class OneHopConnection(AsyncAdapt_aiosqlite_connection):
    # Statements handed to the thread and statements it finished: a statement whose waiter was cancelled
    # (a request that went away) runs on, and only the thread's queue orders what comes after it.
    __slots__ = ("_done", "_queued")

    _cursor_cls = OneHopCursor

    def __init__(self, dbapi: Any, connection: Any) -> None:
        super().__init__(dbapi, connection)
        self._queued = 0
        self._done = 0

    def _idle(self) -> bool:
        """No statement of this connection still on the thread, and no transaction open (nothing written
        since the last end of one): then a rollback or commit would do nothing there."""
        connection: aiosqlite.Connection = self._connection  # type: ignore[assignment]
        if self._queued != self._done or connection._connection is None:
            return False  # queued behind what still runs, as aiosqlite's own call is
        try:
            return not connection._conn.in_transaction
        except Exception:  # closing meanwhile: the driver's own call says so, through the usual errors
            return False

    def rollback(self) -> None:
        if not self._idle():
            super().rollback()

    def commit(self) -> None:
        if not self._idle():
            super().commit()


class OneHopDBAPI(AsyncAdapt_aiosqlite_dbapi):
    """The aiosqlite DB-API module with `OneHopConnection`s: pass as ``module=`` to the engine."""

    def connect(self, *arg: Any, **kw: Any) -> OneHopConnection:
        adapted = super().connect(*arg, **kw)
        return OneHopConnection(self, adapted._connection)


def one_hop_dbapi() -> OneHopDBAPI:
    return OneHopDBAPI(aiosqlite, sqlite3)
