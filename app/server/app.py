"""The FastAPI application: lifespan (database, token secret, recovery), routes, error handlers."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

import httpx
import uvicorn
from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from app.auth.passwords import PasswordPool
from app.auth.secret import load_token_secret
from app.db.engine import is_sqlite, make_engine, make_sessionmaker, make_writer_engine
from app.server import metrics
from app.server.accounts.ratelimit import KeyedLimiter, Limiter, SharedLimiter
from app.server.accounts.sessions import SignedTickets, TicketBook, watch_sessions
from app.server.accounts.shared_caps import SharedSockets
from app.server.analysis import AnalysisPool, register_round_gate
from app.server.cluster.ownership import Cluster
from app.server.cluster.peers import Peers
from app.server.cluster.worker import run_ticks
from app.server.collector import freeze_startup, run_collector, thaw_startup, tune_collector
from app.server.connections import watch_readers
from app.server.context import Pool, ServerContext
from app.server.http.admission import Admission, Places
from app.server.http.forward import ForwardToOwner
from app.server.http.handlers import install_error_handlers
from app.server.http.middleware import BodyLimit, SecurityHeaders
from app.server.http.routes import (
    analysis,
    archive,
    auth,
    broadcast,
    captains,
    chat,
    export,
    history,
    internal,
    invites,
    life,
    lobby,
    operator,
    ops,
    practice,
    ratings,
    sanctions,
    stats,
    tournaments,
    users,
)
from app.server.http.shared_answers import SharedAnswers
from app.server.http.ws import router as ws_router
from app.server.http.ws import table_socket_id, table_socket_lane
from app.server.logs import redact_credentials_in_server_logs
from app.server.ratings import run_ratings
from app.server.settings import Settings, get_settings, public_hosts
from app.server.storage import GroupWriter
from app.server.tables.registry import quiesce_all, recover_all, recover_owned, shutdown_all, watch_storage
from app.server.timebase import hold_clocks_in_full_collections
from app.server.tournaments import add_downtime_on_start, round_over, run_round_clocks
from app.web import mount_site
from app.web.api_docs import mount_api_docs

# Asking to join a table as its fourth (§7.7): three askings, then one every two minutes, per user and table.
JOIN_ASKS_PER_MINUTE = 0.5
JOIN_ASKS_BURST = 3


def _load(ctx: ServerContext) -> int:
    """The sockets and tables this process holds: memory that grows with them is not the collector's
    garbage (`collector.run_collector`)."""
    return len(ctx.tables) + ctx.open_sockets()


def create_app(settings: Settings | None = None) -> ServerApp:
    settings = settings or get_settings()
    # A tournament table's deals are analysed and broadcast only after its round (RULES.md §12).
    register_round_gate(round_over)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            async with serving(app):
                yield
        finally:
            thaw_startup()  # what `serving` froze is the collector's again, whether it started or not

    @asynccontextmanager
    async def serving(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.database_url, settings.db_pool_size, settings.db_max_overflow)
        sessions = make_sessionmaker(engine)
        executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="solver")

        def limiter(name: str, per_minute: float, burst: float) -> Limiter:
            # Several workers count every attempt together (README "Several worker processes").
            if settings.workers > 1:
                return SharedLimiter(engine, name, per_minute / 60, burst)
            return KeyedLimiter(per_minute / 60, burst)

        writer = GroupWriter(
            make_writer_engine(settings.database_url),
            window_ms=settings.commit_window_ms,
            interval_ms=settings.commit_interval_ms,
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
            auth_by_address=limiter(
                "auth-address", settings.auth_address_per_minute, settings.auth_address_burst
            ),
            auth_by_name=limiter("auth-name", settings.auth_name_per_minute, settings.auth_name_burst),
            tickets=TicketBook(settings.ticket_ttl),
            writer=writer,
            answers=SharedAnswers(settings.lobby_answer_ms),
        )
        ctx.join_asks = limiter("join-ask", JOIN_ASKS_PER_MINUTE, JOIN_ASKS_BURST)
        ctx.analysis = AnalysisPool(settings.analysis_workers, settings.analysis_backlog)
        app.state.ctx = ctx
        watch_storage(ctx)  # every table freezes while the database is away (RULES §8.6)
        # The app as built, before a database connection or a table is made: what lives as long as the app
        # is left out of every full collection's scan while it serves (`collector.freeze_startup`).
        freeze_startup()
        await writer.start()
        background = []
        if settings.workers > 1 and settings.worker_slot is not None:
            ctx.cluster = Cluster(
                slot=settings.worker_slot,
                workers=settings.workers,
                boot=writer.boot.id,
                address=f"{settings.worker_host}:{settings.worker_port}",
                lease_ms=int(settings.worker_lease * 1000),
                interval=settings.heartbeat_interval,
            )
            writer.owner = writer.boot.id  # the writer stores only steps of tables this process owns
            ctx.signed_tickets = SignedTickets(ctx.token_secret, settings.ticket_ttl)
            app.state.forward_http = httpx.AsyncClient(timeout=60.0)
            ctx.peers = Peers(ctx.token_secret)
            if is_sqlite(settings.database_url):
                ctx.autocommit = make_engine(settings.database_url, 4, 4, autocommit=True)
            ctx.shared_sockets = SharedSockets(
                engine, writer.boot.id, settings.max_connections_per_user, autocommit=ctx.autocommit
            )
            # The ownership tick's own small pool: never behind players' requests (issue 26 §1.2). Its
            # one-statement writes on SQLite share `ctx.autocommit` with the handshakes' (each is short).
            tick_engine = make_engine(settings.database_url, 2, 2)
            tick_pool = Pool(tick_engine, make_sessionmaker(tick_engine))
            recovery = await recover_owned(ctx)
        else:
            recovery = await recover_all(ctx)
        # The recovered tables' clocks run from here (RULES §8.1).
        await recovery.resume(ctx)
        # One process of the site runs its own tasks: the tournaments' round clocks, the rating ladders.
        site_tasks = ctx.cluster is None or ctx.cluster.slot == 0
        # The last step before serving, after the resume (which may take seconds, the rounds' tables held).
        if site_tasks:
            await add_downtime_on_start(ctx, max(ctx.heartbeats.values(), default=None))
        if settings.gc_young_ms > 0:
            young_s, full_s = settings.gc_young_ms / 1000, settings.gc_full_interval
            background.append(
                asyncio.create_task(
                    run_collector(young_s, full_s, settings.gc_full_growth_mb, lambda: _load(ctx)),
                    name="collector",
                )
            )
        else:
            tune_collector(settings.gc_thresholds)
        if ctx.cluster is not None:
            background.append(asyncio.create_task(run_ticks(ctx, ctx.cluster, tick_pool), name="worker-tick"))
        background.append(asyncio.create_task(watch_sessions(ctx, settings.session_recheck_interval)))
        if site_tasks:
            background.append(asyncio.create_task(run_round_clocks(ctx), name="round-clocks"))
            background.append(
                asyncio.create_task(run_ratings(sessions, settings.ratings_interval, engine), name="ratings")
            )
        background.append(asyncio.create_task(watch_readers(ctx), name="watch-readers"))
        background.append(asyncio.create_task(metrics.watch_loop_lag(), name="loop-lag"))
        hold_clocks_in_full_collections()  # (the collector above runs once this yields)
        try:
            yield
        finally:
            hold_clocks_in_full_collections(False)  # first: nothing that fails below keeps it
            for task in background:
                task.cancel()
            if ctx.cluster is not None:
                await app.state.forward_http.aclose()
                await tick_pool.engine.dispose()
            if ctx.peers is not None:
                await ctx.peers.close()
            await shutdown_all(ctx)
            await ctx.answers.close()
            if ctx.shared_sockets is not None:
                await ctx.shared_sockets.close()
            if ctx.autocommit is not None:
                await ctx.autocommit.dispose()
            await writer.close()
            executor.shutdown(wait=False, cancel_futures=True)
            ctx.analysis.shutdown()
            ctx.passwords.shutdown()
            await writer.engine.dispose()
            await engine.dispose()

    redact_credentials_in_server_logs()
    docs = settings.api_docs
    app = ServerApp(
        title="Preferans table server",
        lifespan=lifespan,
        # FastAPI's own docs pages load their scripts from a CDN: ours are served by the app (app.web).
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json" if docs else None,
    )
    install_error_handlers(app)

    # Lobby requests are small; a larger body is refused before anything parses or buffers it.
    if settings.workers > 1:
        # A table's request that reaches a worker which does not run the table goes to the one that
        # does (inside the body limit: nothing oversized is forwarded).
        app.add_middleware(ForwardToOwner)
    # Inside the body limit (a slow body holds no slot), outside the forwarding (which may need the pool).
    places = Places(settings.request_slots, settings.requests_running)
    app.add_middleware(Admission, places=places)
    app.table_sockets = Admission(table_socket_lane, places=places)
    app.add_middleware(BodyLimit, max_bytes=settings.max_request_bytes, timeout=settings.body_timeout)
    socket_ports: tuple[int, ...] = ()
    if settings.workers > 1 and settings.public_port is not None:
        socket_ports = settings.worker_ports(settings.public_port)
    app.add_middleware(
        SecurityHeaders, socket_ports=socket_ports, socket_hosts=public_hosts(settings.public_hosts)
    )

    # The router tries the routes in order, each at a cost (docs/capacity-log.md, "FastAPI's router"), so
    # what is asked most comes first: the health checks, the tickets, what the pages ask every few seconds
    # (the lobby's rooms and its players' ratings, a tournament's page, a broadcast). No path is matched
    # by two routers but the captains' and the tournaments' (`tests/architecture/test_route_order.py`):
    # the order of the others decides no request.
    @app.get("/api/health")
    async def health() -> dict[str, str | int]:
        cluster = app.state.ctx.cluster if hasattr(app.state, "ctx") else None
        if cluster is None:
            return {"status": "ok"}
        # Several workers: which one answered (the public port lands on any of them).
        return {"status": "ok", "worker": cluster.slot, "boot": cluster.boot, "pid": os.getpid()}

    for router in (
        ops.router,  # /healthz, /readyz, /metrics
        auth.router,
        lobby.router,
        ratings.router,
        captains.router,  # before the tournaments': its literal paths would match their {tournament_id}
        tournaments.router,
        broadcast.router,
        life.router,
        chat.router,
        history.router,
        invites.router,
        archive.router,
        sanctions.router,
        operator.router,
        users.router,
        analysis.router,
        stats.router,
        export.router,
        practice.router,
        internal.router,
    ):
        app.include_router(router)
    app.include_router(ws_router)

    if docs:
        mount_api_docs(app)
    mount_site(app)
    return app


class ServerApp(FastAPI):
    """The app, whose tables' websockets skip its middleware stack and router for a lane of their own
    (`table_sockets`: the handshake's admission, then `http.ws.table_socket`): a socket lives as long as
    its player sits, and every layer it passed stays alive with it, coroutines, closures and exit stacks,
    some two hundred objects a socket, which a full collection of the cycle collector scans with the loop
    stopped (issue 24). The stack's layers do nothing for a websocket but pass it on: the HTTP
    middlewares (body limit, security headers, forwarding) let it through, and the router's work is the
    path's table id. What the lane does without: the app's exception handlers (`table_socket` answers
    every refusal itself, the database away included; after the accept they could only have failed to
    answer, and an error is now logged as it was raised) and FastAPI's telemetry middleware (not set up
    here). Any other websocket path goes the stack's way, as every HTTP request."""

    table_sockets: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and self.table_sockets is not None:
            table_id = table_socket_id(scope)
            if table_id is not None:
                # As Starlette and the router set them: the handler finds the server's context in the app.
                scope["app"] = self
                scope["path_params"] = {"table_id": table_id}
                await self.table_sockets(scope, receive, send)
                return
        await super().__call__(scope, receive, send)


def graceful_server(config: uvicorn.Config, app: FastAPI) -> uvicorn.Server:
    """uvicorn's server, whose graceful stop (SIGTERM) lets every table end the command it is on — stored,
    acknowledged — after it stops listening and before it closes the sockets (issue 26 §1.4: uvicorn
    closes them before the app's own shutdown runs)."""

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            for server in self.servers:
                server.close()
            for sock in sockets or []:
                sock.close()
            ctx = getattr(app.state, "ctx", None)
            if ctx is not None:
                await quiesce_all(ctx)
            await super().shutdown(sockets)

    return Server(config)
