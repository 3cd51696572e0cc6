"""Issue 24: on SQLite the group writer runs its kept statements on the driver's cursor (`batch._prepare`).
What it hands the driver — the SQL and every row's parameters — is what SQLAlchemy's own execution of the
same statement and rows hands it, for every kind of statement and value the writer stores (JSON, None in a
JSON column, booleans, a column's default, a value written in the statement)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Executable, create_engine, event, insert, select
from sqlalchemy.exc import IntegrityError

from app.db.models import Base
from app.server.storage import batch
from app.server.storage.schema import ACTIONS, HOLDERS, SEATS, TABLES

CLOCK = {
    "seats": [[120000, 600000, False]],
    "running": 1,
    "wall": {"boot": "b", "since_ms": 7},
    "frozen": False,
}
REVOCATION = {"v_revoked_by": "admin", "v_revoked_at": 2.5, "v_revoke_reason": "appeal upheld"}

CASES: list[tuple[str, Executable, list[dict[str, Any]]]] = [
    ("action by the server", batch._inserts(ACTIONS, [{}])[0][0], [
        {"table_id": 1, "seq": 1, "action": {"type": "shuffle"}, "by_server": True, "at": 1.5,
         "clock": CLOCK},
        {"table_id": 2, "seq": 9, "action": {"type": "pass"}, "by_server": False, "at": 2.5,
         "clock": CLOCK},
    ]),
    ("action, its default left out", batch._inserts(ACTIONS, [{}])[0][0], [
        {"table_id": 1, "seq": 2, "action": {"type": "bid", "bid": "6s"}, "user_id": 3, "client_seq": 4,
         "at": 1.5, "sheet": {"pools": [0, 2, 4]}},
        {"table_id": 1, "seq": 3, "action": {"hand": 1, "card": "hA"}, "user_id": 3, "client_seq": 5,
         "at": 1.75, "sheet": {"пуля": "ё"}},
    ]),
    ("table fields, None in a JSON column", batch._table_update(("clock", "sheet", "status", "version")), [
        {"t": 1, "v_clock": CLOCK, "v_sheet": None, "v_status": "playing", "v_version": 3},
        {"t": 2, "v_clock": None, "v_sheet": {"history": []}, "v_status": "finished", "v_version": 4},
    ]),
    ("seat's number", batch._SEAT_SEQ, [{"t": 1, "s": 0, "q": 3}, {"t": 2, "s": 2, "q": 8}]),
    ("seat handed over", batch._SEAT_SUBSTITUTED, [
        {"t": 1, "s": 0, "u": 5, "k": 2}, {"t": 2, "s": 1, "u": 6, "k": 1},
    ]),
    ("holding closed", batch._HOLDING_CLOSED, [{"t": 1, "s": 0, "k": 2}, {"t": 2, "s": 1, "k": 4}]),
    ("adjudication", batch._ADJUDICATED, [{"i": 1, "a": {"result": None, "by": "x"}}, {"i": 2, "a": [1, 2]}]),
    ("revocation", batch._REVOKED, [{"i": 1, **REVOCATION}, {"i": 2, **REVOCATION, "v_revoked_by": None}]),
    ("seat rows, a default left out", batch._inserts(SEATS, [{}])[0][0], [
        {"table_id": 1, "seat": 0, "user_id": 4}, {"table_id": 1, "seat": 1, "user_id": 5},
    ]),
    ("holders", batch._inserts(HOLDERS, [{}])[0][0], [
        {"table_id": 1, "seat": 0, "user_id": 4, "first_deal": 1},
        {"table_id": 1, "seat": 1, "user_id": 5, "first_deal": 3},
    ]),
]  # fmt: skip


@pytest.mark.parametrize(("what", "statement", "rows"), CASES, ids=[case[0] for case in CASES])
def test_the_driver_is_handed_what_sqlalchemy_would_hand_it(
    what: str, statement: Executable, rows: list[dict[str, Any]]
) -> None:
    engine = create_engine("sqlite://")
    Base.metadata.create_all(engine)
    handed: list[tuple[str, list[tuple[Any, ...]]]] = []

    def capture(_conn: Any, _cursor: Any, sql: str, parameters: Any, _context: Any, many: bool) -> None:
        handed.append((sql, [tuple(p) for p in parameters] if many else [tuple(parameters)]))

    event.listen(engine, "before_cursor_execute", capture)
    with engine.connect() as conn, conn.begin() as transaction:
        conn.execute(statement, rows)
        transaction.rollback()
    prepared = batch._prepare(engine.dialect, statement, tuple(rows[0]))
    assert prepared is not None, what
    assert handed == [(prepared.sql, [prepared.parameters(row) for row in rows])], what
    engine.dispose()


# ---- several rows in one statement (`batch._Rows`) -------------------------------------------------------


def _populated(path: Path, tables: int) -> Any:
    """A SQLite database with ``tables`` tables of three seats (foreign keys on, as the server has them)."""
    engine = create_engine(f"sqlite:///{path}")
    event.listen(engine, "connect", lambda c, _r: c.execute("PRAGMA foreign_keys=ON"))
    Base.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(
            insert(Base.metadata.tables["users"]),
            [{"id": u, "name": f"u{u}", "name_key": f"u{u}", "password_hash": "-", "role": "player",
              "created_at": 0.0} for u in (1, 2, 3)],
        )  # fmt: skip
        conn.execute(
            insert(Base.metadata.tables["rooms"]),
            [{"id": 1, "name": "r", "operator_id": 1, "preset": "p", "overrides": {}, "conventions": {},
              "created_at": 0.0}],
        )  # fmt: skip
        conn.execute(
            insert(TABLES),
            [{"id": t, "room_id": 1, "seats": 3, "conventions": {}, "status": "playing", "created_at": 0.0}
             for t in range(1, tables + 1)],
        )  # fmt: skip
        conn.execute(
            insert(SEATS),
            [{"table_id": t, "seat": s, "user_id": s + 1} for t in range(1, tables + 1) for s in range(3)],
        )
    return engine


def _contents(engine: Any) -> dict[str, list[tuple[Any, ...]]]:
    """The rows as stored: JSON as its text (a JSON ``null`` is not SQL's NULL), by primary key."""
    with engine.connect() as conn:
        return {
            table.name: [
                tuple(row)
                for row in conn.exec_driver_sql(
                    f"SELECT * FROM {table.name} ORDER BY {', '.join(c.name for c in table.primary_key)}"
                )
            ]
            for table in (TABLES, SEATS, ACTIONS)
        }


def _step_rows(count: int) -> list[batch.Statement]:
    """What ``count`` tables' steps write: an action each, the seat's number, the table's fields (the JSON
    None of a sheet among them, and a second shape of action row)."""
    actions = [
        {"table_id": t, "seq": 1, "action": {"type": "pass", "n": t}, "user_id": 1, "client_seq": t,
         "at": 1.5 + t, "clock": {**CLOCK, "running": t % 3}}
        for t in range(1, count + 1)
    ] + [{"table_id": t, "seq": 2, "action": {"type": "shuffle"}, "by_server": True, "at": 0.25}
         for t in range(1, count + 1, 2)]  # fmt: skip
    seqs = [{"t": t, "s": t % 3, "q": 10 + t} for t in range(1, count + 1)]
    fields = [
        {"t": t, "v_clock": {**CLOCK, "running": t % 3}, "v_sheet": None if t % 2 else {"pools": [t]},
         "v_status": "finished" if t % 5 == 0 else "playing", "v_version": 100 + t}
        for t in range(1, count + 1)
    ]  # fmt: skip
    out = batch._inserts(ACTIONS, actions)
    out.append((batch._SEAT_SEQ, seqs))
    out.append((batch._table_update(("clock", "sheet", "status", "version")), fields))
    return out


@pytest.mark.parametrize("count", [2, 3, 7, 64, 150])
def test_rows_written_several_at_once_are_the_rows_sqlalchemy_writes(count: int, tmp_path: Path) -> None:
    ours, theirs = _populated(tmp_path / "ours.db", count), _populated(tmp_path / "theirs.db", count)
    statements: list[str] = []
    event.listen(ours, "connect", lambda c, _r: c.set_trace_callback(statements.append))
    ours.dispose()  # connections from here on are traced
    with ours.begin() as conn:
        batch._execute_all(conn, _step_rows(count))
    with theirs.begin() as conn:
        for statement, rows in _step_rows(count):
            conn.execute(statement, rows)
    assert _contents(ours) == _contents(theirs)
    assert _contents(ours)["actions"][-1][0] == count  # not an empty comparison
    written = [s for s in statements if s.startswith(("INSERT", "UPDATE", "WITH"))]
    # One statement per power of two of rows (at most 16, and 999 parameters, a statement), not one a row.
    row_count = count + (count + 1) // 2 + count + count
    assert len(written) < row_count
    assert len(written) <= 4 * count.bit_length() + 4 * (count // 16)


def test_rows_updating_the_same_row_go_one_at_a_time(tmp_path: Path) -> None:
    """Two rows for one key in one UPDATE ... FROM: which one wins is undefined, so they are not joined."""
    engine = _populated(tmp_path / "db", 2)
    statements: list[str] = []
    event.listen(engine, "connect", lambda c, _r: c.set_trace_callback(statements.append))
    engine.dispose()
    seqs = [{"t": 1, "s": 0, "q": 5}, {"t": 2, "s": 0, "q": 6}, {"t": 1, "s": 0, "q": 7}]
    with engine.begin() as conn:
        batch._execute_all(conn, [(batch._SEAT_SEQ, seqs)])
    with engine.connect() as conn:
        got = conn.execute(select(SEATS.c.last_client_seq).where(SEATS.c.table_id == 1, SEATS.c.seat == 0))
        assert got.scalar_one() == 7  # the last, as one row at a time writes it
    # One UPDATE a row; none joined to a list of rows.
    assert len([s for s in statements if s.startswith("UPDATE table_seats")]) == 3
    assert not [s for s in statements if s.startswith("WITH")]


def test_a_refused_row_fails_its_statement_as_one_row_at_a_time_would(tmp_path: Path) -> None:
    engine = _populated(tmp_path / "db", 2)
    rows = [
        {"table_id": 1, "seq": 1, "action": {}, "at": 1.0},
        {"table_id": 99, "seq": 1, "action": {}, "at": 1.0},
    ]
    with pytest.raises(IntegrityError), engine.begin() as conn:
        batch._execute_all(conn, batch._inserts(ACTIONS, rows))
    assert _contents(engine)["actions"] == []


def test_without_update_from_the_updates_go_one_row_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An SQLite library older than 3.33 has no ``UPDATE ... FROM``: its updates are one statement a row,
    its inserts still several rows to a statement, and the rows stored are the same."""
    monkeypatch.setattr(batch, "_UPDATE_FROM_SINCE", (99,))
    monkeypatch.setattr(batch, "_PREPARED", {})
    ours, theirs = _populated(tmp_path / "ours.db", 5), _populated(tmp_path / "theirs.db", 5)
    statements: list[str] = []
    event.listen(ours, "connect", lambda c, _r: c.set_trace_callback(statements.append))
    ours.dispose()
    with ours.begin() as conn:
        batch._execute_all(conn, _step_rows(5))
    with theirs.begin() as conn:
        for statement, rows in _step_rows(5):
            conn.execute(statement, rows)
    assert _contents(ours) == _contents(theirs)
    assert not any(s.startswith("WITH") for s in statements)
    assert sum(s.startswith("UPDATE") for s in statements) == 10  # 5 seats' numbers, 5 tables' fields
    assert 1 < sum(s.startswith("INSERT") for s in statements) < 8  # 5 + 3 action rows
