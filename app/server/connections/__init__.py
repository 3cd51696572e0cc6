"""Table sockets: a `Connection` per websocket (bounded sends, rate limits, a client too slow dropped) and
`publishing`, which encodes each version's per-viewer frames once (RULES §12: a viewer gets only what
it may see); `stalls`, which drops a client that takes nothing of what waits for it."""

from __future__ import annotations

from app.server.connections.connection import Connection
from app.server.connections.publishing import ViewCache, publish_presence, publish_update, send_snapshot
from app.server.connections.stalls import watch_readers

__all__ = ["Connection", "ViewCache", "publish_presence", "publish_update", "send_snapshot", "watch_readers"]
