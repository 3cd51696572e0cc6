"""The FastAPI application: lifespan (database, token secret, recovery), routes, error handlers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.auth.passwords import PasswordPool
from app.auth.secret import load_token_secret
from app.db.engine import make_engine, make_sessionmaker, make_writer_engine
from app.server.context import ServerContext
from app.server.errors import install_error_handlers
from app.server.logs import redact_credentials_in_server_logs
from app.server.middleware import BodyLimit, SecurityHeaders
from app.server.persistence import GroupWriter
from app.server.ratelimit import KeyedLimiter
from app.server.registry import recover_all, shutdown_all
from app.server.routes import archive, auth, history, invites, lobby, operator, ops, sanctions, users
from app.server.sessions import TicketBook, watch_sessions
from app.server.settings import Settings, get_settings
from app.server.ws import router as ws_router
from app.web import mount_site


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.database_url, settings.db_pool_size, settings.db_max_overflow)
        sessions = make_sessionmaker(engine)
        executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="solver")
        writer = GroupWriter(
            make_writer_engine(settings.database_url),
            window_ms=settings.commit_window_ms,
            max_batch=settings.commit_max_batch,
            heartbeat_s=settings.heartbeat_interval,
        )
        ctx = ServerContext(
            settings=settings,
            engine=engine,
            sessions=sessions,
            token_secret=load_token_secret(settings.token_secret, settings.token_secret_file),
            solver_executor=executor,
            passwords=PasswordPool(settings.hash_workers, settings.hash_backlog),
            auth_by_address=KeyedLimiter(settings.auth_address_per_minute / 60, settings.auth_address_burst),
            auth_by_name=KeyedLimiter(settings.auth_name_per_minute / 60, settings.auth_name_burst),
            tickets=TicketBook(settings.ticket_ttl),
            writer=writer,
        )
        app.state.ctx = ctx
        await writer.start()
        await recover_all(ctx)
        watcher = asyncio.create_task(watch_sessions(ctx, settings.session_recheck_interval))
        try:
            yield
        finally:
            watcher.cancel()
            await shutdown_all(ctx)
            await writer.close()
            executor.shutdown(wait=False, cancel_futures=True)
            ctx.passwords.shutdown()
            await writer.engine.dispose()
            await engine.dispose()

    redact_credentials_in_server_logs()
    docs = settings.api_docs
    app = FastAPI(
        title="Preferans table server",
        lifespan=lifespan,
        docs_url="/docs" if docs else None,
        redoc_url="/redoc" if docs else None,
        openapi_url="/openapi.json" if docs else None,
    )
    install_error_handlers(app)

    # Lobby requests are small; a larger body is refused before anything parses or buffers it.
    app.add_middleware(BodyLimit, max_bytes=settings.max_request_bytes, timeout=settings.body_timeout)
    app.add_middleware(SecurityHeaders, exempt=("/docs", "/redoc") if docs else ())

    app.include_router(auth.router)
    app.include_router(lobby.router)
    app.include_router(history.router)
    app.include_router(archive.router)
    app.include_router(sanctions.router)
    app.include_router(operator.router)
    app.include_router(invites.router)
    app.include_router(users.router)
    app.include_router(ops.router)
    app.include_router(ws_router)

    @app.get("/api/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    mount_site(app)
    return app
