"""The tables the storage layer writes through SQLAlchemy Core (no ORM unit of work on the hot path)."""

from __future__ import annotations

from sqlalchemy import Table

from app.db.models import (
    ActionRecord,
    AuditEntry,
    Award,
    DealRecord,
    GameTable,
    InterruptedDeal,
    Sanction,
    SeatHolder,
    ServerState,
    TableSeat,
)

ACTIONS: Table = ActionRecord.__table__  # type: ignore[assignment]
DEALS: Table = DealRecord.__table__  # type: ignore[assignment]
INTERRUPTED: Table = InterruptedDeal.__table__  # type: ignore[assignment]
SEATS: Table = TableSeat.__table__  # type: ignore[assignment]
AWARDS: Table = Award.__table__  # type: ignore[assignment]
AUDIT: Table = AuditEntry.__table__  # type: ignore[assignment]
HOLDERS: Table = SeatHolder.__table__  # type: ignore[assignment]
SANCTIONS: Table = Sanction.__table__  # type: ignore[assignment]
TABLES: Table = GameTable.__table__  # type: ignore[assignment]
STATE: Table = ServerState.__table__  # type: ignore[assignment]
