"""Command line: ``python -m app serve [--host H] [--port P] [--workers N]``,
``python -m app users add NAME --role R``, ``python -m app users disable|enable NAME``,
``python -m app ratings rebuild`` (replays every settled game into the rating ladders, `app.server.ratings`).

Both apply the database migrations first; ``DATABASE_URL`` selects the database.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from app.auth.roles import Role
from app.auth.users import AccountError, create_user, set_disabled
from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade
from app.server.settings import get_settings
from app.server.storage.disk_backlog import on_this_disk, write_out_backlog


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.server.app import create_app, graceful_server
    from app.server.http.transport import WebSocketProtocol, guarded_protocol, raise_open_files_limit
    from app.server.logs import configure_json_logging

    if args.workers is not None:
        os.environ["PREFERANS_WORKERS"] = str(args.workers)
        get_settings.cache_clear()
    settings = get_settings()
    json_logs = settings.log_format == "json"
    if json_logs:
        configure_json_logging(args.log_level)
    if settings.worker_slot is None:  # the one process, or the supervisor of the workers
        upgrade(settings.database_url)
        if settings.start_sync_limit > 0 and on_this_disk(settings.database_url):
            write_out_backlog(settings.start_sync_limit)  # before any table runs (`storage.disk_backlog`)
    if settings.workers > 1 and settings.worker_slot is None:
        from app.auth.secret import load_token_secret
        from app.server.cluster.supervisor import supervise

        # Made once here (on first start), so the workers never race to create it.
        load_token_secret(settings.token_secret, settings.token_secret_file)
        return supervise(args, settings)
    raise_open_files_limit()
    sys.setswitchinterval(settings.gil_switch_ms / 1000)
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        http=guarded_protocol(settings.header_timeout, settings.max_connections_per_address),
        # Writes each frame to the transport at once (`connections.connection` sends with no task).
        ws=WebSocketProtocol,
        ws_max_size=settings.transport_max_bytes,
        ws_per_message_deflate=settings.ws_deflate,
        timeout_keep_alive=max(1, int(min(30, settings.header_timeout))),
        log_level=args.log_level,
        log_config=None if json_logs else uvicorn.config.LOGGING_CONFIG,
        # Off by default; credentials in URLs are redacted from every log line anyway (app.server.logs).
        access_log=args.access_log,
        lifespan="on",
    )
    server = graceful_server(config, app)
    if settings.worker_slot is None:
        server.run()
    else:
        from app.server.cluster.supervisor import worker_sockets

        # A worker: the public port (shared by every worker, SO_REUSEPORT) and its own port.
        server.run(sockets=worker_sockets(args.host, args.port, settings))
    return 0 if server.started else 3  # as uvicorn.run: 3 is a failed start


async def _add_user(name: str, password: str, role: Role) -> None:
    settings = get_settings()
    engine = make_engine(settings.database_url)
    try:
        async with make_sessionmaker(engine)() as session, session.begin():
            await create_user(session, name, password, role)
    finally:
        await engine.dispose()


def _users_add(args: argparse.Namespace) -> int:
    upgrade(get_settings().database_url)
    password = sys.stdin.readline().rstrip("\r\n")
    try:
        asyncio.run(_add_user(args.name, password, Role(args.role)))
    except AccountError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"created {args.role} {args.name}")
    return 0


async def _set_disabled(name: str, disabled: bool) -> None:
    settings = get_settings()
    engine = make_engine(settings.database_url)
    try:
        async with make_sessionmaker(engine)() as session, session.begin():
            await set_disabled(session, name, disabled)
    finally:
        await engine.dispose()


def _users_disable(args: argparse.Namespace) -> int:
    upgrade(get_settings().database_url)
    disabled = args.users_command == "disable"
    try:
        asyncio.run(_set_disabled(args.name, disabled))
    except AccountError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    # A running server closes the user's sockets within PREFERANS_SESSION_RECHECK_INTERVAL.
    print(f"{'disabled' if disabled else 'enabled'} {args.name}")
    return 0


async def _rebuild_ratings() -> int:
    from app.server.ratings import rebuild

    settings = get_settings()
    engine = make_engine(settings.database_url)
    try:
        async with make_sessionmaker(engine)() as session, session.begin():
            return await rebuild(session)
    finally:
        await engine.dispose()


def _ratings_rebuild(_args: argparse.Namespace) -> int:
    upgrade(get_settings().database_url)
    counted = asyncio.run(_rebuild_ratings())
    print(f"rebuilt the rating ladders from {counted} rated games")
    return 0


def _migrate(_args: argparse.Namespace) -> int:
    upgrade(get_settings().database_url)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="apply migrations and run the server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default="info")
    serve.add_argument("--access-log", action="store_true", help="log every request")
    serve.add_argument(
        "--workers", type=int, help="worker processes, each running a share of the tables (PREFERANS_WORKERS)"
    )
    serve.set_defaults(func=_serve)
    users = commands.add_parser("users", help="manage accounts")
    users_commands = users.add_subparsers(dest="users_command", required=True)
    add = users_commands.add_parser("add", help="create a user; the password is read from stdin")
    add.add_argument("name")
    add.add_argument("--role", choices=[r.value for r in Role], default=Role.PLAYER.value)
    add.set_defaults(func=_users_add)
    for verb, text in (
        ("disable", "disable an account and revoke its tokens"),
        ("enable", "enable it again"),
    ):
        sub = users_commands.add_parser(verb, help=text)
        sub.add_argument("name")
        sub.set_defaults(func=_users_disable)
    ratings = commands.add_parser("ratings", help="the rating ladders")
    ratings_commands = ratings.add_subparsers(dest="ratings_command", required=True)
    rebuild = ratings_commands.add_parser(
        "rebuild", help="replay every settled game into the ladders from nothing"
    )
    rebuild.set_defaults(func=_ratings_rebuild)
    migrate = commands.add_parser("migrate", help="apply the database migrations")
    migrate.set_defaults(func=_migrate)
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
