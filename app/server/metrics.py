"""Prometheus metrics of the running server (``GET /metrics``, the ``prometheus-client`` library).

Counters and histograms are fed by small hooks where things happen (a frame acknowledged or refused, a
table's commit, a clock timeout, the solver robot's search); gauges that are facts about the present
(live tables, open sockets, interrupted deals awaiting an award) are read when the metrics are scraped,
so they can never drift from the truth. The event loop's lag is sampled by a timer of its own.

With several workers each process has its own counters; ``/metrics`` at any worker gathers every live
worker's (`cluster.peers`) and gives each series a ``worker`` label (its slot), so a scrape of the public
port sees the whole server (``sum without (worker) (…)``) and a restarted worker's counters start again
as their own series, as Prometheus expects of a process that restarts. Facts the database holds for all
workers (interrupted deals awaiting an award) are given once, unlabelled; ``preferans_worker_up`` says
which workers answered.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector
from pydantic import BaseModel
from sqlalchemy import func, select

from app.db.models import InterruptedDeal
from app.protocol.messages import AckMessage, ErrorMessage

if TYPE_CHECKING:
    from app.server.context import ServerContext

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

REGISTRY = CollectorRegistry(auto_describe=True)

ACTIONS = Counter(
    "preferans_actions_total",
    "Players' actions answered over websockets, by outcome (accepted, refused) and refusal code",
    ["outcome", "code"],
    registry=REGISTRY,
)
_ACCEPTED = ACTIONS.labels("accepted", "")
COMMIT_SECONDS = Histogram(
    "preferans_commit_seconds",
    "Time to store one table step (a commit before the step is acknowledged or published)",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
    registry=REGISTRY,
)
TIMEOUTS = Counter(
    "preferans_timeouts_fired_total",
    "Clock timers that fired on the table they were armed for",
    registry=REGISTRY,
)
TIMEOUT_LATENESS = Histogram(
    "preferans_timeout_lateness_seconds",
    "How long after the clock's deadline its timer was handled by the table, on the tables' time (a full "
    "collection's stop left out: the loop's lag shows it)",
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
    registry=REGISTRY,
)
LOOP_LAG = Histogram(
    "preferans_loop_lag_seconds",
    "How late the event loop ran a timer that was due (sampled every 50 ms): how long it was held",
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)
SOLVER_SECONDS = Histogram(
    "preferans_solver_robot_seconds",
    "Wall time of each table step that ran the solver robot off the event loop",
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
    registry=REGISTRY,
)
SHARED_ANSWERS = Counter(
    "preferans_shared_answers_total",
    "Answers the same for every viewer (the lobby's tables and ratings of a room), by kind: built, or "
    "shared from one built for another request (`http.shared_answers`)",
    ["kind", "outcome"],
    registry=REGISTRY,
)
LIVE_TABLES = Gauge(
    "preferans_live_tables", "Tables loaded in this process, by status", ["status"], registry=REGISTRY
)
OPEN_SOCKETS = Gauge("preferans_open_sockets", "Open websocket connections", registry=REGISTRY)
CONNECTIONS_HELD = Gauge(
    "preferans_connections_held",
    "Client connections (HTTP and websocket) this process holds: open, or lost and not yet freed",
    registry=REGISTRY,
)
AWAITING_AWARD = Gauge(
    "preferans_interrupted_awaiting_award",
    "Interrupted deals in the archive that no administrator has awarded yet",
    registry=REGISTRY,
)

_STATUSES = ("waiting", "playing", "awaiting_adjudication", "finished")


def frame_sent(message: BaseModel | object) -> None:
    """Count a reply to a player's action: an acknowledgement, or a refusal with its code."""
    if isinstance(message, AckMessage):
        if not message.duplicate:
            _ACCEPTED.inc()
    elif isinstance(message, ErrorMessage) and message.seq is not None:
        ACTIONS.labels("refused", message.code).inc()


def action_accepted() -> None:
    """An action acknowledged with a text built without a model (`app.protocol.messages.ack_text`)."""
    _ACCEPTED.inc()


def commit_took(seconds: float) -> None:
    """A table step's commit took ``seconds`` (stored or not). Timed by the caller, not by a context
    manager: this is on every move's path, and a generator-based one costs a few objects and calls."""
    COMMIT_SECONDS.observe(seconds)


def timeout_fired(deadline_ms: int | None, now_ms: int) -> None:
    """A clock timer handled at ``now_ms`` (monotonic) for a deadline at ``deadline_ms``."""
    TIMEOUTS.inc()
    if deadline_ms is not None:
        TIMEOUT_LATENESS.observe(max(0, now_ms - deadline_ms) / 1000.0)


async def watch_loop_lag(interval_s: float = 0.05) -> None:
    """Sample how late the loop runs a timer: every player's clock waits while the loop is held (a busy
    turn, a collection, the interpreter held by another thread), so an operator sees it here first."""
    loop = asyncio.get_running_loop()
    while True:
        due = loop.time() + interval_s
        await asyncio.sleep(interval_s)
        LOOP_LAG.observe(max(0.0, loop.time() - due))


@contextmanager
def solver_timer() -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        SOLVER_SECONDS.observe(time.perf_counter() - started)


async def render(ctx: ServerContext) -> bytes:
    """The exposition text, with the present-state gauges read now."""
    counts = dict.fromkeys(_STATUSES, 0)
    for actor in list(ctx.tables.values()):
        counts[actor.status] = counts.get(actor.status, 0) + 1
    for status, count in counts.items():
        LIVE_TABLES.labels(status).set(count)
    OPEN_SOCKETS.set(ctx.open_sockets())
    async with ctx.sessions() as session:
        awaiting = await session.scalar(
            select(func.count()).select_from(InterruptedDeal).where(InterruptedDeal.adjudication.is_(None))
        )
    AWAITING_AWARD.set(awaiting or 0)
    return generate_latest(REGISTRY)


# Read from the database, the same at every worker: given once, not once per worker.
CLUSTER_WIDE = frozenset({"preferans_interrupted_awaiting_award"})


class _Families(Collector):
    def __init__(self, families: Iterable[Metric]) -> None:
        self.families = list(families)

    def collect(self) -> Iterable[Metric]:
        return self.families


def merge(slot: str, own: bytes, others: dict[str, bytes | None]) -> bytes:
    """One exposition of every worker's: this one's (``own``, of worker ``slot``) and the others' by slot
    (None: it did not answer), each series labelled with its worker."""
    families: dict[str, Metric] = {}
    up = Metric("preferans_worker_up", "Whether the worker answered this scrape (1) or not (0)", "gauge")
    texts = {slot: own, **others}
    for worker in sorted(texts, key=int):
        text = texts[worker]
        up.add_sample("preferans_worker_up", {"worker": worker}, 0.0 if text is None else 1.0)
        if text is None:
            continue
        for family in text_string_to_metric_families(text.decode()):
            if family.name in CLUSTER_WIDE and worker != slot:
                continue
            merged = families.get(family.name)
            if merged is None:
                merged = families[family.name] = Metric(family.name, family.documentation, family.type)
            for sample in family.samples:
                labels = sample.labels if family.name in CLUSTER_WIDE else {**sample.labels, "worker": worker}
                merged.samples.append(sample._replace(labels=labels))
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families([*families.values(), up]))
    return generate_latest(registry)
