"""The FastAPI application: lifespan (database, token secret, recovery), routes, error handlers."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.engine import make_engine, make_sessionmaker
from app.db.models import ServerState
from app.server.context import ServerContext
from app.server.errors import install_error_handlers
from app.server.registry import recover_all, shutdown_all
from app.server.routes import auth, history, lobby
from app.server.settings import Settings, get_settings
from app.server.ws import router as ws_router
from app.web import mount_site


async def token_secret(sessions: async_sessionmaker[AsyncSession], configured: str) -> str:
    """The configured secret, else one generated once and kept in the database (tokens survive restarts)."""
    if configured:
        return configured
    async with sessions() as session, session.begin():
        row = await session.get(ServerState, "token_secret")
        if row is None:
            row = ServerState(key="token_secret", value=secrets.token_hex(32))
            session.add(row)
        return row.value


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.database_url, settings.db_pool_size, settings.db_max_overflow)
        sessions = make_sessionmaker(engine)
        executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="solver")
        ctx = ServerContext(
            settings=settings,
            engine=engine,
            sessions=sessions,
            token_secret=await token_secret(sessions, settings.token_secret),
            solver_executor=executor,
        )
        app.state.ctx = ctx
        await recover_all(ctx)
        try:
            yield
        finally:
            await shutdown_all(ctx)
            executor.shutdown(wait=False, cancel_futures=True)
            await engine.dispose()

    app = FastAPI(title="Preferans table server", lifespan=lifespan)
    install_error_handlers(app)

    @app.middleware("http")
    async def limit_body(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        # Lobby requests are small; a huge body is refused before anything parses it.
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > settings.max_request_bytes):
            return JSONResponse(
                {
                    "error": "too_large",
                    "message": f"request bodies are limited to {settings.max_request_bytes}",
                },
                status_code=413,
            )
        return await call_next(request)

    app.include_router(auth.router)
    app.include_router(lobby.router)
    app.include_router(history.router)
    app.include_router(ws_router)

    @app.get("/api/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    mount_site(app)
    return app
