"""A batch on PostgreSQL through asyncpg, straight on the driver's connection, in one round trip where it can.

SQLAlchemy's execution of a batch (its greenlet, the compiled cache, the parameters row by row, a result for
each statement) and a round trip to the server for each of BEGIN, every statement and COMMIT cost the event
loop about a millisecond a batch, on the loop itself (issue 24; the SQLite writer runs in a thread of its
own). Here the kept statements (`batch.prepared_statement`, compiled once with the parameters through their
types' bind processors as SQLAlchemy would) go to asyncpg directly:

- a batch of inserts and of the updates declared in `batch.KEYED` — what every move writes (its action
  rows, the seat's number, the table's fields), the deals it ends, the heartbeat — is one statement, each
  part a data-modifying ``WITH`` query over arrays of its rows' values (``unnest``): one round trip, in the
  statement's own transaction (`combined`);
- any other batch of kept statements is an ``executemany`` each (its rows in one round trip) in a
  transaction;
- a batch with a statement that needs SQLAlchemy's own execution, or with a fence (several workers), is left
  to SQLAlchemy (`run_asyncpg` answers False).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Executable, Insert
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from app.server.storage.batch import KEYED, Fence, Prepared, prepared_statement

# A parameter's cast as asyncpg's compiler renders it (``$3::JSON``, ``$1::VARCHAR(40)``), and what may
# follow it; a type of several words (``DOUBLE PRECISION``) is not read, and its statement not unnested.
_CAST = re.compile(r"\$(\d+)::([A-Z][A-Z0-9_]*(?:\(\d+(?:, *\d+)?\))?)(?=$|[,)]| WHERE | AND )")


@dataclass(frozen=True, slots=True)
class _Unnested:
    """A kept statement as the body of a ``WITH`` query over one array per parameter: ``head``, then
    ``unnest`` of the arrays (typed as the statement's parameters are), then ``tail``."""

    head: str
    types: tuple[str, ...]
    tail: str
    # An UPDATE: its table and the positions of its key parameters. No two rows of one statement may update
    # the same row (PostgreSQL applies one of them), in one part or in two (a table's fields in two shapes).
    table: str = ""
    keys: tuple[int, ...] = ()

    def body(self, first: int) -> str:
        arrays = ", ".join(f"${first + i}::{t}[]" for i, t in enumerate(self.types))
        return f"{self.head}unnest({arrays}){self.tail}"


_UNNESTED: dict[tuple[Executable, str], _Unnested | None] = {}


def _unnested(statement: Executable, prepared: Prepared) -> _Unnested | None:
    key = (statement, prepared.sql)
    if key not in _UNNESTED:
        _UNNESTED[key] = _unnest(statement, prepared.sql, prepared.names)
    return _UNNESTED[key]


def _unnest(statement: Executable, sql: str, names: tuple[str, ...]) -> _Unnested | None:
    """An INSERT of rows (any table's: the action rows every move, a deal's row every deal's end) and the
    UPDATEs of `batch.KEYED`, every parameter cast to its type (asyncpg's compiler renders the casts); None
    for any other statement. Only the action rows' INSERT was, at first: a batch with a deal's end went
    statement by statement, a round trip each (BEGIN, every statement, COMMIT) on the loop (issue 24)."""
    casts = _CAST.findall(sql)
    types = tuple(t for _, t in casts)
    if [int(n) for n, _ in casts] != list(range(1, len(names) + 1)) or sql.count("::") != len(casts):
        return None
    if isinstance(statement, Insert):
        head, found, values = sql.rpartition(" VALUES ")
        expected = "(" + ", ".join(f"${i + 1}::{t}" for i, t in enumerate(types)) + ")"
        if not found or values != expected:
            return None
        return _Unnested(f"{head} SELECT * FROM ", types, "")
    keyed = KEYED.get(statement)
    if keyed is None or not keyed.covers(names):
        return None
    head = f'UPDATE "{keyed.table}" SET {keyed.sets_from("x", names)} FROM '
    tail = f" AS x({keyed.aliases(names)}) WHERE {keyed.join('x', names)}"
    return _Unnested(head, types, tail, keyed.table, keyed.positions(names))


def combined(parts: list[tuple[_Unnested, list[tuple[Any, ...]]]]) -> tuple[str, list[list[Any]]] | None:
    """One statement for the parts (each a statement's form and its rows): ``WITH`` one query per part,
    its arguments an array per parameter, the parts in a fixed order (fewer texts for asyncpg to prepare
    and keep). None where two rows would update the same row (`_Unnested.keys`)."""
    updated: set[tuple[Any, ...]] = set()
    for form, rows in parts:
        for row in rows if form.keys else ():
            key = (form.table, *(row[i] for i in form.keys))
            if key in updated:
                return None
            updated.add(key)
    bodies: list[str] = []
    arguments: list[list[Any]] = []
    for i, (form, rows) in enumerate(sorted(parts, key=lambda part: part[0].head + part[0].tail)):
        bodies.append(f"s{i} AS ({form.body(len(arguments) + 1)})")
        arguments += [list(column) for column in zip(*rows, strict=True)]
    return "WITH " + ", ".join(bodies) + " SELECT 1", arguments


async def run_asyncpg(engine: AsyncEngine, fence: Fence) -> bool:
    """Commits the batch straight on asyncpg (the module's docstring); False, with nothing done, where it
    is SQLAlchemy's to run. A refused row raises SQLAlchemy's `IntegrityError` as its own execution would;
    on any other failure the connection is dropped from the pool (it may be broken)."""
    if fence.query is not None or engine.dialect.driver != "asyncpg":
        return False
    kept: list[tuple[Executable, Prepared, list[dict[str, Any]]]] = []
    for statement, rows in fence.statements():  # all decided before any parameter is computed
        prepared = prepared_statement(engine.dialect, statement, rows) if rows else None
        if prepared is None or rows is None:
            return False
        kept.append((statement, prepared, rows))
    statements = [(prepared, [prepared.parameters(row) for row in rows]) for _, prepared, rows in kept]
    forms = [_unnested(statement, prepared) for statement, prepared, _ in kept]
    parts = [(form, parameters) for form, (_, parameters) in zip(forms, statements, strict=True) if form]
    one = combined(parts) if parts and len(parts) == len(statements) else None
    async with engine.connect() as conn:
        driver: Any = (await conn.get_raw_connection()).driver_connection
        sql = ""
        try:
            if one is not None:
                sql = one[0]
                await driver.execute(sql, *one[1])
            else:
                async with driver.transaction():
                    for prepared, parameters in statements:
                        sql = prepared.sql
                        await driver.executemany(sql, parameters)
        except BaseException as exc:
            error = _as_sqlalchemy(engine, sql, exc) if isinstance(exc, Exception) else exc
            if not isinstance(error, IntegrityError):  # a refused row leaves the connection fine
                # Its state is unknown (cut off mid-statement, or inside the transaction): closed at once,
                # before an await that a second cancellation could interrupt.
                driver.terminate()
                await conn.invalidate()
            if error is exc:
                raise
            raise error from exc
    return True


def _as_sqlalchemy(engine: AsyncEngine, sql: str, error: Exception) -> Exception:
    """The error as SQLAlchemy's execution raises it (`IntegrityError` for a refused row; a lost connection
    marked invalidated, as `http.handlers.database_down` reads it), by the adapter's own table of asyncpg's
    errors; an error it does not translate (an `OSError`) as it is."""
    dialect = engine.dialect
    dbapi: Any = dialect.loaded_dbapi
    table = getattr(dbapi, "_asyncpg_error_translate", {})
    for kind in type(error).__mro__:
        if kind in table:
            adapted = table[kind](error.args[0] if error.args else str(error), error)
            invalidated = dialect.is_disconnect(adapted, None, None)
            wrapped: Exception = DBAPIError.instance(
                sql, None, adapted, dbapi.Error, connection_invalidated=invalidated, dialect=dialect
            )
            return wrapped
    return error
