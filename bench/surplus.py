"""The surplus-bytes attack of issue 25 against a real ``python -m app serve`` (SQLite), printing the
server's RSS as it goes. Figures only; nothing here is asserted.

Each attacker opens a connection, sends ``POST /api/auth/login`` with ``Content-Length: 10`` followed by
``--junk`` more bytes, then either reads the answer and closes (``--variant read``) or resets the
connection at once (``--variant reset``: SO_LINGER 0, the kernel sends RST and drops what it has not
sent). ``--concurrency`` attackers (threads, blocking sockets) share ``--connections`` connections.

    python -m bench.surplus --variant reset --connections 60000
    python -m bench.surplus --variant read --connections 20000 --bare   # a minimal FastAPI app on uvicorn
"""

from __future__ import annotations

import argparse
import itertools
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
HEAD = (
    b"POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b'Content-Length: 10\r\n\r\n{"a": 123}'
)
_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close sends RST

BARE_APP = """
from fastapi import FastAPI, Request
app = FastAPI()
@app.get("/api/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}
@app.post("/api/auth/login")
async def login(request: Request) -> dict[str, int]:
    return {"n": len(await request.body())}
"""


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(tmp: Path, port: int, bare: bool) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    if bare:
        (tmp / "bare_app.py").write_text(BARE_APP)
        env["PYTHONPATH"] = str(tmp)
        cmd = [sys.executable, "-m", "uvicorn", "bare_app:app", "--port", str(port), "--http", "h11"]
        cmd += ["--log-level", "warning", "--no-access-log"]
    else:
        env["DATABASE_URL"] = f"sqlite+aiosqlite:///{tmp / 'preferans.db'}"
        env["PREFERANS_TOKEN_SECRET_FILE"] = str(tmp / "token_secret")
        # SURPLUS_SERVER: another script in place of ``-m app`` (one printing the server's own figures).
        cmd = [sys.executable, *os.environ.get("SURPLUS_SERVER", "-m app").split(), "serve"]
        cmd += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    proc = subprocess.Popen(cmd, env=env, cwd=tmp if bare else ROOT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError("server did not come up in 60 s")


def attack_once(port: int, payload: bytes, reset: bool, source: str = "") -> None:
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    except OSError:
        return
    try:
        if reset:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
        sock.sendall(payload)
        if not reset:
            sock.shutdown(socket.SHUT_WR)
            while sock.recv(65536):
                pass
    except OSError:
        pass
    finally:
        sock.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", choices=("read", "reset"), default="reset")
    ap.add_argument("--connections", type=int, default=20_000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--junk", type=int, default=300_000)
    ap.add_argument(
        "--addresses", type=int, default=1, help="client addresses (127.0.0.2, …): beyond the per-address cap"
    )
    ap.add_argument("--bare", action="store_true", help="a minimal FastAPI app on the same uvicorn")
    ap.add_argument("--every", type=float, default=2.0, help="seconds between RSS lines")
    args = ap.parse_args()
    payload = HEAD + b"A" * args.junk
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = start_server(Path(tmp), port, args.bare)
        try:
            attack_once(port, payload, args.variant == "reset")  # what the first one allocates, later reuse
            start_rss = rss_mb(proc.pid)
            counter = itertools.count()
            done = [0]

            def attacker() -> None:
                while (n := next(counter)) < args.connections:
                    source = f"127.0.{n % args.addresses // 250}.{2 + n % args.addresses % 250}"
                    attack_once(port, payload, args.variant == "reset", source if args.addresses > 1 else "")
                    done[0] += 1

            threads = [threading.Thread(target=attacker, daemon=True) for _ in range(args.concurrency)]
            began = time.monotonic()
            for t in threads:
                t.start()
            peak = start_rss
            while any(t.is_alive() for t in threads):
                time.sleep(args.every)
                now = rss_mb(proc.pid)
                peak = max(peak, now)
                print(f"{time.monotonic() - began:6.1f} s  {done[0]:7d} connections  RSS {now:7.1f} MB")
            took = time.monotonic() - began
            ok = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=30).status_code == 200
            time.sleep(args.every)
            after = rss_mb(proc.pid)
            print(
                f"server={'bare' if args.bare else 'app'} variant={args.variant} "
                f"connections={args.connections} concurrency={args.concurrency} junk={args.junk} "
                f"addresses={args.addresses} "
                f"took={took:.1f}s rss_start={start_rss:.1f}MB peak={peak:.1f}MB end={after:.1f}MB "
                f"health_ok={ok} load={os.getloadavg()[0]:.1f}"
            )
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
