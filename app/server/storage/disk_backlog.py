"""The machine's disk backlog written out before the server serves (issue 24).

Every acknowledged step waits for its commit's fsync. The kernel writes what other work left dirty (a
deploy's files) about half a minute after it was written, and a commit that comes meanwhile waits behind
it: 1.5 GB left so delayed a second of every table's commits by half a second (`docs/capacity-log.md`,
2026-12-06). A server started right after a deploy would meet that writeback when its players are back,
so it writes the backlog out first, before a table runs. ``sync`` writes out every file system, which
may hang on a dead network mount: the server waits for it a bounded time, then serves anyway.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

from sqlalchemy.engine import make_url

log = logging.getLogger(__name__)

_LOCAL_HOSTS = frozenset({"", "localhost", "127.0.0.1", "::1"})


def on_this_disk(database_url: str) -> bool:
    """Whether the database's commits wait for this machine's disk: SQLite, or a server on this host."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        return url.database not in (None, "", ":memory:")
    host = url.host or str(url.query.get("host", ""))
    return host in _LOCAL_HOSTS or host.startswith("/")  # a socket directory is this host's


def write_out_backlog(limit_s: float, sync: Callable[[], None] = os.sync) -> float | None:
    """Write the machine's dirty pages out, waiting at most ``limit_s``; the seconds it took, or None
    when it is still writing (its thread goes on, a daemon; the server serves meanwhile)."""
    started = time.monotonic()
    done = threading.Event()

    def run() -> None:
        try:
            sync()
        finally:
            done.set()

    threading.Thread(target=run, name="sync-at-start", daemon=True).start()
    if not done.wait(limit_s):
        log.warning("the disk's backlog is still being written after %.0f s; serving anyway", limit_s)
        return None
    took = time.monotonic() - started
    log.info("wrote the disk's backlog out in %.2f s", took)
    return took
