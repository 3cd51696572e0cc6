"""Load bench (issue 14 §4, issue 24 §5): real websockets against the real server, beside a bare relay.

    .venv/bin/python bench/load.py --tables 100 --idle 20 --duration 30   # SQLite, paced, 3 x (server, relay)
    .venv/bin/python bench/load.py --tables 200 --unpaced --duration 30
    .venv/bin/python bench/load.py --tables 100 --database postgresql+asyncpg://postgres@127.0.0.1:5432/postgres
    .venv/bin/python bench/load.py --tables 100 --bare             # the relay alone
    .venv/bin/python bench/load.py --tables 200 --workers 2        # two worker processes (serve --workers)

By default one invocation makes ``--runs`` (3) runs of the server and as many of the bare relay under the
same load, alternating, each in a process of its own; it prints each run's JSON line and then a summary
line: the machine (CPU model, cores, load average before and after), each figure's spread over the runs
(min, max) and each server run's ratio to the relay run beside it (``x_relay``: ack p99, CPU per ack,
acks/s, CPU per socket connected). A figure compares only with figures of the same invocation: the
machine may be shared.

Starts the server (``python -m app serve``) on a fresh database (a temporary SQLite file, or a fresh
``preferans_bench_<hex>`` database on the PostgreSQL server of ``--database``, dropped afterwards), with
``--tables`` tables of 3 seated players and ``--idle`` tables whose players never act, opens one websocket
per seat, and drives them: paced (each table acts once a second: the seat on move sends a random legal
action) or ``--unpaced`` (the seat on move acts as soon as it sees its update). The idle tables start at
the beginning of the measured window (their third seat sits then, over REST, at a random moment of its
first ``--sit-spread`` seconds, 1 by default) with short clocks: every seat in turn
runs out, and the bench measures how late each timeout reached the clients after its deadline (deadline
plus the lag grace, from the clock the clients were sent).

Prints one JSON line: tables, sockets, acks/s, latency p50/p99/max from a command to its ack and to the
other seats' update (and the acks' p50/p99 apart for the commands sent in the window's first 10 s, when
the idle tables sit and start and their clocks begin to run out, and after; and the p99 of each second's,
``ack_p99_by_s``), timeout lateness p50/p99 (each second's p99 too, ``timeout_late_p99_by_s``), the
idle tables' sits (answered, refused with 503 and tried again, how long an answered one took), errors,
server CPU (cores, ms per ack, and ms per ack of the event loops' threads alone,
``server_loop_cpu_ms_per_ack``), how late the server's loop ran its 50 ms timer (``loop_lag``: the
per cent of the window's samples later than 25, 50 and 100 ms, read from its ``/metrics``), where a
timeout's lateness goes inside the server (from its ``/metrics`` too, each to the bound of the histogram's
bucket its p50 and p99 fall in: ``server_timer_late``, how long after the deadline a table handled its
clock's timer; ``server_commit``, every step's commit; ``server_solver_steps``, the steps that ran the
solver robot off the loop, null when none did) and memory, and
the client's own CPU and loop lag over the window (``client_cpu_cores``, ``client_loop_lag``: the client is
one process on the same machine, and a frame it is late to read counts as the server's latency), and
what the machine's neighbours took meanwhile (``machine``: the share of CPU time stolen by the host and
waiting for the disk, and the cores busy with processes other than the server, its database and the
client; and how much the machine had left for the disk to write before the run, the bench's own filling
of the database included, which the bench writes out first with ``sync``, after a ``CHECKPOINT`` on
PostgreSQL: ``dirty_mb_before_sync``, ``sync_s``). With
``--database`` a PostgreSQL instance running on this machine, the CPU of all its processes (the server's
backends, the WAL writer, ...) is counted too (``database_cpu_*``; null when they cannot be read here), and
the summary adds ``cpu_with_database_ms_per_ack``, the server's and the database's together, to the ratios.
The relay is a minimal websocket server with the same shape of traffic (ack + one update per action to each
seat of the table, encoded once, no game, no database): what any server must at least spend.

With ``--workers N`` the server runs N worker processes; a socket that lands on a worker which does not run
its table is closed with 4307 naming the owner, and the bench reconnects there; one closed with 1013 (the
table was nobody's and the other worker took it meanwhile) connects again, as a page does (both before the
measured window); server CPU and memory are the workers' sums.

With ``--tickets`` each socket is opened as a browser opens it: ``POST /api/auth/ws-ticket?table=ID`` with
the bearer token first, then the URL it answers (the owner's port with several workers) with the
single-use ticket; the ticket's request is part of "CPU a socket connected". Without it a socket carries
the bearer token itself, on the public port.

Users are written straight into the database (one password hash) and their tokens minted with the
server's secret (set by the bench), so 3,000 seats need no 3,000 argon2 logins.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import orjson  # noqa: E402
import sqlalchemy  # noqa: E402
import websockets  # noqa: E402
from fastapi import FastAPI, WebSocket, WebSocketDisconnect  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from app.server.storage.disk_backlog import write_out_backlog  # noqa: E402
from tests.server.ports import free_ports  # noqa: E402

SECRET = "bench-" + secrets.token_hex(16)
GRACE_MS = 500  # LagPolicy: min(per-action cap 500 ms, quota 2000 ms) for a seat that has not used it


TRY_AGAIN = 1013  # the close code of a socket refused for now (`app.protocol.codes.CloseCode.TRY_AGAIN`)


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


# ---------------------------------------------------------------------------------------- the database


def _table(model: type[Any]) -> sqlalchemy.Table:
    """A model's table, typed as the Core table it is (insert() accepts it so)."""
    return cast(sqlalchemy.Table, model.__table__)


async def _pg_admin(url: str, sql: str) -> None:
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"), timeout=10)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def _pg_postmaster(url: str) -> int | None:
    """The PostgreSQL instance's postmaster, when it runs on this machine and its processes can be read
    here (its backends are its children); None otherwise (a remote server, or one in a container)."""
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"), timeout=10)
    try:  # (read while the backend lives: it ends with the connection)
        backend = int(await conn.fetchval("SELECT pg_backend_pid()"))
        status = Path(f"/proc/{backend}/status").read_text()
        if not status.startswith("Name:\tpostgres"):  # the same number here is another process
            return None
    except OSError:
        return None
    finally:
        await conn.close()
    parent = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("PPid:"))
    try:
        Path(f"/proc/{parent}/stat").read_text()
    except OSError:
        return None
    return parent


def fresh_database(url: str | None, tmp: Path) -> tuple[str, str | None]:
    """(database URL, PostgreSQL database to drop afterwards)."""
    if url is None or url.startswith("sqlite"):
        return url or f"sqlite+aiosqlite:///{tmp / 'bench.db'}", None
    name = f"preferans_bench_{secrets.token_hex(4)}"
    asyncio.run(_pg_admin(url, f'CREATE DATABASE "{name}"'))
    return f"{url.rpartition('/')[0]}/{name}", name


@dataclass
class Seats:
    active: list[tuple[int, list[int]]]  # (table, the users of seats 0..2)
    idle: list[tuple[int, list[int]]]  # seats 0 and 1 taken; seat 2's user sits when the window opens


async def populate(url: str, tables: int, idle: int, duration: float, *, idle_run_out: bool = True) -> Seats:
    """Users, a room, ``tables`` full tables (the server starts them on boot) and ``idle`` tables with two
    seats, in a few statements; ``idle_run_out`` False: the idle tables get the full tables' long clocks."""
    from sqlalchemy import insert

    from app.auth.passwords import hash_password
    from app.auth.users import name_key
    from app.db.engine import make_engine
    from app.db.models import GameTable, Room, TableSeat, User
    from app.engine.conventions import conventions_from

    engine = make_engine(url)
    now = time.time()
    password = hash_password("bench-password")
    total_users = 3 * (tables + idle) + 1
    try:
        async with engine.begin() as conn:
            await conn.execute(
                insert(_table(User)),
                [
                    {
                        "name": f"bench{i}",
                        "name_key": name_key(f"bench{i}"),
                        "password_hash": password,
                        "role": "operator" if i == 0 else "player",
                        "created_at": now,
                    }
                    for i in range(total_users)
                ],
            )
            busy = conventions_from(
                "fspr-leningrad", {"pool_size": 1000, "deal_time": 3600, "reserve_time": 3600}
            )
            room = (
                await conn.execute(
                    insert(_table(Room)).returning(_table(Room).c.id),
                    [
                        {
                            "name": "bench",
                            "operator_id": 1,
                            "preset": "fspr-leningrad",
                            "overrides": {},
                            "conventions": busy.model_dump(mode="json"),
                            "closed": False,
                            "created_at": now,
                        }
                    ],
                )
            ).scalar_one()
            rows = []
            for i in range(tables + idle):
                if i < tables or not idle_run_out:
                    conventions = busy
                else:
                    # Three seats run out in turn within the window: deal time 1-3 s, reserve 0.5 s.
                    k = i - tables
                    deal = 1.0 + 2.0 * k / max(1, idle)
                    deal = min(deal, max(0.5, duration / 4 - 1.0))
                    conventions = conventions_from("fspr-leningrad", {"deal_time": deal, "reserve_time": 0.5})
                rows.append(
                    {
                        "room_id": room,
                        "seats": 3,
                        "conventions": conventions.model_dump(mode="json"),
                        "first_dealer": i % 3,
                        "status": "waiting",
                        "version": 0,
                        "created_at": now,
                    }
                )
            ids = [
                r[0]
                for r in (
                    await conn.execute(insert(_table(GameTable)).returning(_table(GameTable).c.id), rows)
                ).all()
            ]
            ids.sort()
            seats = []
            plan = Seats([], [])
            for n, table_id in enumerate(ids):
                users = [2 + 3 * n + s for s in range(3)]
                taken = 3 if n < tables else 2
                seats += [
                    {"table_id": table_id, "seat": s, "user_id": users[s], "last_client_seq": 0}
                    for s in range(taken)
                ]
                (plan.active if n < tables else plan.idle).append((table_id, users))
            await conn.execute(insert(_table(TableSeat)), seats)
    finally:
        await engine.dispose()
    return plan


async def drain(ws: Any) -> None:
    """Reads a client socket until it closes, keeping nothing (a watcher that must not fall behind)."""
    with contextlib.suppress(websockets.ConnectionClosed):
        async for _ in ws:
            pass


def token(user_id: int) -> str:
    from app.auth.tokens import issue_token

    return issue_token(SECRET, user_id, time.time(), 3600)[0]


# ------------------------------------------------------------------------------------------ the relay


def relay_app() -> Any:
    """A minimal websocket relay with the same shape of traffic: a snapshot on connect; per action an ack
    to the sender and one update (encoded once per seat) to each seat of the table.

    It collects cycles as the server does (`app.server.collector`, with the server's settings: what exists
    at the start frozen, the young generation on a timer, its survivors out of later young collections):
    with Python's own trigger, one full collection of its sockets' objects in each run's window, 300 ms
    that found nothing (2026-12-04, 1,000 tables), was the relay's whole ack p99, so the ratios of the
    p99s compared the server with that pause, not with a relay."""
    from app.server.collector import freeze_startup, run_collector, tune_collector
    from app.server.settings import Settings

    settings = Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        freeze_startup()
        if settings.gc_young_ms <= 0:
            tune_collector(settings.gc_thresholds)
            yield
            return
        young_s, full_s = settings.gc_young_ms / 1000, settings.gc_full_interval
        collector = asyncio.create_task(run_collector(young_s, full_s, settings.gc_full_growth_mb))
        try:
            yield
        finally:
            collector.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await collector

    app = FastAPI(lifespan=lifespan)
    tables: dict[int, dict[str, Any]] = {}
    filler = {"hand": ["x" * 3] * 10, "trick": [], "bids": list(range(20))}  # a view's size, roughly

    def frame(table: dict[str, Any], seat: int, kind: str) -> str:
        legal = [{"type": "pass", "seat": seat}] if table["turn"] == seat else []
        return orjson.dumps(
            {
                "type": kind,
                "table": table["id"],
                "v": table["v"],
                "status": "playing",
                "events": [],
                "view": filler,
                "clock": {"running": table["turn"]},
                "legal": legal,
                "sheet": None,
                "actions": table["v"],
            }
        ).decode()

    @app.websocket("/ws/tables/{table_id}")
    async def sock(ws: WebSocket, table_id: int) -> None:
        seat = int(ws.query_params.get("seat", "0"))
        table = tables.setdefault(table_id, {"id": table_id, "v": 0, "turn": 0, "conns": {}})
        await ws.accept()
        table["conns"][seat] = ws
        await ws.send_text(frame(table, seat, "snapshot"))
        try:
            while True:
                message = orjson.loads(await ws.receive_text())
                if message.get("type") != "action":
                    continue
                table["v"] += 1
                table["turn"] = (table["turn"] + 1) % 3
                await ws.send_text(
                    orjson.dumps({"type": "ack", "seq": message["seq"], "v": table["v"]}).decode()
                )
                for other, conn in list(table["conns"].items()):
                    try:
                        await conn.send_text(frame(table, other, "update"))
                    except Exception:
                        table["conns"].pop(other, None)
        except WebSocketDisconnect:
            table["conns"].pop(seat, None)

    @app.get("/api/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    return app


# ------------------------------------------------------------------------------------------ the client


class Refused(Exception):
    """A ticket's request answered other than 200 (``response``: its status and headers, as httpx's)."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        super().__init__(f"{status}: {body[:200]!r}")
        self.response = SimpleResponse(status, headers)


@dataclass
class SimpleResponse:
    status_code: int
    headers: dict[str, str]


class TicketClient:
    """``POST /api/auth/ws-ticket`` over kept-alive HTTP/1.1 connections, written and parsed by hand. The
    client is one process on the same cores as the server, and with httpx its own CPU (about 4 ms a
    socket, a ticket's request and a handshake) was the whole of the time the sockets took to connect:
    13-17 s for 3,300, with the server's loop two thirds idle."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def post(self, path: str, token: str) -> dict[str, Any]:
        """The answer's JSON (a ``Content-Length`` body: the server sends no other); `Refused` unless 200.
        A server that does not answer within a minute fails the run, as httpx's timeout did."""
        async with asyncio.timeout(60):
            if self.idle:
                try:
                    return await self._post(self.idle.pop(), path, token)
                except (asyncio.IncompleteReadError, ConnectionError):
                    pass  # a kept-alive connection the server closed meanwhile: a new one
            return await self._post(await asyncio.open_connection(self.host, self.port), path, token)

    async def _post(
        self, connection: tuple[asyncio.StreamReader, asyncio.StreamWriter], path: str, token: str
    ) -> dict[str, Any]:
        reader, writer = connection
        try:
            writer.write(
                f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAuthorization: Bearer {token}\r\n"
                "Content-Length: 0\r\n\r\n".encode()
            )
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            status = int(head[0].split(" ", 2)[1])
            fields = (line.partition(":") for line in head[1:] if line)
            headers = {k.strip().lower(): v.strip() for k, _, v in fields}
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        except BaseException:
            writer.close()
            raise
        if headers.get("connection", "").lower() == "close":
            writer.close()
        else:
            self.idle.append(connection)
        if status != 200:
            raise Refused(status, {k.title(): v for k, v in headers.items()}, body)
        answer: dict[str, Any] = orjson.loads(body)
        return answer

    async def aclose(self) -> None:
        for _, writer in self.idle:
            writer.close()
        self.idle.clear()


@dataclass
class Stats:
    acks: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    ack_ms: list[float] = field(default_factory=list)
    ack_at: list[float] = field(default_factory=list)  # when each of ``ack_ms``'s commands was sent
    update_ms: list[float] = field(default_factory=list)
    late_ms: list[float] = field(default_factory=list)
    late_at: list[float] = field(default_factory=list)  # when each of ``late_ms``'s timeouts was due
    sit_ms: list[float] = field(default_factory=list)  # the idle tables' sits that were answered 200
    sits_refused: int = 0  # answered 503 (the server's admission shedding the surge) and tried again
    # While the sockets connect: tickets' requests and handshakes answered 503, each tried again.
    connects_refused: int = 0
    measuring: bool = False


@dataclass
class Sock:
    table: Table
    seat: int
    ws: Any = None
    v: int = -1
    legal: list[dict[str, Any]] = field(default_factory=list)
    seq: int = 0
    pending: int | None = None
    deadline: float | None = None  # idle tables: when this table's running seat should time out (client time)
    first: str | bytes | None = None  # the frame read while connecting (several workers: was it "moved"?)


@dataclass
class Table:
    id: int
    idle: bool
    socks: list[Sock] = field(default_factory=list)
    # version expected -> when its command was sent, and by which seat
    sent: dict[int, tuple[float, int]] = field(default_factory=dict)
    moved: asyncio.Event = field(default_factory=asyncio.Event)


class Load:
    def __init__(self, args: argparse.Namespace, base: str) -> None:
        self.args = args
        self.base = base
        self.stats = Stats()
        self.rng = random.Random(1)
        self.tasks: list[asyncio.Task[None]] = []
        self.sending: set[asyncio.Future[None]] = set()
        self.http: TicketClient | None = None  # --tickets: asks each socket's ticket and URL

    async def ticket_url(self, sock: Sock, user: int) -> str:
        """``--tickets``: the socket's URL as a browser opens it, from ``POST /api/auth/ws-ticket``: the
        owner's port with several workers, a single-use ticket instead of the bearer token."""
        assert self.http is not None
        # (a 503 is tried again by `connect`, as a refused handshake)
        answer = await self.http.post(f"/api/auth/ws-ticket?table={sock.table.id}", token(user))
        url = answer.get("url") or f"{self.base}/ws/tables/{sock.table.id}?ticket={answer['ticket']}"
        return f"{url}&seat={sock.seat}"

    async def connect(self, sock: Sock, user: int | None) -> None:
        url = f"{self.base}/ws/tables/{sock.table.id}?seat={sock.seat}"
        tickets = self.http is not None and user is not None
        headers = {} if user is None or tickets else {"Authorization": f"Bearer {token(user)}"}
        busy = 0
        attempt = 0
        elsewhere = 0
        while True:
            try:
                if tickets:
                    assert user is not None
                    url = await self.ticket_url(sock, user)  # single-use: a new one for each attempt
                sock.ws = await websockets.connect(
                    url, max_size=2**22, open_timeout=60, ping_interval=None, additional_headers=headers
                )
                if self.args.workers > 1 and not self.args.bare:
                    # The first frame: the snapshot, or "moved" and a close naming the table's worker.
                    sock.first = await sock.ws.recv()
                    first = sock.first if isinstance(sock.first, bytes) else sock.first.encode()
                    if b'"moved"' in first:
                        with contextlib.suppress(websockets.ConnectionClosed):
                            await sock.ws.recv()
                        url = f"{sock.ws.close_reason}?seat={sock.seat}"
                        sock.first = None
                        raise ConnectionRefusedError("moved")
                    if b'"type":"error"' in first:
                        with contextlib.suppress(websockets.ConnectionClosed):
                            await sock.ws.recv()
                        # 1013, try again: the table was nobody's when this socket came and the other
                        # worker took it meanwhile (two seats' sockets at once, one at each worker).
                        if sock.ws.close_code == TRY_AGAIN and elsewhere < 50:
                            sock.first = None
                            elsewhere += 1
                            await asyncio.sleep(0.1 * random.random())
                            continue
                break
            except Exception as exc:
                response = getattr(exc, "response", None)
                if getattr(response, "status_code", None) == 503 and busy < 120:
                    # The server's admission sheds handshakes beyond its pool (503 `busy`, Retry-After):
                    # come back then, as a client should; it is no failure of the connection.
                    busy += 1
                    self.stats.connects_refused += 1
                    retry_after = float(response.headers.get("Retry-After", "1"))  # type: ignore[union-attr]
                    await asyncio.sleep(retry_after * (0.5 + random.random()))
                    continue
                if attempt == 4:
                    raise
                if not (isinstance(exc, ConnectionRefusedError) and str(exc) == "moved"):
                    await asyncio.sleep(0.5 + attempt)
                attempt += 1
        self.tasks.append(asyncio.create_task(self.read(sock)))

    def act(self, sock: Sock) -> None:
        if not sock.legal or sock.pending is not None:
            return
        sock.seq += 1
        sock.pending = sock.seq
        action = self.rng.choice(sock.legal)
        now = time.monotonic()
        sock.table.sent[sock.v + 1] = (now, sock.seat)
        sock.sent_at = now  # type: ignore[attr-defined]
        sock.legal = []
        frame = orjson.dumps({"type": "action", "seq": sock.seq, "action": action}).decode()
        task = asyncio.ensure_future(sock.ws.send(frame))
        self.sending.add(task)
        task.add_done_callback(self.sending.discard)

    async def frames(self, sock: Sock) -> AsyncIterator[str | bytes]:
        if sock.first is not None:
            yield sock.first
        async for text in sock.ws:
            yield text

    async def read(self, sock: Sock) -> None:
        stats, table = self.stats, sock.table
        try:
            async for text in self.frames(sock):
                now = time.monotonic()
                m = orjson.loads(text)
                kind = m.get("type")
                if kind in ("snapshot", "update"):
                    v = m["v"]
                    if kind == "update" and stats.measuring and not table.idle:
                        sent = table.sent.get(v)
                        if sent is not None and sent[1] != sock.seat:  # the other seats' update
                            stats.update_ms.append((now - sent[0]) * 1000)
                    sock.v = max(sock.v, v)
                    sock.legal = m.get("legal") or []
                    if table.idle and sock.seat == 0:
                        self.watch_clock(sock, m, now)
                    if sock.legal:
                        table.moved.set()
                        if self.args.unpaced and not table.idle:
                            self.act(sock)
                elif kind == "ack":
                    if m.get("seq") == sock.pending:
                        sock.pending = None
                        if stats.measuring:
                            stats.acks += 1
                            stats.ack_ms.append((now - sock.sent_at) * 1000)  # type: ignore[attr-defined]
                            stats.ack_at.append(sock.sent_at)  # type: ignore[attr-defined]
                        if self.args.unpaced and sock.legal:  # the update came first: our turn again
                            self.act(sock)
                elif kind == "error":
                    code = m.get("code", "?")
                    if stats.measuring:
                        stats.errors[code] = stats.errors.get(code, 0) + 1
                    if m.get("seq") == sock.pending:
                        sock.pending = None
        except websockets.ConnectionClosed:
            pass

    def watch_clock(self, sock: Sock, m: dict[str, Any], now: float) -> None:
        """Idle tables: how late did each timeout reach us after the deadline the clock implied?"""
        table = sock.table
        if any(e.get("kind") == "timeout" for e in m.get("events") or ()) and sock.deadline is not None:
            if self.stats.measuring:
                self.stats.late_ms.append((now - sock.deadline) * 1000)
                self.stats.late_at.append(sock.deadline)
            sock.deadline = None
        clock = m.get("clock") or {}
        running = clock.get("running")
        if running is None or m.get("status") != "playing":
            sock.deadline = None
            return
        left = clock["seats"][running]
        if left.get("out"):
            return
        sock.deadline = now + (left["deal_ms"] + left["reserve_ms"] + GRACE_MS) / 1000
        del table  # one deadline per table, watched on seat 0's socket

    async def pace(self, table: Table, stop: float) -> None:
        await asyncio.sleep(self.rng.random())
        tick = time.monotonic()
        while tick < stop:
            for sock in table.socks:
                if sock.legal:
                    self.act(sock)
                    break
            tick += 1.0
            await asyncio.sleep(max(0.0, tick - time.monotonic()))


SETTLE_S = 10.0  # the first seconds of the window, reported apart (`_phases`)
PHASES = (f"first_{SETTLE_S:.0f}s", f"after_{SETTLE_S:.0f}s")


def _phases(values: list[float], at: list[float], start: float) -> dict[str, list[float]]:
    """The values (acks' latencies, timeouts' lateness) of what was sent or due in the window's first
    `SETTLE_S` seconds, and after."""
    cut = start + SETTLE_S
    timed = list(zip(values, at, strict=True))
    first, after = PHASES
    return {first: [ms for ms, t in timed if t < cut], after: [ms for ms, t in timed if t >= cut]}


def _by_second(values: list[float], at: list[float], start: float, seconds: float) -> list[float | None]:
    """The p99 of the values (acks' latencies, timeouts' lateness) of what was sent or due in each second of
    the window (None: nothing in that second): when in the window a tail was made."""
    slots: list[list[float]] = [[] for _ in range(max(1, int(seconds) + 1))]
    for value, t in zip(values, at, strict=True):
        slot = math.floor(t - start)
        if 0 <= slot < len(slots):
            slots[slot].append(value)
    return [pct(slot, 0.99) for slot in slots]


def _family(pid: int) -> list[int]:
    """The server's process and its children (the workers under ``--workers``)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return [pid, *(int(c) for c in children)]


def _ticks(path: str) -> list[int] | None:
    """utime, stime, cutime, cstime of a ``/proc`` stat file (None: the process or thread has ended)."""
    try:
        fields = Path(path).read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return [int(f) for f in fields[11:15]]


def proc_cpu_s(pid: int) -> float:
    """CPU seconds of ``pid`` and its children, those that ended included (``pid`` waited for them: a
    database backend that closed during the run, a worker restarted)."""
    total = 0
    for member in _family(pid):
        ticks = _ticks(f"/proc/{member}/stat")
        if ticks is not None:  # one that ended meanwhile: its parent's count of ended children has it
            total += sum(ticks) if member == pid else ticks[0] + ticks[1]
    return total / os.sysconf("SC_CLK_TCK")


def _loops(pid: int) -> list[int]:
    """The processes that run an event loop of the server: the workers under ``--workers`` (the
    supervisor only watches them), else the server's own process."""
    return _family(pid)[1:] or [pid]


def loop_cpu_s(members: list[int]) -> float | None:
    """CPU seconds of the main threads of ``members``: each server process's event loop (its other
    threads are the SQLite writer, the ratings pass, the executor's). None if one of them has ended: a
    thread's CPU is not kept after its process ends, so the figure would miss it."""
    total = 0
    for member in members:
        ticks = _ticks(f"/proc/{member}/task/{member}/stat")
        if ticks is None:
            return None
        total += ticks[0] + ticks[1]
    return total / os.sysconf("SC_CLK_TCK")


def machine_ticks() -> list[int] | None:
    """The machine's CPU time so far (/proc/stat's first line, in ticks): user, nice, system, idle,
    iowait, irq, softirq, steal."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()
    except OSError:
        return None
    return [int(f) for f in fields[1:9]]


def machine_shares(before: list[int] | None, after: list[int] | None, ours_s: float) -> dict[str, Any] | None:
    """The window's share of the machine's CPU time that was stolen by its host (steal), waited for the
    disk (iowait) and went to processes other than the server, its database and the client (``others``,
    in cores; ``ours_s`` is their CPU seconds, a PostgreSQL whose processes cannot be read here counted
    among the others): on a shared machine a run with more of these is a slower run, whatever the code."""
    if before is None or after is None:
        return None
    delta = [b - a for a, b in zip(before, after, strict=True)]
    total = sum(delta)
    if total <= 0:
        return None
    tick = os.sysconf("SC_CLK_TCK")
    busy = delta[0] + delta[1] + delta[2] + delta[5] + delta[6]
    others = max(0.0, busy / tick - ours_s)
    return {
        "steal_pct": round(100 * delta[7] / total, 1),
        "iowait_pct": round(100 * delta[4] / total, 1),
        "others_cores": round(others / (total / tick / (os.cpu_count() or 1)), 2),
    }


def _memory_mb(status: str, keys: tuple[str, ...] = ("VmRSS", "VmHWM")) -> dict[str, float]:
    """``keys`` of a ``/proc`` file of "name: value kB" lines (VmRSS and VmHWM of ``/proc/<pid>/status``
    by default), in MB."""
    values: dict[str, float] = {}
    for line in Path(status).read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in keys:
            values[key] = int(rest.split()[0]) / 1024
    return values


FLUSH_LIMIT_S = 600.0  # a backlog still being written after that is reported (``sync_s`` null)


def flush_disk() -> dict[str, float | None]:
    """Write the machine's dirty pages out before a run starts, and say how many there were.

    The server's commits wait for the disk; the kernel's writeback of what other work left dirty (a
    `pip install`, a test run, half a minute before) shares the same disk and delayed every commit
    of a run's second by up to half a second (2026-12-06: 1.5 GB written, then the first command: ack
    p99 509 ms in one second, commits' p99 up to 500 ms; without it no such second). Such a second is the
    machine's earlier work, not this run's: it is written out first, as the server writes it out at its
    start (`app.server.storage.disk_backlog`), and the run's line says how much."""
    dirty_mb = 0.0
    with contextlib.suppress(OSError, ValueError):
        dirty_mb = sum(_memory_mb("/proc/meminfo", ("Dirty", "Writeback")).values())
    took = write_out_backlog(FLUSH_LIMIT_S)
    return {"dirty_mb_before_sync": round(dirty_mb, 1), "sync_s": None if took is None else round(took, 2)}


def own_rss_mb() -> float:
    """This process's resident memory alone (its children, the server, apart)."""
    return _memory_mb("/proc/self/status").get("VmRSS", 0.0)


def proc_mem_mb(pid: int) -> tuple[float, float]:
    values: dict[str, float] = {}
    for member in _family(pid):
        for key, mb in _memory_mb(f"/proc/{member}/status").items():
            values[key] = values.get(key, 0.0) + mb
    return round(values.get("VmRSS", 0.0), 1), round(values.get("VmHWM", 0.0), 1)


# The loop-lag histogram's bounds (seconds) the bench reports the share of samples above.
LAG_BOUNDS = ("0.025", "0.05", "0.1")

# The server's histograms read before and after the window. Beside the loop's lag, the three that take a
# timeout's lateness as the clients see it apart: how late the table handled its timer, the step's commit,
# and the steps that ran the solver robot off the loop.
HISTOGRAMS = (
    "preferans_loop_lag_seconds",
    "preferans_timeout_lateness_seconds",
    "preferans_commit_seconds",
    "preferans_solver_robot_seconds",
)

Histograms = dict[str, dict[str, float]]


async def histograms(port: int) -> Histograms | None:
    """The server's `HISTOGRAMS` (every worker's summed): per family its samples ("all") and the samples at
    most each bucket's bound (keyed by the bound's text); None where there are none (the relay) and when a
    worker did not answer the scrape (``preferans_worker_up`` 0): a sum without its counts would pass for
    the whole server's."""
    try:
        async with httpx.AsyncClient(timeout=10) as http:
            r = await http.get(f"http://127.0.0.1:{port}/metrics")
    except httpx.HTTPError:
        return None
    if r.status_code != 200:
        return None
    found: Histograms = {}
    for family in text_string_to_metric_families(r.text):
        if family.name == "preferans_worker_up" and any(s.value == 0 for s in family.samples):
            return None
        if family.name not in HISTOGRAMS:
            continue
        counts = found.setdefault(family.name, {})
        for sample in family.samples:
            if sample.name.endswith("_count"):
                key = "all"
            elif sample.name.endswith("_bucket") and sample.labels["le"] != "+Inf":
                key = sample.labels["le"]
            else:
                continue
            counts[key] = counts.get(key, 0.0) + sample.value
    return found or None


def bucket_quantiles(
    before: Histograms | None, after: Histograms | None, family: str
) -> dict[str, Any] | None:
    """The window's samples of a histogram, and the bucket bound (ms) its p50 and p99 fall within: a
    histogram keeps counts per bucket, so "p99_le_ms": 50 says the p99 is at most 50 ms, and more than the
    bound below it. None for a histogram with no sample in the window."""
    if before is None or after is None or family not in after:
        return None
    old, new = before.get(family, {}), after[family]
    samples = new.get("all", 0.0) - old.get("all", 0.0)
    if samples <= 0:
        return None
    bounds = sorted((float(le), le) for le in new if le != "all")
    out: dict[str, Any] = {"count": int(samples)}
    for name, q in (("p50_le_ms", 0.5), ("p99_le_ms", 0.99)):
        out[name] = next(
            (round(bound * 1000, 1) for bound, le in bounds if new[le] - old.get(le, 0.0) >= q * samples),
            None,  # beyond the last bound
        )
    return out


def lag_shares(before: Histograms | None, after: Histograms | None) -> dict[str, Any] | None:
    """The window's loop-lag samples, and the per cent of them later than each bound."""
    family = "preferans_loop_lag_seconds"
    if before is None or after is None or family not in after:
        return None
    old, new = before.get(family, {}), after[family]
    samples = new["all"] - old.get("all", 0.0)
    if samples <= 0:
        return None
    shares: dict[str, Any] = {"samples": int(samples)}
    for bound in LAG_BOUNDS:
        within = new[bound] - old.get(bound, 0.0)
        shares[f"over_{round(float(bound) * 1000)}ms_pct"] = round(100 * (samples - within) / samples, 2)
    return shares


class ClientLag:
    """How late the client's own loop ran a 50 ms timer during the window. The client is the instrument:
    while its loop is busy, the frames it has not read yet wait in its socket, and that wait is counted as
    the server's latency. With it beside each run, a tail the client made shows up as the client's."""

    def __init__(self) -> None:
        self.late: list[float] = []

    async def run(self) -> None:
        while True:
            due = time.monotonic() + LAG_TICK_S
            await asyncio.sleep(LAG_TICK_S)
            self.late.append((time.monotonic() - due) * 1000)

    def shares(self) -> dict[str, Any] | None:
        if not self.late:
            return None
        shares: dict[str, Any] = {"samples": len(self.late), "p99_ms": pct(self.late, 0.99)}
        for bound in LAG_BOUNDS:
            ms = float(bound) * 1000
            over = sum(1 for late in self.late if late > ms)
            shares[f"over_{round(ms)}ms_pct"] = round(100 * over / len(self.late), 2)
        return shares


LAG_TICK_S = 0.05  # as the server's own probe (`app.server.metrics.watch_loop_lag`)


async def drive(
    args: argparse.Namespace, port: int, pid: int, plan: Seats | None, postmaster: int | None = None
) -> dict[str, Any]:
    load = Load(args, f"ws://127.0.0.1:{port}")
    if args.tickets and not args.bare:
        load.http = TicketClient("127.0.0.1", port)
    tables: list[Table] = []
    gate = asyncio.Semaphore(64)
    connects = []
    active = plan.active if plan else [(i + 1, None) for i in range(args.tables)]
    idle = plan.idle if plan else []
    for table_id, users in [*active, *idle]:
        table = Table(table_id, idle=(table_id, users) in idle)
        tables.append(table)
        for seat in range(3):
            sock = Sock(table, seat)
            table.socks.append(sock)

            async def open_one(
                sock: Sock = sock, user: int | None = None if users is None else users[seat]
            ) -> None:
                async with gate:
                    await load.connect(sock, user)

            connects.append(open_one())
    started, connect_cpu0, connect_client0 = time.monotonic(), proc_cpu_s(pid), time.process_time()
    try:
        await asyncio.gather(*connects)
    finally:
        if load.http is not None:
            await load.http.aclose()
    connect_s = time.monotonic() - started
    # What the server spent accepting them (handshakes, each socket's checks, reading its table back and
    # its first snapshot): what a restart costs while every client comes back at once. Not unpaced, whose
    # tables start playing at their first snapshot.
    connect_cpu, connect_client = proc_cpu_s(pid) - connect_cpu0, time.process_time() - connect_client0

    def per_socket(seconds: float) -> float | None:
        return None if args.unpaced else round(1000 * seconds / len(connects), 3)

    # The client is the instrument: a pause of its own is counted as the server's latency. Its cycle
    # collector's were the largest (a young collection every 50 ms, an older one every 250 ms that scanned
    # every socket's objects made since: 15-25 % of the client's CPU samples, its loop's p99 lag 25-50 ms).
    # A run is short, so the client does not collect at all: what exists after connecting is frozen, and
    # the cyclic garbage of the window is only held (``client_rss_growth_mb`` shows how much).
    gc.collect()
    gc.freeze()
    gc.disable()
    await asyncio.sleep(args.warmup)

    load.stats.measuring = True
    # PostgreSQL's own processes (the server's backends, the WAL writer, ...) work for the server too: their
    # CPU is counted beside the server's (the instance serves nothing else during a run).
    db0 = proc_cpu_s(postmaster) if postmaster is not None else None
    loops = _loops(pid)
    histograms0 = None if args.bare else await histograms(port)
    cpu0, loop0, t0 = proc_cpu_s(pid), loop_cpu_s(loops), time.monotonic()
    client_lag, client0, ticks0 = ClientLag(), time.process_time(), machine_ticks()
    client_rss0 = own_rss_mb()
    client_probe = asyncio.create_task(client_lag.run())
    stop = t0 + args.duration
    if plan is not None and plan.idle:
        # The idle tables start now: their third seat sits (REST), spread over the first `--sit-spread` s.
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:

            async def sit(table_id: int, user: int) -> None:
                await asyncio.sleep(args.sit_spread * random.random())
                for _ in range(20):  # a 503 is the server's admission shedding a surge: try again
                    asked = time.monotonic()
                    r = await http.post(
                        f"/api/tables/{table_id}/sit",
                        json={"seat": 2},
                        headers={"Authorization": f"Bearer {token(user)}"},
                    )
                    if r.status_code != 503:
                        if r.status_code == 200:
                            load.stats.sit_ms.append((time.monotonic() - asked) * 1000)
                        break
                    load.stats.sits_refused += 1
                    await asyncio.sleep(0.2 + random.random() / 2)
                if r.status_code != 200:
                    load.stats.errors[f"sit_{r.status_code}"] = (
                        load.stats.errors.get(f"sit_{r.status_code}", 0) + 1
                    )

            sits = asyncio.gather(*(sit(t, users[2]) for t, users in plan.idle))
            await _run_window(load, tables, args, stop)
            await sits
    else:
        await _run_window(load, tables, args, stop)
    elapsed = time.monotonic() - t0
    client_probe.cancel()
    client_cpu = time.process_time() - client0
    ticks1 = machine_ticks()
    cpu, loop_end = proc_cpu_s(pid) - cpu0, loop_cpu_s(loops)
    # A worker restarted during the window: its loop's CPU is lost with it, so no figure is given.
    loop_cpu = None if loop_end is None or loop0 is None or _loops(pid) != loops else loop_end - loop0
    db_cpu = proc_cpu_s(postmaster) - db0 if postmaster is not None and db0 is not None else None
    shares = machine_shares(ticks0, ticks1, cpu + client_cpu + (db_cpu or 0.0))
    load.stats.measuring = False
    histograms1 = None if args.bare else await histograms(port)
    lag = lag_shares(histograms0, histograms1)
    rss, hwm = proc_mem_mb(pid)
    client_rss_growth = own_rss_mb() - client_rss0
    for table in tables:
        for sock in table.socks:
            if sock.ws is not None:
                await sock.ws.close()
    for task in load.tasks:
        task.cancel()
    s = load.stats
    return {
        "sockets": sum(len(t.socks) for t in tables),
        "connect_s": round(connect_s, 1),
        "connect_cpu_ms_per_socket": per_socket(connect_cpu),
        "connect_client_cpu_ms_per_socket": per_socket(connect_client),
        "connect_refused_503": s.connects_refused,
        "seconds": round(elapsed, 1),
        "acks": s.acks,
        "acks_per_s": round(s.acks / elapsed, 1),
        "ack_ms": {"p50": pct(s.ack_ms, 0.5), "p99": pct(s.ack_ms, 0.99), "max": pct(s.ack_ms, 1.0)},
        # The window's first seconds (the idle tables sit and start, their clocks begin to run out) apart
        # from the rest: where the tail comes from.
        **{
            f"ack_ms_{name}": {"p50": pct(part, 0.5), "p99": pct(part, 0.99)}
            for name, part in _phases(s.ack_ms, s.ack_at, t0).items()
        },
        "ack_p99_by_s": _by_second(s.ack_ms, s.ack_at, t0, elapsed),
        "updates": len(s.update_ms),  # the other seats' updates matched to the command that caused them
        "update_ms": {
            "p50": pct(s.update_ms, 0.5),
            "p99": pct(s.update_ms, 0.99),
            "max": pct(s.update_ms, 1.0),
        },
        "timeouts": len(s.late_ms),
        "timeout_late_ms": {
            "p50": pct(s.late_ms, 0.5),
            "p99": pct(s.late_ms, 0.99),
            "max": pct(s.late_ms, 1.0),
        },
        **{
            f"timeout_late_ms_{name}": {"p99": pct(part, 0.99), "count": len(part)}
            for name, part in _phases(s.late_ms, s.late_at, t0).items()
        },
        "timeout_late_p99_by_s": _by_second(s.late_ms, s.late_at, t0, elapsed),
        "errors": s.errors,
        "sits": {
            "answered": len(s.sit_ms),
            "refused_503": s.sits_refused,
            "ms_p50": pct(s.sit_ms, 0.5),
            "ms_max": pct(s.sit_ms, 1.0),
        },
        # How late the server's loop ran its 50 ms timer over the window (its /metrics; null for the relay).
        "loop_lag": lag,
        # Within the server, over the window (its /metrics, to a bucket's bound): how late the tables
        # handled their clocks' timers, their steps' commits, the steps that ran the solver robot.
        "server_timer_late": bucket_quantiles(histograms0, histograms1, "preferans_timeout_lateness_seconds"),
        "server_commit": bucket_quantiles(histograms0, histograms1, "preferans_commit_seconds"),
        "server_solver_steps": bucket_quantiles(histograms0, histograms1, "preferans_solver_robot_seconds"),
        "server_cpu_cores": round(cpu / elapsed, 2),
        "server_cpu_ms_per_ack": round(1000 * cpu / s.acks, 2) if s.acks else None,
        "server_loop_cpu_ms_per_ack": (
            round(1000 * loop_cpu / s.acks, 2) if s.acks and loop_cpu is not None else None
        ),
        "database_cpu_cores": None if db_cpu is None else round(db_cpu / elapsed, 2),
        "database_cpu_ms_per_ack": None if db_cpu is None or not s.acks else round(1000 * db_cpu / s.acks, 2),
        "server_rss_mb": rss,
        "server_peak_rss_mb": hwm,
        "client_cpu_s": round(time.process_time(), 1),
        # The instrument itself over the window: its CPU and how late its loop ran (`ClientLag`).
        "client_cpu_cores": round(client_cpu / elapsed, 2),
        "client_rss_growth_mb": round(client_rss_growth, 1),
        "client_loop_lag": client_lag.shares(),
        "machine": shares,
    }


async def _run_window(load: Load, tables: list[Table], args: argparse.Namespace, stop: float) -> None:
    if args.unpaced:
        for table in tables:  # kick every table: whoever holds legal actions acts, then the replies drive it
            for sock in table.socks:
                if not table.idle and sock.legal:
                    load.act(sock)
        await asyncio.sleep(max(0.0, stop - time.monotonic()))
    else:
        await asyncio.gather(*(load.pace(t, stop) for t in tables if not t.idle))
        await asyncio.sleep(max(0.0, stop - time.monotonic()))


# ------------------------------------------------------------------------------------------ main


def wait_up(port: int, proc: subprocess.Popen[bytes], workers: int = 1) -> None:
    """The server answers (every worker on its own port, under ``--workers``: each takes its share of the
    tables as it starts)."""
    ports = [port] if workers == 1 else [port + 1 + slot for slot in range(workers)]
    deadline = time.monotonic() + 300
    while ports and time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{ports[0]}/api/health", timeout=2).status_code == 200:
                ports.pop(0)
                continue
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    if ports:
        raise RuntimeError("the server did not come up")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, as an operator stops it (its tables finish their steps); killed after a minute."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()


@contextlib.contextmanager
def one_server(
    database: str | None,
    tables: int,
    idle: int,
    *,
    idle_run_out: bool = True,
    env: dict[str, str] | None = None,
) -> Iterator[tuple[int, int, Seats, str]]:
    """For the benches of one kind of request (`bench/sit_cost.py`, `bench/lobby_cost.py`): the server, one
    process, on a fresh database (a temporary SQLite file, or a new database on the PostgreSQL server of
    ``database``, dropped afterwards) that `populate` filled: its port, its pid, the seats, and "sqlite" or
    "postgresql". Stopped as an operator stops it at the end."""
    from app.db.migrate import upgrade

    with tempfile.TemporaryDirectory() as tmp:
        url, drop = fresh_database(database, Path(tmp))
        try:
            upgrade(url)
            plan = asyncio.run(populate(url, tables, idle, 30.0, idle_run_out=idle_run_out))
            port = free_ports(1)
            environment = {**os.environ, "DATABASE_URL": url, "PREFERANS_TOKEN_SECRET": SECRET, **(env or {})}
            command = [sys.executable, "-m", "app", "serve", "--port", str(port), "--log-level", "warning"]
            proc = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=subprocess.DEVNULL)
            try:
                wait_up(port, proc)
                yield port, proc.pid, plan, "postgresql" if drop else "sqlite"
            finally:
                stop_server(proc)
        finally:
            if drop is not None and database:
                asyncio.run(_pg_admin(database, f'DROP DATABASE IF EXISTS "{drop}" WITH (FORCE)'))


async def requests_cpu_us(http: Any, pid: int, paths: list[str], times: int) -> float:
    """For the benches of one kind of request: the server's CPU µs (process ``pid``) for asking ``paths``
    one after the other, ``times`` times, a round, on ``http`` (an ``httpx.AsyncClient``), after one warm
    round (the statements compiled, each route's first call); any answer but 200 fails the run."""
    for path in paths:
        await http.get(path)
    cpu0 = proc_cpu_s(pid)
    for _ in range(times):
        for path in paths:
            r = await http.get(path)
            if r.status_code != 200:
                raise RuntimeError(f"{path}: {r.status_code} {r.text[:200]}")
    return 1e6 * (proc_cpu_s(pid) - cpu0) / times


def printed_runs(count: int, run: Callable[[], dict[str, Any]]) -> list[dict[str, Any]]:
    """``count`` runs, each one's JSON line printed as it ends."""
    runs = []
    for _ in range(count):
        runs.append(run())
        print(json.dumps(runs[-1]), flush=True)
    return runs


def measure_once(args: argparse.Namespace) -> dict[str, Any]:
    """One measurement: start the server (or the relay), drive it, stop it; the result as a dict."""
    # The public port and, with --workers, each worker's own after it (`serve`'s default), every one
    # checked free and outside the ephemeral range, where an outgoing connection may hold one meanwhile.
    port = free_ports(1 if args.bare else 1 + args.workers)
    log = open(args.server_log, "ab") if args.server_log else subprocess.DEVNULL  # noqa: SIM115
    with tempfile.TemporaryDirectory() as tmp:
        drop = None
        plan = None
        postmaster: int | None = None
        if args.bare:
            command = [sys.executable, str(Path(__file__).resolve()), "--serve-relay", str(port)]
            env = dict(os.environ)
        else:
            from app.db.migrate import upgrade

            url, drop = fresh_database(args.database, Path(tmp))
            upgrade(url)
            plan = asyncio.run(populate(url, args.tables, args.idle, args.duration))
            if drop is not None:
                postmaster = asyncio.run(_pg_postmaster(url))
            command = [sys.executable, "-m", "app", "serve", "--port", str(port), "--log-level", "warning",
                       "--workers", str(args.workers)]  # fmt: skip
            # Every socket comes from 127.0.0.1: the per-address connection cap is lifted for the bench.
            env = dict(os.environ, DATABASE_URL=url, PREFERANS_TOKEN_SECRET=SECRET,
                       PREFERANS_MAX_CONNECTIONS_PER_ADDRESS="0")  # fmt: skip
        if drop is not None and args.database:
            # The rows just filled in sit in PostgreSQL's buffers, which its checkpointer would write
            # out during the run: written now, with the machine's backlog after them.
            asyncio.run(_pg_admin(args.database, "CHECKPOINT"))
        flushed = flush_disk()
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)
        try:
            started = time.monotonic()
            wait_up(port, proc, 1 if args.bare else args.workers)
            boot_s = time.monotonic() - started
            result = asyncio.run(drive(args, port, proc.pid, plan, postmaster))
        finally:
            stop_server(proc)
            if drop is not None and args.database:
                asyncio.run(_pg_admin(args.database, f'DROP DATABASE IF EXISTS "{drop}" WITH (FORCE)'))
    database = "bare" if args.bare else ("postgresql" if drop else "sqlite")
    mode = "unpaced" if args.unpaced else "paced"
    head = {"server": database, "mode": mode, "workers": 1 if args.bare else args.workers}
    head |= {"tables": args.tables, "idle": args.idle}
    if result.get("machine") is not None:
        result["machine"] |= flushed
    return {**head, "boot_s": round(boot_s, 1), **result}


# ------------------------------------------------------------------------------- runs beside the relay


def machine() -> dict[str, Any]:
    """What the figures were measured on: they compare only with figures of the same machine."""
    model = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    return {"cpu": model, "cores": os.cpu_count(), "loadavg": [round(x, 2) for x in os.getloadavg()]}


def child_command(args: argparse.Namespace, bare: bool) -> list[str]:
    """The command of one measurement, in a process of its own: each run's client starts clean (it
    freezes what exists and stops collecting, which would carry one run's objects into the next)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--once"]
    command += ["--tables", str(args.tables), "--idle", str(args.idle), "--sit-spread", str(args.sit_spread)]
    command += ["--duration", str(args.duration), "--warmup", str(args.warmup)]
    if args.unpaced:
        command.append("--unpaced")
    if bare:
        command.append("--bare")
    else:
        command += ["--workers", str(args.workers)]
        if args.tickets:
            command.append("--tickets")
        if args.database:
            command += ["--database", args.database]
    if args.server_log:
        command += ["--server-log", args.server_log]
    return command


def run_child(command: list[str]) -> dict[str, Any]:
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, check=True)
    result: dict[str, Any] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    print(json.dumps(result), flush=True)
    return result


def figures(run: dict[str, Any]) -> dict[str, float | None]:
    """The figures compared with the relay's: the lower the better but acks/s. With PostgreSQL on this
    machine, ``cpu_with_database_ms_per_ack`` adds its processes' CPU to the server's (the relay has no
    database: this is what a move costs the machine beyond the relay's work)."""
    database = run.get("database_cpu_ms_per_ack")
    server = run.get("server_cpu_ms_per_ack")
    return {
        "ack_p99_ms": run["ack_ms"]["p99"],
        "cpu_ms_per_ack": server,
        "acks_per_s": run["acks_per_s"],
        "connect_cpu_ms_per_socket": run.get("connect_cpu_ms_per_socket"),
        "cpu_with_database_ms_per_ack": None if database is None or server is None else server + database,
    }


def spread(values: list[float | None]) -> list[float] | None:
    """[min, max] over the runs (None when a run had no such figure)."""
    known = [v for v in values if v is not None]
    if len(known) != len(values) or not known:
        return None
    return [round(min(known), 2), round(max(known), 2)]


# The relay's figure each server figure is compared with (the relay has no database).
_RELAY_FIGURE = {"cpu_with_database_ms_per_ack": "cpu_ms_per_ack"}


def summary(server: list[dict[str, Any]], relay: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's spread over the runs, and each run's ratio to the relay run beside it."""
    out: dict[str, Any] = {"runs": len(server)}
    names = ["ack_p99_ms", "cpu_ms_per_ack", "acks_per_s", "connect_cpu_ms_per_socket"]
    if server and all(r.get("database_cpu_ms_per_ack") is not None for r in server):
        names.append("cpu_with_database_ms_per_ack")
    for label, runs in (("server", server), ("relay", relay)):
        if runs:
            table = [figures(r) for r in runs]
            own = [name for name in names if label == "server" or name not in _RELAY_FIGURE]
            out[label] = {name: spread([f[name] for f in table]) for name in own}
            out[label]["timeout_late_p99_ms"] = spread([r["timeout_late_ms"]["p99"] for r in runs])
            for phase in PHASES:
                out[label][f"ack_p99_{phase}_ms"] = spread([r[f"ack_ms_{phase}"]["p99"] for r in runs])
            if all(r.get("loop_lag") for r in runs):
                out[label]["loop_lag_over_50ms_pct"] = spread([r["loop_lag"]["over_50ms_pct"] for r in runs])
            if all(r.get("client_loop_lag") for r in runs):  # the instrument's own lag, beside each run
                out[label]["client_loop_lag_p99_ms"] = spread([r["client_loop_lag"]["p99_ms"] for r in runs])
                out[label]["client_cpu_cores"] = spread([r["client_cpu_cores"] for r in runs])
            if all(r.get("machine") for r in runs):  # what the machine's neighbours took meanwhile
                out[label]["steal_pct"] = spread([r["machine"]["steal_pct"] for r in runs])
                out[label]["others_cores"] = spread([r["machine"]["others_cores"] for r in runs])
            out[label]["errors"] = sum(sum(r["errors"].values()) for r in runs)
    if server and relay:
        ratios: dict[str, list[float | None]] = {name: [] for name in names}
        for s, r in zip(server, relay, strict=True):
            fs, fr = figures(s), figures(r)
            for name in names:
                a, b = fs[name], fr[_RELAY_FIGURE.get(name, name)]
                ratios[name].append(round(a / b, 2) if a is not None and b else None)
        out["x_relay"] = {name: spread(values) for name, values in ratios.items()}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--idle", type=int, default=0, help="tables whose players never act (timeouts)")
    parser.add_argument(
        "--sit-spread", type=float, default=1.0, help="seconds the idle sits are spread over (default 1)"
    )
    parser.add_argument("--unpaced", action="store_true")
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--database", help="SQLite (default: a temporary file) or a PostgreSQL server URL")
    parser.add_argument("--bare", action="store_true", help="the relay alone (no server runs)")
    parser.add_argument("--no-relay", action="store_true", help="the server alone (no relay runs)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each, alternating (default 3)")
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-relay", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--server-log", help="where the server's output goes (default: discarded)")
    parser.add_argument("--workers", type=int, default=1, help="server worker processes (serve --workers)")
    parser.add_argument(
        "--tickets",
        action="store_true",
        help="each socket asks POST /api/auth/ws-ticket?table=ID first and opens the URL it gives, as a "
        "browser does (several workers: the owner's port), instead of the public port with a bearer token",
    )
    args = parser.parse_args()

    if args.serve_relay:
        import uvicorn

        # Deflate off, as the server has it by default (PREFERANS_WS_DEFLATE).
        uvicorn.run(
            relay_app(),
            host="127.0.0.1",
            port=args.serve_relay,
            log_level="warning",
            ws_per_message_deflate=False,
        )
        return 0
    if args.once:
        print(json.dumps(measure_once(args)))
        return 0

    before = machine()
    server: list[dict[str, Any]] = []
    relay: list[dict[str, Any]] = []
    for _ in range(args.runs):
        # Alternating, so that whatever else the machine does falls on both alike.
        if not args.bare:
            server.append(run_child(child_command(args, bare=False)))
        if not args.no_relay:
            relay.append(run_child(child_command(args, bare=True)))
    after = machine()
    head = {"machine": {"cpu": before["cpu"], "cores": before["cores"]}}
    head["machine"] |= {"loadavg_before": before["loadavg"], "loadavg_after": after["loadavg"]}
    print(json.dumps({"summary": True, **head, **summary(server, relay)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
