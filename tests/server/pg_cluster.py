"""A private PostgreSQL cluster for one test: ``initdb`` into a temporary directory, ``pg_ctl`` on a free
loopback port with its socket beside the data, trust authentication. The test may stop it (immediately,
as a crash would), start it again, or freeze every one of its processes (SIGSTOP: a database that hangs)
— things never done to a shared server.

The server binaries are Debian's (``/usr/lib/postgresql/<version>/bin``, installed by
``scripts/ensure-postgres``) or whatever ``pg_config --bindir`` names. ``initdb`` and ``pg_ctl`` refuse to
run as root: as root the cluster belongs to the ``postgres`` user (``runuser``).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.server.ports import free_port

CLUSTER_USER = "postgres"


class ClusterUnavailable(Exception):
    """The cluster cannot be made here (no server binaries, no unprivileged user); the message says why."""


def _version_key(path: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", path.parent.parent.name)) or (0,)


def server_bindir() -> Path:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres`` (the newest version installed)."""
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config is not None:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, timeout=10, check=False
            )
            candidates.append(Path(out.stdout.strip()))
    installed = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=_version_key, reverse=True)
    candidates += [p.parent for p in installed]
    initdb = shutil.which("initdb")
    if initdb is not None:
        candidates.append(Path(initdb).resolve().parent)
    for bindir in candidates:
        if all((bindir / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return bindir
    raise ClusterUnavailable(
        "no PostgreSQL server binaries (initdb, pg_ctl, postgres) under /usr/lib/postgresql/*/bin or "
        "`pg_config --bindir`: install Debian's postgresql package (scripts/ensure-postgres does)"
    )


@dataclass
class PgCluster:
    """One private cluster; `start`/`stop` may be called again and again, `close` removes it."""

    bindir: Path
    root: Path
    port: int = field(default_factory=free_port)
    run_as: str | None = None  # the user running the cluster's commands (None: this process's user)

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def log(self) -> Path:
        return self.root / "postgres.log"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str, timeout: float = 60) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.run_as is not None:
            command = ["runuser", "-u", self.run_as, "--", *command]
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, cwd=self.root, check=False
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr}{log}")

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                  "--no-locale", "--no-sync", "--no-instructions")  # fmt: skip

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=60 "
            "-c shared_buffers=16MB"
        )
        self._run("pg_ctl", "start", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                  "-o", options)  # fmt: skip

    def stop(self, mode: str = "immediate") -> None:
        """``immediate``: every process ends at once, as in a crash (recovery replays the log at start)."""
        self._run("pg_ctl", "stop", "-D", str(self.data), "-m", mode, "-w", "-t", "60")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def pids(self) -> list[int]:
        """The postmaster and every process it started."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        children = [postmaster]
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                # /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after ')'.
                ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
                if ppid == postmaster:
                    children.append(int(entry.name))
        return children

    def signal_all(self, signum: signal.Signals) -> list[int]:
        """Signal the postmaster first (a stopped postmaster starts no new process), then its children."""
        pids = self.pids()
        os.kill(pids[0], signum)
        for pid in self.pids()[1:]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)
        return pids

    def close(self) -> None:
        if self.running():
            with contextlib.suppress(OSError, RuntimeError, ValueError):
                self.signal_all(signal.SIGCONT)  # a stopped postmaster would not hear pg_ctl
            with contextlib.suppress(RuntimeError, subprocess.SubprocessError):
                self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def private_cluster() -> Iterator[PgCluster]:
    """A started cluster, removed afterwards (ClusterUnavailable: it cannot be made here)."""
    bindir = server_bindir()
    run_as = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam(CLUSTER_USER)
        except KeyError:
            raise ClusterUnavailable(
                f"running as root and there is no {CLUSTER_USER!r} user to own the cluster (initdb refuses "
                "root): install Debian's postgresql package, which creates it"
            ) from None
        if shutil.which("runuser") is None:
            raise ClusterUnavailable("running as root and there is no runuser to run initdb as postgres")
        run_as = CLUSTER_USER
    # Not under pytest's tmp_path: that lies in root's private directory, which postgres may not enter.
    root = Path(tempfile.mkdtemp(prefix="preferans-pg-"))
    if run_as is not None:
        os.chown(root, owner.pw_uid, owner.pw_gid)
    cluster = PgCluster(bindir, root, run_as=run_as)
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        cluster.close()


def cluster_or_fail() -> Iterator[PgCluster]:
    """For a fixture: a private cluster, or the test fails saying why it cannot be made. Never a skip: CI
    must run these tests (scripts/ensure-postgres installs the server binaries)."""
    try:
        with private_cluster() as made:
            yield made
    except ClusterUnavailable as exc:
        pytest.fail(f"cannot start a private PostgreSQL cluster: {exc}")
