"""Running the server: liveness, readiness and Prometheus metrics (for probes and scrapers, no login)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from fastapi import APIRouter, Response
from sqlalchemy import text

from app.server import metrics
from app.server.cluster.peers import worker_metrics
from app.server.http.deps import ContextDep

router = APIRouter(tags=["ops"])


@lru_cache(maxsize=1)
def head_revision() -> str | None:
    """The newest migration shipped with this code (read once from the migration scripts)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from app.db.migrate import ROOT

    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    return ScriptDirectory.from_config(config).get_current_head()


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is alive and its event loop answers."""
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(ctx: ContextDep, response: Response) -> dict[str, Any]:
    """Ready to serve: the database answers and its schema is at the newest migration."""
    head = head_revision()
    try:
        async with ctx.sessions() as session:
            current = await session.scalar(text("SELECT version_num FROM alembic_version"))
    except Exception as exc:
        response.status_code = 503
        return {"status": "unavailable", "database": f"unreachable: {type(exc).__name__}", "head": head}
    if current != head:
        response.status_code = 503
        return {"status": "unavailable", "database": "ok", "migration": current, "head": head}
    return {"status": "ok", "database": "ok", "migration": current, "head": head}


@router.get("/metrics")
async def prometheus_metrics(ctx: ContextDep) -> Response:
    """This process's metrics; with several workers every worker's, each series labelled with its worker."""
    own = await metrics.render(ctx)
    if ctx.cluster is not None:
        own = metrics.merge(str(ctx.cluster.slot), own, await worker_metrics(ctx))
    return Response(own, media_type=metrics.CONTENT_TYPE)
