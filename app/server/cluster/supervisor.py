"""``python -m app serve --workers N``: one supervisor process and N worker processes on one machine.

The supervisor applies the migrations, makes the token secret (once), then starts worker ``slot`` =
0..N-1 as ``python -m app serve`` with ``PREFERANS_WORKER_SLOT``, ``PREFERANS_WORKER_PORT`` (public port
+ 1 + slot, or ``PREFERANS_WORKER_PORT_BASE`` + slot) and ``PREFERANS_PUBLIC_PORT``. Every worker listens
on the public port (SO_REUSEPORT: the kernel spreads new connections over the workers) and on its own
port, where the other workers forward table requests and clients are redirected (`cluster.ownership`).
A worker that exits is started again in the same slot once it is gone (so it may take its predecessor's
tables at once); a worker that hangs (its heartbeat older than the lease and its own port silent,
`cluster.hang_watch`) is killed and started again the same way. SIGTERM or SIGINT stops every worker
(each freezes its clocks) and then the supervisor.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from types import FrameType

from app.server.cluster.hang_watch import CHECK_INTERVAL, HangWatch, answers
from app.server.settings import Settings

log = logging.getLogger("app.supervisor")

RESTART_DELAY = 0.5
MAX_RESTART_DELAY = 10.0
PR_SET_PDEATHSIG = 1


def _listen(host: str, port: int, *, reuse_port: bool) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def worker_sockets(host: str, port: int, settings: Settings) -> list[socket.socket]:
    """A worker's listeners: the shared public port and its own."""
    assert settings.worker_port is not None
    return [
        _listen(host, port, reuse_port=True),
        _listen(settings.worker_host, settings.worker_port, reuse_port=False),
    ]


def _command(args: argparse.Namespace) -> list[str]:
    command = [sys.executable, "-m", "app", "serve", "--host", args.host, "--port", str(args.port),
               "--log-level", args.log_level]  # fmt: skip
    if args.access_log:
        command.append("--access-log")
    return command


def _die_with_parent() -> None:
    """In the worker, before it runs: a supervisor killed outright (kill -9) takes its workers with it
    (Linux), so no orphan keeps the ports or the tables."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def supervise(args: argparse.Namespace, settings: Settings) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s supervisor: %(message)s")
    stopping = False

    def stop(_signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def start(slot: int) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        env.update(
            PREFERANS_WORKERS=str(settings.workers),
            PREFERANS_WORKER_SLOT=str(slot),
            PREFERANS_WORKER_PORT=str(settings.worker_ports(args.port)[slot]),
            PREFERANS_PUBLIC_PORT=str(args.port),
        )
        proc = subprocess.Popen(_command(args), env=env, preexec_fn=_die_with_parent)  # noqa: PLW1509
        log.info("worker %d started (pid %d, port %s)", slot, proc.pid, env["PREFERANS_WORKER_PORT"])
        return proc

    procs: dict[int, subprocess.Popen[bytes]] = {}
    started: dict[int, float] = {}
    started_wall: dict[int, float] = {}
    for slot in range(settings.workers):
        started_wall[slot] = time.time()
        procs[slot] = start(slot)
        started[slot] = time.monotonic()
    delays = dict.fromkeys(procs, RESTART_DELAY)
    watch = HangWatch(settings.database_url, settings.worker_lease)

    def probe(slot: int) -> bool:
        return answers(settings.worker_host, settings.worker_ports(args.port)[slot])

    next_check = time.monotonic() + CHECK_INTERVAL
    while not stopping:
        time.sleep(0.2)
        if time.monotonic() >= next_check and not stopping:
            for hung in watch.hung({s: t for s, t in started_wall.items() if procs[s].poll() is None}, probe):
                proc = procs[hung.slot]
                log.error(
                    "worker %d (pid %d) is hung: no heartbeat for %.1f s and its own port does not answer; "
                    "killing it",
                    hung.slot, proc.pid, hung.age,
                )  # fmt: skip
                proc.kill()  # taken by a stopped process too; the loop below starts it again
                proc.wait()
            next_check = time.monotonic() + CHECK_INTERVAL
        for slot, proc in list(procs.items()):
            code = proc.poll()
            if code is not None and not stopping:
                # Gone (its pid reaped): a new process in the slot may take the slot's tables at once.
                # One that keeps failing at start is retried less and less often.
                quick = time.monotonic() - started[slot] < 10
                delays[slot] = min(MAX_RESTART_DELAY, delays[slot] * 2) if quick else RESTART_DELAY
                log.warning("worker %d (pid %d) exited with %s; starting it again", slot, proc.pid, code)
                time.sleep(delays[slot])
                started_wall[slot] = time.time()
                procs[slot] = start(slot)
                started[slot] = time.monotonic()
    watch.close()
    for proc in procs.values():
        if proc.poll() is None:
            proc.terminate()
    for proc in procs.values():
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return 0
