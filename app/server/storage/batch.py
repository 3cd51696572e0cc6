"""One group-commit batch as a handful of ``executemany`` statements, fenced by table ownership."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import (
    Connection,
    Dialect,
    Engine,
    Executable,
    Insert,
    Select,
    Table,
    and_,
    bindparam,
    delete,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import DBAPIError, IntegrityError

from app.server.storage.schema import (
    ACTIONS,
    AUDIT,
    AWARDS,
    DEALS,
    HOLDERS,
    INTERRUPTED,
    SANCTIONS,
    SEATS,
    STATE,
    TABLES,
)
from app.server.storage.step_write import StepWrite


@dataclass(slots=True)
class Pending:
    """A table's write waiting for its batch; ``done`` is answered once the batch is committed (or not)."""

    table_id: int
    version: int | None  # None: the table's version is left as it is
    write: StepWrite
    done: asyncio.Future[None]


Statement = tuple[Executable, list[dict[str, Any]] | None]


# Built once: built for every batch it left its bound parameters in reference cycles, and the cycle
# collector's passes over them held the loop 40-110 ms every ~15 s (README "Capacity").
_NOT_OWNED = (
    select(TABLES.c.id)
    .where(
        TABLES.c.id.in_(bindparam("ids", expanding=True)),
        or_(TABLES.c.owner.is_(None), TABLES.c.owner != bindparam("owner")),
    )
    .with_for_update()
)


class Fence:
    """A batch's statements, less those of tables this process no longer owns. The owners are read in the
    batch's own transaction, locked on PostgreSQL (``FOR UPDATE``: a takeover waits for the commit, then
    finds this process still the owner and takes the table with the batch in it); on SQLite a takeover
    committed after the read makes the batch's first write fail, and the batch is tried again."""

    def __init__(self, owner: str | None, batch: list[Pending], tail: list[Statement]) -> None:
        self.batch = batch
        self.tail = tail
        self.moved: set[int] = set()
        ids = sorted({p.table_id for p in batch})
        self.query: Select[Any] | None = _NOT_OWNED if owner is not None and ids else None
        self.params = {"ids": ids, "owner": owner}

    def exclude(self, moved: Iterable[Any]) -> None:
        self.moved = {int(table_id) for table_id in moved}

    def statements(self) -> list[Statement]:
        kept = [p for p in self.batch if p.table_id not in self.moved]
        return _statements(kept) + self.tail


class HeldConnection:
    """The SQLite writer thread's connection, held from one batch to the next: taken from the engine's pool
    and given back for every batch, its check-out, its reset (a rollback) and its check-in were half of the
    writer thread's CPU beside the commit's own (issue 24). It holds no transaction between batches (a
    batch's own ends at its commit or rollback), so no lock either. Used from that one thread; a batch that
    fails other than by a refused row discards it (invalidated: the pool opens a new one for the next
    batch, should the file or the handle be what failed)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._conn: Connection | None = None

    def run(self, fence: Fence) -> None:
        conn = self._conn
        if conn is None:
            conn = self._conn = self.engine.connect()
        try:
            with conn.begin():
                if fence.query is not None:
                    fence.exclude(conn.execute(fence.query, fence.params).scalars().all())
                _execute_all(conn, fence.statements())
        except IntegrityError:
            raise  # the database answered: its transaction is rolled back, the connection is sound
        except BaseException:
            self._conn = None
            conn.invalidate()
            conn.close()
            raise

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


def _execute_all(conn: Connection, statements: list[Statement]) -> None:
    cursor: Any = None
    try:
        for statement, rows in statements:
            prepared = prepared_statement(conn.dialect, statement, rows) if rows else None
            if prepared is None:
                conn.execute(statement, rows)
                continue
            if cursor is None:
                cursor = conn.connection.cursor()
            assert rows is not None
            parameters = [prepared.parameters(row) for row in rows]
            try:
                prepared.run(cursor, parameters)
            except conn.dialect.loaded_dbapi.Error as exc:
                # As SQLAlchemy's own execution raises it (a refused row is an IntegrityError: the writer
                # then commits the batch's writes one by one).
                raise DBAPIError.instance(
                    prepared.sql, parameters, exc, conn.dialect.loaded_dbapi.Error, dialect=conn.dialect
                ) from exc
    finally:
        if cursor is not None:
            cursor.close()


@dataclass(frozen=True, slots=True)
class Prepared:
    """A statement compiled once for the rows of one shape, run straight on the driver's cursor: what
    SQLAlchemy's ``execute`` does for it on every batch (a context, the compiled cache's lookup, the
    parameters row by row through its bind processors) was most of the SQLite writer thread's time (issue
    24). Each parameter comes from the row (by key) or is the statement's own (a value in it, a column's
    scalar default), run through its type's bind processor as SQLAlchemy would."""

    sql: str
    # Per parameter: the row's key (None: the statement's own value), that value, the type's processor.
    sources: tuple[tuple[str | None, Any, Callable[[Any], Any] | None], ...]
    # The statement for several rows at once (`_Rows`), or None: one row at a time.
    many: _Rows | None = None
    names: tuple[str, ...] = ()  # the parameters' names, in order

    def parameters(self, row: dict[str, Any]) -> tuple[Any, ...]:
        out = []
        for key, own, process in self.sources:
            value = own if key is None else row[key]
            out.append(value if process is None else process(value))  # None too: JSON's None is 'null'

        return tuple(out)

    def run(self, cursor: Any, parameters: list[tuple[Any, ...]]) -> None:
        """Every row, as few statements as `_Rows` allows (one row at a time without it)."""
        many = self.many
        if many is None or len(parameters) < 2 or not many.distinct(parameters):
            cursor.executemany(self.sql, parameters)
            return
        done = 0
        for size in many.chunks(len(parameters)):
            if size == 1:
                cursor.execute(self.sql, parameters[done])
            else:
                cursor.execute(
                    many.sql(size), [value for row in parameters[done : done + size] for value in row]
                )
            done += size


# ``UPDATE ... FROM``: SQLite 3.33 (2020); with an older library the UPDATEs go one row at a time.
_UPDATE_FROM_SINCE = (3, 33, 0)
# Parameters in one statement: SQLite's limit before 3.32 (a build may still set it so low).
_MAX_PARAMETERS = 999
# Rows in one statement at most, and the sizes it is cut into (powers of two): each size is a statement of
# its own text, prepared once and kept by the driver's statement cache, not parsed anew for every batch.
# A statement of more rows costs SQLite more CPU a row than `executemany` (twice as much at 64 inserted
# rows, a sixth more at 8); a batch at 1,000 tables is 5-20 steps.
_MAX_ROWS = 16


@dataclass(frozen=True, slots=True)
class _Rows:
    """One statement for several rows, on SQLite: an ``INSERT`` with several ``VALUES`` rows, or an
    ``UPDATE ... FROM`` a ``VALUES`` list keyed by the rows' primary keys. `executemany` runs a statement
    per row, each a round of the driver letting go of the GIL and taking it back; the writer thread waited
    for the event loop at each (up to the interpreter's switch interval), and a batch of a few dozen rows
    took 3-5 times its CPU time to commit: the acks' tail at 1,000 tables (issue 24). Its cost is one
    statement per power of two of rows."""

    head: str
    row: str
    tail: str
    width: int  # parameters in a row
    # An UPDATE: the positions of the row's key parameters (no two rows may update the same row: which
    # of them wins is not defined, so such rows go one at a time).
    keys: tuple[int, ...] = ()

    def sql(self, size: int) -> str:
        return self.head + ", ".join([self.row] * size) + self.tail

    def chunks(self, count: int) -> list[int]:
        largest = min(_MAX_ROWS, max(1, _MAX_PARAMETERS // self.width))
        sizes = []
        while count:
            size = min(largest, 1 << (count.bit_length() - 1))
            sizes.append(size)
            count -= size
        return sizes

    def distinct(self, parameters: list[tuple[Any, ...]]) -> bool:
        if not self.keys:
            return True
        keys = self.keys
        return len({tuple(row[i] for i in keys) for row in parameters}) == len(parameters)


_PREPARED: dict[tuple[str, Any, Executable, tuple[str, ...]], Prepared | None] = {}
# The drivers whose cursors (SQLite) or connections (asyncpg) take a prepared statement: by paramstyle.
_DIRECT = {("sqlite", "pysqlite"): "qmark", ("postgresql", "asyncpg"): "numeric_dollar"}


def prepared_statement(
    dialect: Dialect, statement: Executable, rows: list[dict[str, Any]]
) -> Prepared | None:
    """The statement prepared for rows of this shape (kept), or None where it needs SQLAlchemy's own
    execution: other drivers, a statement not kept here, a default computed in Python, a ``RETURNING``."""
    if _DIRECT.get((dialect.name, dialect.driver)) != dialect.paramstyle:
        return None
    keys = tuple(rows[0])
    # The bind processors are the dialect's (its JSON serializer among them).
    key = (dialect.name, getattr(dialect, "_json_serializer", None), statement, keys)
    if key in _PREPARED:
        return _PREPARED[key]
    prepared = _prepare(dialect, statement, keys) if statement in _KEPT else None
    _PREPARED[key] = prepared
    return prepared


def _prepare(dialect: Dialect, statement: Executable, keys: tuple[str, ...]) -> Prepared | None:
    compiled: Any = cast(Any, statement).compile(
        dialect=dialect, column_keys=list(keys), for_executemany=True
    )
    if compiled.postfetch or compiled.returning or compiled.update_prefetch or compiled.positiontup is None:
        return None
    defaults = {}
    for column in compiled.insert_prefetch:
        default = column.default
        if default is None or not default.is_scalar:
            return None
        defaults[column.key] = default.arg
    sources: list[tuple[str | None, Any, Callable[[Any], Any] | None]] = []
    for name in compiled.positiontup:
        bind = compiled.binds[name]
        # The processor SQLAlchemy itself runs: the dialect's own type's (SQLite's DateTime has one where
        # the generic type has none).
        process = compiled._bind_processors.get(name)
        if name in keys:
            sources.append((name, None, process))
        elif name in defaults:
            sources.append((None, defaults[name], process))
        elif bind.callable is None and not bind.required:
            sources.append((None, bind.value, process))
        else:
            return None
    names = tuple(compiled.positiontup)
    many = None
    if dialect.name == "sqlite":
        library = getattr(dialect.loaded_dbapi, "sqlite_version_info", (0,))
        many = _rows(statement, compiled.string, names, update_from=library >= _UPDATE_FROM_SINCE)
    return Prepared(compiled.string, tuple(sources), many, names)


def _rows(statement: Executable, sql: str, names: tuple[str, ...], *, update_from: bool) -> _Rows | None:
    """The several-rows form of a prepared statement: every INSERT (its one ``VALUES`` row repeated), and
    the UPDATEs declared in `KEYED` (the rows' values in a ``WITH`` list it is joined to)."""
    width = len(names)
    placeholders = "(" + ", ".join(["?"] * width) + ")"
    if isinstance(statement, Insert):
        head, found, row = sql.rpartition(" VALUES ")
        if not found or row != placeholders:
            return None
        return _Rows(head + found, row, "", width)
    keyed = KEYED.get(statement)
    if keyed is None or not update_from or not keyed.covers(names):
        return None
    head = "WITH v(" + keyed.aliases(names) + ") AS (VALUES "
    tail = f') UPDATE "{keyed.table}" SET {keyed.sets_from("v", names)} FROM v WHERE {keyed.join("v", names)}'
    return _Rows(head, placeholders, tail, width, keyed.positions(names))


@dataclass(frozen=True, slots=True)
class Keyed:
    """An UPDATE of one row by its key: the table, its set columns and its key columns (column: bind)."""

    table: str
    sets: dict[str, str]
    keys: dict[str, str]

    # Joined to a list of rows (``alias``) whose columns are the statement's parameters, in order, named
    # "p0", "p1", ... (`_Rows` on SQLite, `pg_batch` on PostgreSQL).
    def covers(self, names: tuple[str, ...]) -> bool:
        return set(names) == set(self.sets.values()) | set(self.keys.values())

    @staticmethod
    def aliases(names: tuple[str, ...]) -> str:
        return ", ".join(f'"p{i}"' for i in range(len(names)))

    def sets_from(self, alias: str, names: tuple[str, ...]) -> str:
        return ", ".join(f'"{c}" = {alias}."p{names.index(bind)}"' for c, bind in self.sets.items())

    def join(self, alias: str, names: tuple[str, ...]) -> str:
        return " AND ".join(
            f'"{self.table}"."{c}" = {alias}."p{names.index(bind)}"' for c, bind in self.keys.items()
        )

    def positions(self, names: tuple[str, ...]) -> tuple[int, ...]:
        """The key parameters' positions in a row."""
        return tuple(names.index(bind) for bind in self.keys.values())


def _statements(batch: Iterable[Pending]) -> list[Statement]:
    """One batch as a handful of ``executemany`` statements, in an order the foreign keys accept."""
    actions: list[dict[str, Any]] = []
    deals: list[dict[str, Any]] = []
    interrupted: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []
    removed: list[dict[str, Any]] = []
    seqs: list[dict[str, Any]] = []
    awards: list[dict[str, Any]] = []
    award_rows: list[dict[str, Any]] = []
    audit_rows: list[dict[str, Any]] = []
    sanction_rows: list[dict[str, Any]] = []
    revocations: list[dict[str, Any]] = []
    substitutions: list[dict[str, Any]] = []
    holders: list[dict[str, Any]] = []
    reseated: list[dict[str, Any]] = []
    reseated_tables: list[dict[str, Any]] = []
    holdings_closed: list[dict[str, Any]] = []
    holdings_opened: list[dict[str, Any]] = []
    tables: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for pending in batch:
        write, table_id = pending.write, pending.table_id
        actions += write.actions
        deals += write.deals
        interrupted += write.interrupted
        seats += write.seats
        if write.seat_removed is not None:
            removed.append({"t": table_id, "s": write.seat_removed})
        if write.seat_seq is not None:
            seqs.append({"t": table_id, "s": write.seat_seq[0], "q": write.seat_seq[1]})
        awards += [{"i": row_id, "a": award} for row_id, award in write.adjudications.items()]
        award_rows += write.award_rows
        audit_rows += write.audit_rows
        sanction_rows += write.sanction_rows
        for sid, marks in write.sanction_revocations.items():
            revocations.append({"i": sid, **{f"v_{k}": v for k, v in marks.items()}})
        substitutions += write.substitutions
        holders += write.holders
        if write.reseated is not None:
            reseated_tables.append({"t": table_id})
            reseated += write.reseated
        holdings_closed += [
            {"t": c["table_id"], "s": c["seat"], "k": c["last_deal"]} for c in write.holders_closed
        ]
        holdings_opened += write.holders_opened
        fields = dict(write.table)
        if pending.version is not None:
            fields["version"] = pending.version
        if fields:
            # Rows that set the same columns go in one statement.
            tables[tuple(sorted(fields))].append({"t": table_id, **{f"v_{k}": v for k, v in fields.items()}})
    out: list[Statement] = []
    out += _inserts(SEATS, seats)
    if removed:
        out.append((_SEAT_REMOVED, removed))
    if reseated_tables:
        # §7.7, a fourth joins: seats move up, so the rows are written anew (an UPDATE of the key one row
        # at a time would collide with the next seat's row).
        out.append((_SEATS_REMOVED, reseated_tables))
        out += _inserts(SEATS, reseated)
    out += _inserts(ACTIONS, actions)
    out += _inserts(DEALS, deals)
    out += _inserts(INTERRUPTED, interrupted)
    if seqs:
        out.append((_SEAT_SEQ, seqs))
    if awards:
        out.append((_ADJUDICATED, awards))
    out += _inserts(AWARDS, award_rows)
    out += _inserts(AUDIT, audit_rows)
    out += _inserts(HOLDERS, holders)
    if substitutions:
        # §7.7: the seat's row names the substitute; the leaver's holding closes, the substitute's opens.
        rows = [
            {"t": c["table_id"], "s": c["seat"], "u": c["user_id"], "k": c["after_deal"]}
            for c in substitutions
        ]
        out.append((_SEAT_SUBSTITUTED, rows))
        out.append((_HOLDING_CLOSED, rows))
        opened = [
            {"table_id": r["t"], "seat": r["s"], "user_id": r["u"], "first_deal": r["k"] + 1} for r in rows
        ]
        out += _inserts(HOLDERS, opened)
    if holdings_closed:
        # §7.7, a fourth joins: the holdings at the seats that moved close before the new ones open.
        out.append((_HOLDING_CLOSED, holdings_closed))
    out += _inserts(HOLDERS, holdings_opened)
    out += _inserts(SANCTIONS, sanction_rows)
    if revocations:
        out.append((_REVOKED, revocations))
    for columns, rows in tables.items():
        out.append((_table_update(columns), rows))
    return out


# The statements are built once and kept: a statement object keeps its cache key (SQLAlchemy memoizes it),
# so a batch neither builds them again nor walks them for the key; built anew for every batch they were a
# third of the writer's time (issue 24).
_SEAT = and_(SEATS.c.table_id == bindparam("t"), SEATS.c.seat == bindparam("s"))
_SEAT_REMOVED = delete(SEATS).where(_SEAT)
_SEATS_REMOVED = delete(SEATS).where(SEATS.c.table_id == bindparam("t"))
_SEAT_SEQ = update(SEATS).where(_SEAT).values(last_client_seq=bindparam("q"))
# The UPDATEs of every step, run several rows at once (`_Rows`); the tables' updates are added as built.
KEYED: dict[Executable, Keyed] = {
    _SEAT_SEQ: Keyed(SEATS.name, {"last_client_seq": "q"}, {"table_id": "t", "seat": "s"}),
}
_SEAT_SUBSTITUTED = update(SEATS).where(_SEAT).values(user_id=bindparam("u"), last_client_seq=0)
_ADJUDICATED = (
    update(INTERRUPTED).where(INTERRUPTED.c.id == bindparam("i")).values(adjudication=bindparam("a"))
)
_HOLDING = and_(
    HOLDERS.c.table_id == bindparam("t"), HOLDERS.c.seat == bindparam("s"), HOLDERS.c.last_deal.is_(None)
)
_HOLDING_CLOSED = update(HOLDERS).where(_HOLDING).values(last_deal=bindparam("k"))
_REVOKED = (
    update(SANCTIONS)
    .where(SANCTIONS.c.id == bindparam("i"))
    .values({c: bindparam(f"v_{c}") for c in ("revoked_by", "revoked_at", "revoke_reason")})
)
# This process's heartbeat (`GroupWriter`), one row by its key: kept, it goes with the moves' statements
# (on PostgreSQL in their one statement); built with its values for each batch, every batch with a beat,
# one a second, went through SQLAlchemy's own execution.
HEARTBEAT = update(STATE).where(STATE.c.key == bindparam("k")).values(value=bindparam("v"))
KEYED[HEARTBEAT] = Keyed(STATE.name, {"value": "v"}, {"key": "k"})
_INSERTS: dict[str, Executable] = {}
_TABLE_UPDATES: dict[tuple[str, ...], Executable] = {}
# The statements `prepared_statement` may run on the driver's cursor: those built once here and kept (a
# statement's hash and equality are its identity).
_KEPT: set[Executable] = {
    _SEAT_REMOVED, _SEATS_REMOVED, _SEAT_SEQ, _SEAT_SUBSTITUTED, _ADJUDICATED, _HOLDING_CLOSED, _REVOKED,
    HEARTBEAT,
}  # fmt: skip


def _table_update(columns: tuple[str, ...]) -> Executable:
    """The update of these columns of a table's row (a handful of combinations: kept by columns)."""
    statement = _TABLE_UPDATES.get(columns)
    if statement is None:
        values: dict[str, Any] = {column: bindparam(f"v_{column}") for column in columns}
        statement = update(TABLES).where(TABLES.c.id == bindparam("t")).values(values)
        statement = _TABLE_UPDATES.setdefault(columns, statement)
        KEYED.setdefault(statement, Keyed(TABLES.name, {c: f"v_{c}" for c in columns}, {"id": "t"}))
        _KEPT.add(statement)
    return statement


def _inserts(table: Table, rows: list[dict[str, Any]]) -> list[Statement]:
    """Inserts of rows, leaving out None values: a JSON column given None would store JSON ``null``, not SQL
    NULL (what the queries for "no sheet", "not adjudicated" look for); rows with the same columns go in
    one ``executemany``."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        present = {k: v for k, v in row.items() if v is not None}
        groups[tuple(present)].append(present)
    statement = _INSERTS.get(table.name)
    if statement is None:
        statement = _INSERTS.setdefault(table.name, insert(table))
        _KEPT.add(statement)
    return [(statement, group) for group in groups.values()]
