"""Who may do what: live sessions and websocket tickets (`sessions`), room access and spectators
(`privacy`), keyed rate limits (`ratelimit`) and the administrators' audit log (`audit`)."""

from __future__ import annotations

from app.server.accounts.audit import audit, audit_row
from app.server.accounts.privacy import require_sit, require_watch, room_access
from app.server.accounts.ratelimit import KeyedLimiter, Limiter, SharedLimiter
from app.server.accounts.sessions import SignedTickets, TicketBook, close_user

__all__ = [
    "KeyedLimiter",
    "Limiter",
    "SharedLimiter",
    "SignedTickets",
    "TicketBook",
    "audit",
    "audit_row",
    "close_user",
    "require_sit",
    "require_watch",
    "room_access",
]
