"""Several workers: a REST request about a table goes to the worker that runs the table.

The requests that need a table's actor (sit, leave, robots, stop, the table's page, a judge's sanctions,
an award and its preview) name the table in the path (or an interrupted deal of it). When another live
worker owns the table, the request is sent on, as it came (method, path, query, headers, body), to that
worker's own port, and its answer is returned as is; the owner serves it locally (a request already
forwarded is never forwarded again). Only REST is forwarded: websockets are redirected (`ws.py`), so no
game frame ever crosses two processes.
"""

from __future__ import annotations

import logging
import re

import httpx
from sqlalchemy import select
from starlette.types import ASGIApp, Receive, Scope, Send

from app.db.models import InterruptedDeal
from app.protocol.codes import ErrorCode
from app.server.context import ServerContext
from app.server.http.admission import step_aside, waiting_off_the_pool
from app.server.http.deps import MAX_ID
from app.server.http.middleware import refuse

log = logging.getLogger(__name__)

FORWARDED = "x-preferans-forwarded"
_TABLE_PATH = re.compile(r"^/api/(?:admin/)?tables/(\d{1,12})(?:/|$)")
_DEAL_PATH = re.compile(r"^/api/admin/(?:interrupted/(\d{1,12})/award|archive/(\d{1,12})/preview)$")
# Not passed on: they describe one hop (the body is passed whole; its length is the owner's business).
_HOP = {b"host", b"connection", b"keep-alive", b"transfer-encoding", b"content-length", b"upgrade", b"te",
        b"accept-encoding", b"content-encoding"}  # fmt: skip


async def _table_of(ctx: ServerContext, path: str) -> int | None:
    """The table a path is about (None: none, or an id out of range, which the route refuses itself)."""
    match = _TABLE_PATH.match(path)
    if match:
        table_id = int(match.group(1))
        return table_id if 1 <= table_id <= MAX_ID else None
    match = _DEAL_PATH.match(path)
    if match:
        deal_id = int(match.group(1) or match.group(2))
        if not 1 <= deal_id <= MAX_ID:
            return None
        async with ctx.sessions() as session:
            owner_table: int | None = await session.scalar(
                select(InterruptedDeal.table_id).where(InterruptedDeal.id == deal_id)
            )
        return owner_table
    return None


class ForwardToOwner:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        if any(name == FORWARDED.encode() for name, _ in scope["headers"]):
            await self.app(scope, receive, send)
            return
        app = scope["app"]
        ctx: ServerContext = app.state.ctx
        cluster = ctx.cluster
        if cluster is None:
            await self.app(scope, receive, send)
            return
        table_id = await _table_of(ctx, scope["path"])
        address = await cluster.locate(ctx, table_id) if table_id else None
        if address is None:
            await self.app(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in _HOP]
        headers.append((FORWARDED.encode(), cluster.boot.encode()))
        query = scope.get("query_string", b"").decode("latin-1")
        url = f"http://{address}{scope['path']}" + (f"?{query}" if query else "")
        client: httpx.AsyncClient = app.state.forward_http
        # The owner does the work (under its own admission): this request holds no pooled connection and
        # runs nothing meanwhile. Holding them, two workers each full of calls to the other waited on each
        # other until the calls timed out.
        waiting_off_the_pool()
        step_aside()
        try:
            response = await client.request(scope["method"], url, headers=headers, content=bytes(body))
        except httpx.HTTPError as exc:
            log.warning("forward to %s failed: %s", address, exc)
            unanswered = "the table's worker did not answer; try again"
            await refuse(send, ErrorCode.OWNER_UNAVAILABLE, unanswered, headers=((b"retry-after", b"1"),))
            return
        out = [(k.encode(), v.encode()) for k, v in response.headers.multi_items()]
        out = [(k, v) for k, v in out if k.lower() not in _HOP]
        out.append((b"content-length", str(len(response.content)).encode()))
        await send({"type": "http.response.start", "status": response.status_code, "headers": out})
        await send({"type": "http.response.body", "body": response.content})
