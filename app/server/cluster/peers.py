"""Several workers: what one worker asks the others for, so that no view describes only itself.

The lobby's and the operator's table lists need each live table's connection status, deal and clocks,
which only the table's owner holds (`tables.live`); ``/metrics`` needs every worker's counters. The
answering worker asks the other live workers on their own ports (``/internal/…``, `http.routes.internal`),
all at once and each for at most `PEER_TIMEOUT`; a worker that does not answer (hung, or gone) is left
out and not asked again for `SILENT_BACKOFF`, and its tables show what the database holds. A request
between workers carries a key made from the server secret (which every worker has and no client does).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

import httpx
from pydantic import TypeAdapter, ValidationError
from sqlalchemy import select

from app.db.models import GameTable
from app.server.tables.live import TableLive, local_details

if TYPE_CHECKING:
    from app.server.context import ServerContext

log = logging.getLogger(__name__)

PEER_HEADER = "x-preferans-peer"
PEER_TIMEOUT = 2.0
SILENT_BACKOFF = 10.0
MAX_IDS = 500  # table ids one request names
_DETAILS = TypeAdapter(dict[int, TableLive])


def peer_key(secret: str) -> str:
    return hmac.new(secret.encode(), b"preferans: one worker asks another", hashlib.sha256).hexdigest()


class Peers:
    """The HTTP client one worker asks the others with."""

    def __init__(self, secret: str) -> None:
        self.key = peer_key(secret)
        self.http = httpx.AsyncClient(timeout=PEER_TIMEOUT, headers={PEER_HEADER: self.key})
        self._silent_until: dict[str, float] = {}

    def admits(self, key: str | None) -> bool:
        return key is not None and hmac.compare_digest(key.encode(), self.key.encode())

    async def get(
        self, address: str, path: str, params: dict[str, str] | None = None
    ) -> httpx.Response | None:
        """The answer of the worker at ``address``, or None when it did not answer in time."""
        return await self._ask("GET", address, path, params)

    async def post(
        self, address: str, path: str, params: dict[str, str] | None = None
    ) -> httpx.Response | None:
        """A notice to the worker at ``address`` (its answer, or None when it did not answer in time)."""
        return await self._ask("POST", address, path, params)

    async def _ask(
        self, method: str, address: str, path: str, params: dict[str, str] | None
    ) -> httpx.Response | None:
        if time.monotonic() < self._silent_until.get(address, 0.0):
            return None
        try:
            response = await self.http.request(method, f"http://{address}{path}", params=params)
            response.raise_for_status()
        except httpx.HTTPError as exc:
            log.warning("worker at %s did not answer %s: %r", address, path, exc)
            self._silent_until[address] = time.monotonic() + SILENT_BACKOFF
            return None
        self._silent_until.pop(address, None)
        return response

    async def close(self) -> None:
        await self.http.aclose()


async def live_details(ctx: ServerContext, table_ids: Iterable[int]) -> dict[int, TableLive]:
    """The live details of those of ``table_ids`` that some live worker runs: this one's from its actors,
    the others' from their owners (a table whose owner did not answer is left out)."""
    wanted = list(table_ids)
    out = local_details(ctx.tables, wanted)
    rest = [table_id for table_id in wanted if table_id not in out]
    cluster, peers = ctx.cluster, ctx.peers
    if not rest or cluster is None or peers is None:
        return out
    async with ctx.sessions() as session:
        owners = (
            await session.execute(select(GameTable.id, GameTable.owner).where(GameTable.id.in_(rest)))
        ).all()
    by_address: dict[str, list[int]] = {}
    for table_id, owner in owners:
        address = cluster.addresses.get(owner) if owner not in (None, cluster.boot) else None
        if address is not None:
            by_address.setdefault(address, []).append(table_id)
    asks = [
        (address, ids[start : start + MAX_IDS])
        for address, ids in by_address.items()
        for start in range(0, len(ids), MAX_IDS)
    ]
    answers = await asyncio.gather(
        *(peers.get(address, "/internal/tables", {"ids": ",".join(map(str, ids))}) for address, ids in asks)
    )
    for (address, ids), answer in zip(asks, answers, strict=True):
        if answer is None:
            continue
        try:
            details = _DETAILS.validate_json(answer.content)
        except ValidationError:
            log.warning("worker at %s answered its tables' details in a shape not understood", address)
            continue
        out.update((table_id, live) for table_id, live in details.items() if table_id in ids)
    return out


async def worker_metrics(ctx: ServerContext) -> dict[str, bytes | None]:
    """Every other worker's own ``/metrics`` text by its slot (None: not live, or it did not answer)."""
    cluster, peers = ctx.cluster, ctx.peers
    if cluster is None or peers is None:
        return {}
    others = {
        slot: cluster.addresses.get(boot)
        for slot, boot in sorted(cluster.slots.items())
        if boot != cluster.boot and slot < cluster.workers
    }
    asked = {slot: address for slot, address in others.items() if address is not None}
    answers = await asyncio.gather(*(peers.get(address, "/internal/metrics") for address in asked.values()))
    texts = {slot: (a.content if a is not None else None) for slot, a in zip(asked, answers, strict=True)}
    return {str(slot): texts.get(slot) for slot in others}


async def tell_others(ctx: ServerContext, path: str, params: dict[str, str]) -> int:
    """A notice to every other live worker at once (each tells its own sockets); returns how many took it
    (a worker that did not answer in `PEER_TIMEOUT` is left out: its sockets miss the notice)."""
    cluster, peers = ctx.cluster, ctx.peers
    if cluster is None or peers is None:
        return 0
    others = [address for boot, address in cluster.addresses.items() if boot != cluster.boot]
    answers = await asyncio.gather(*(peers.post(address, path, params) for address in others))
    return sum(1 for answer in answers if answer is not None)
