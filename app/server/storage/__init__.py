"""Storage: what a table writes and reads back, and the process's heartbeat.

`GroupWriter` commits the steps of every table of the process together (group commit), each `StepWrite`
one table step's rows; `read_table` rebuilds a table from its rows; `clock_record`/`charge_after_crash`
store the running turn on the wall clock and bound what a crash charges (RULES §8.1). Nothing here knows
sockets or the table actor.
"""

from __future__ import annotations

from app.server.storage.clock_rows import Boot, charge_after_crash, clock_record
from app.server.storage.group_writer import GroupWriter, TableMoved, WriteRefused
from app.server.storage.heartbeats import HEARTBEAT_PREFIX, forget_heartbeats, read_heartbeats
from app.server.storage.reading import StoredTable, next_award_revision, read_table, read_tables
from app.server.storage.step_write import StepWrite
from app.server.storage.table_store import TableStore

__all__ = [
    "HEARTBEAT_PREFIX",
    "Boot",
    "GroupWriter",
    "StepWrite",
    "StoredTable",
    "TableMoved",
    "TableStore",
    "WriteRefused",
    "charge_after_crash",
    "clock_record",
    "forget_heartbeats",
    "next_award_revision",
    "read_heartbeats",
    "read_table",
    "read_tables",
]
