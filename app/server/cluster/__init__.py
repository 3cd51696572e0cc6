"""Several worker processes (``serve --workers N``): `ownership` (which process runs which table, by a
compare-and-set in the database), `worker` (the once-a-second tick: fence, takeovers, housekeeping),
`addresses` (where another worker is reached), `peers` (what one worker asks the others: their tables'
live details, their metrics), `supervisor` (starts and restarts the workers) and `hang_watch` (how the
supervisor tells a hung worker)."""

from __future__ import annotations

from app.server.cluster.addresses import hostname, moved_url
from app.server.cluster.ownership import Cluster
from app.server.cluster.supervisor import supervise
from app.server.cluster.worker import run_ticks

__all__ = ["Cluster", "hostname", "moved_url", "run_ticks", "supervise"]
