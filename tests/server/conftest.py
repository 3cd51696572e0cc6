"""Fixtures: a real server (``python -m app serve``) in a subprocess on a free loopback port, on SQLite
or on PostgreSQL.

PostgreSQL tests (marker ``postgres``) get their fresh database from ``tests/conftest.py`` (``pg_database``,
``database_for``), which every test package shares.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pluggy
import pytest

from app.auth.roles import Role
from app.auth.users import create_user
from app.bots.client import Api
from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade
from tests.conftest import database_for
from tests.server.ports import free_port, free_ports

ROOT = Path(__file__).resolve().parents[2]
OPERATOR = "operator1"
ADMIN = "admin1"
PASSWORD = "operator-password"


@dataclass
class ServerProcess:
    """One server process; `kill` is kill -9, `start` (re)starts on the same port and database."""

    database_url: str
    port: int = field(default_factory=free_port)
    log_path: Path | None = None
    proc: subprocess.Popen[bytes] | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    log_level: str = "warning"
    extra_args: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["DATABASE_URL"] = self.database_url
        # Each test server's start would write out the whole machine's backlog, delaying the other test
        # workers' commits; `tests/server/test_disk_backlog.py` checks it apart.
        env.setdefault("PREFERANS_START_SYNC_LIMIT", "0")
        if self.log_path is not None:  # one token secret per test server, beside its log
            env["PREFERANS_TOKEN_SECRET_FILE"] = str(self.log_path.parent / "token_secret")
        env.update(self.extra_env)
        return env

    def cli(self, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "app", *args],
            input=stdin,
            env=self.env(),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def start(self) -> None:
        assert self.proc is None or self.proc.poll() is not None
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "app", "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--log-level", self.log_level, *self.extra_args],
            env=self.env(),
            cwd=ROOT,
            stdout=log,
            stderr=log,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}; see {self.log_path}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server did not come up in 60 s")

    def kill(self) -> None:
        """kill -9: no shutdown code runs."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


async def _add_users(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        async with make_sessionmaker(engine)() as session, session.begin():
            await create_user(session, OPERATOR, PASSWORD, Role.OPERATOR)
            await create_user(session, ADMIN, PASSWORD, Role.ADMIN)
    finally:
        await engine.dispose()


def _server(
    database_url: str,
    tmp_path: Path,
    extra_env: dict[str, str] | None = None,
    *,
    log_level: str = "warning",
    extra_args: tuple[str, ...] = (),
) -> Generator[ServerProcess, None, None]:
    server = ServerProcess(
        database_url,
        log_path=tmp_path / "server.log",
        extra_env=extra_env or {},
        log_level=log_level,
        extra_args=extra_args,
    )
    # In-process for speed; `python -m app users add` itself is tested in test_accounts.py.
    upgrade(database_url)
    asyncio.run(_add_users(database_url))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServerProcess]:
    """A running server on each database."""
    yield from _server(database_for(request, tmp_path), tmp_path)


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[ServerProcess]:
    yield from _server(f"sqlite+aiosqlite:///{tmp_path / 'preferans.db'}", tmp_path)


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One SQLite server for a whole module of quick tests."""
    yield from _server(
        f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('db') / 'preferans.db'}",
        tmp_path_factory.mktemp("log"),
    )


def log_tail(server: ServerProcess, lines: int = 60) -> str:
    if server.log_path is None or not server.log_path.exists():
        return "(no log)"
    return "\n".join(server.log_path.read_text(errors="replace").splitlines()[-lines:])


class Workers:
    def __init__(self, server: ServerProcess, ports: list[int]) -> None:
        self.server = server
        self.ports = ports

    def health(self, slot: int) -> dict[str, Any]:
        data: dict[str, Any] = httpx.get(f"http://127.0.0.1:{self.ports[slot]}/api/health", timeout=2).json()
        return data

    def wait_up(self, slot: int, not_boot: str | None = None, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                data = self.health(slot)
                if data.get("boot") and data["boot"] != not_boot:
                    return data
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"worker {slot} did not come up")


def run_workers(
    url: str,
    tmp_path: Path,
    workers: int = 2,
    lease: float | None = None,
    extra_env: dict[str, str] | None = None,
) -> Iterator[Workers]:
    """``python -m app serve --workers N`` on ``url``, every worker up (its own port answers).

    The lease is the server's (30 s) unless a test needs a live worker presumed dead sooner: with a few
    seconds, a worker slowed down by a loaded machine (its heartbeat late) loses its tables to the other
    one, as the lease says it must, and placement and restarts stop being what the test expects."""
    base = free_ports(workers)
    env = {"PREFERANS_WORKER_PORT_BASE": str(base), "PREFERANS_HEARTBEAT_INTERVAL": "0.5"}
    if lease is not None:
        env["PREFERANS_WORKER_LEASE"] = str(lease)
    env.update(extra_env or {})
    servers = _server(url, tmp_path, env, extra_args=("--workers", str(workers)), log_level="info")
    server = next(servers)
    cluster = Workers(server, [base + slot for slot in range(workers)])
    try:
        for slot in range(workers):
            try:
                cluster.wait_up(slot)
            except AssertionError as error:  # a setup error: the report hook below shows no log for it
                raise AssertionError(f"{error}; the end of the log:\n{log_tail(server)}") from None
        yield cluster
    finally:
        servers.close()


async def login(server: ServerProcess, name: str, password: str = PASSWORD) -> Api:
    api = Api(server.url)
    await api.login(name, password)
    return api


async def new_player(server: ServerProcess, prefix: str = "p") -> Api:
    api = Api(server.url)
    name = f"{prefix}{secrets.token_hex(4)}"
    await api.register(name, "player-password")
    await api.login(name, "player-password")
    return api


@pytest.fixture
async def operator(server: ServerProcess) -> AsyncIterator[Api]:
    api = await login(server, OPERATOR)
    yield api
    await api.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    """On a failure, show the end of the server's log beside the assertion."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed and isinstance(item, pytest.Function):
        names = (
            "server", "sqlite_server", "shared_server", "outage_server", "workers", "sqlite_workers",
            "short_lease_workers", "limited_workers",
        )  # fmt: skip
        for name in names:
            server = item.funcargs.get(name)
            if isinstance(server, Workers):
                server = server.server
            if isinstance(server, ServerProcess) and server.log_path and server.log_path.exists():
                report.sections.append(("server log (tail)", log_tail(server)))
