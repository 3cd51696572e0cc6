"""Issue 24: on SQLite the group writer runs its kept statements on the driver's cursor (`batch._prepare`).
What it hands the driver — the SQL and every row's parameters — is what SQLAlchemy's own execution of the
same statement and rows hands it, for every kind of statement and value the writer stores (JSON, None in a
JSON column, booleans, a column's default, a value written in the statement)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Executable, create_engine, event

from app.db.models import Base
from app.server.storage import batch
from app.server.storage.schema import ACTIONS, HOLDERS, SEATS

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
