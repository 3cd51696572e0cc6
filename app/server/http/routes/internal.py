"""What one worker asks another (several workers only; `cluster.peers`): the live details of the tables it
runs, and its own metrics. Refused without the workers' key."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from pydantic import TypeAdapter

from app.protocol.codes import ErrorCode
from app.server import metrics
from app.server.accounts.chat import tell_stored_mute
from app.server.cluster.peers import MAX_IDS, PEER_HEADER
from app.server.errors import ApiError
from app.server.http.deps import MAX_ID, ContextDep
from app.server.tables.live import TableLive, local_details

router = APIRouter(prefix="/internal", include_in_schema=False)

_DETAILS = TypeAdapter(dict[int, TableLive])


def _require_peer(request: Request, ctx: ContextDep) -> None:
    if ctx.peers is None or not ctx.peers.admits(request.headers.get(PEER_HEADER)):
        raise ApiError(ErrorCode.FORBIDDEN, "only another worker of this server asks this")


def _ids(text: str) -> list[int]:
    try:
        ids = [int(part) for part in text.split(",") if part]
    except ValueError:
        raise ApiError(ErrorCode.INVALID_REQUEST, "ids: table ids separated by commas", "ids") from None
    if len(ids) > MAX_IDS or any(not 1 <= i <= MAX_ID for i in ids):
        raise ApiError(ErrorCode.INVALID_REQUEST, f"ids: at most {MAX_IDS} table ids in range", "ids")
    return ids


@router.get("/tables")
async def tables(
    request: Request, ctx: ContextDep, ids: Annotated[str, Query(max_length=MAX_IDS * 13)]
) -> Response:
    """The live details of those of ``ids`` this worker runs, by table id."""
    _require_peer(request, ctx)
    details = local_details(ctx.tables, _ids(ids))
    return Response(_DETAILS.dump_json(details), media_type="application/json")


@router.get("/metrics")
async def own_metrics(request: Request, ctx: ContextDep) -> Response:
    """This worker's metrics alone."""
    _require_peer(request, ctx)
    return Response(await metrics.render(ctx), media_type=metrics.CONTENT_TYPE)


@router.post("/muted")
async def muted(request: Request, ctx: ContextDep, mute: Annotated[int, Query(ge=1, le=MAX_ID)]) -> Response:
    """Another worker stored a chat mute: the muted user's sockets here are told (`chat.tell_muted`)."""
    _require_peer(request, ctx)
    await tell_stored_mute(ctx, mute)
    return Response(status_code=204)
