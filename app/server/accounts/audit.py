"""The audit log: every administrator's change to an account or to the archive, readable by admins."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import AuditEntry, User


def audit(session: AsyncSession, actor: User, action: str, target: str, **detail: Any) -> None:
    """Adds the entry to ``session``: it is stored with the change it describes, in the same commit."""
    session.add(AuditEntry(**audit_row(actor, action, target, at=time.time(), **detail)))


def audit_row(actor: User, action: str, target: str, *, at: float, **detail: Any) -> dict[str, Any]:
    """The entry as a row for a write that is not a session's (a table's step stores it with its change)."""
    return {"at": at, "actor_id": actor.id, "actor_name": actor.name, "action": action, "target": target,
            "detail": detail}  # fmt: skip
