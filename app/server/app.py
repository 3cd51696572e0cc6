"""The FastAPI application: lifespan (database, token secret, recovery), routes, error handlers."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.auth.passwords import PasswordPool
from app.db.engine import make_engine, make_sessionmaker
from app.db.models import ServerState
from app.server.context import ServerContext
from app.server.errors import install_error_handlers
from app.server.middleware import BodyLimit
from app.server.ratelimit import KeyedLimiter
from app.server.registry import recover_all, shutdown_all
from app.server.routes import auth, history, lobby
from app.server.settings import Settings, get_settings
from app.server.ws import router as ws_router


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
            passwords=PasswordPool(settings.hash_workers, settings.hash_backlog),
            auth_by_address=KeyedLimiter(settings.auth_address_per_minute / 60, settings.auth_address_burst),
            auth_by_name=KeyedLimiter(settings.auth_name_per_minute / 60, settings.auth_name_burst),
        )
        app.state.ctx = ctx
        await recover_all(ctx)
        try:
            yield
        finally:
            await shutdown_all(ctx)
            executor.shutdown(wait=False, cancel_futures=True)
            ctx.passwords.shutdown()
            await engine.dispose()

    app = FastAPI(title="Preferans table server", lifespan=lifespan)
    install_error_handlers(app)

    # Lobby requests are small; a larger body is refused before anything parses or buffers it.
    app.add_middleware(BodyLimit, max_bytes=settings.max_request_bytes, timeout=settings.body_timeout)

    app.include_router(auth.router)
    app.include_router(lobby.router)
    app.include_router(history.router)
    app.include_router(ws_router)

    @app.get("/api/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    return app
