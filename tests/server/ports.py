"""Loopback ports for the servers the tests start, taken outside the kernel's ephemeral range.

A port the kernel hands out (a bind to port 0) is free at that instant only. Once released, it goes back
to the ephemeral range, and any outgoing connection (a pool's connection to PostgreSQL, an HTTP client)
may get it as its local port. A server started on it a moment later, or restarted on it after a kill,
then fails with EADDRINUSE, and a block of ports after it (``--workers N`` listens on N of them) was never
checked at all. Outside the ephemeral range the kernel hands out nothing. The xdist workers of one run take
disjoint slices of that space, and each walks its own, so two tests of one run never pick the same port;
anything else there (another run side by side, another program) is kept apart by a random start and by
binding every port of a block before it is handed out, as a listener binds it (``SO_REUSEADDR``).
"""

from __future__ import annotations

import os
import random
import socket
from pathlib import Path

_LOCAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_SPAN = 10_000  # the ports used, next to the ephemeral range
_MIN_SLICE = 200


def _ephemeral() -> tuple[int, int]:
    try:
        low, high = (int(part) for part in _LOCAL_RANGE.read_text().split())
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default
    return low, high


def _space() -> range | None:
    """The ports below the ephemeral range, or else above it; None when neither has room."""
    low, high = _ephemeral()
    if low - 1024 >= _MIN_SLICE:
        return range(max(1024, low - _SPAN), low)
    if 65535 - high >= _MIN_SLICE:
        return range(high + 1, min(65536, high + 1 + _SPAN))
    return None


def _own_slice() -> range | None:
    space = _space()
    if space is None:
        return None
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    count = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1))
    index = int(worker) % count if worker.isdigit() else 0
    size = len(space) // count
    if size < _MIN_SLICE:  # too many workers to split: they share it, the bind check keeps them apart
        return space
    return range(space.start + index * size, space.start + (index + 1) * size)


class _Walk:
    """This process's slice, walked from a random start (two runs side by side start apart)."""

    def __init__(self, ports: range | None) -> None:
        self.ports = ports
        self.cursor = random.randrange(len(ports)) if ports else 0

    def take(self, count: int) -> int:
        if self.ports is None:  # no room outside the ephemeral range: the kernel's port, for one only
            assert count == 1, "no port space outside the ephemeral range for a block of ports"
            return _kernel_port()
        if count > len(self.ports):
            raise RuntimeError(f"a block of {count} ports is more than the slice {self.ports} holds")
        for _ in range(len(self.ports)):
            if self.cursor + count > len(self.ports):
                self.cursor = 0
            base = self.ports.start + self.cursor
            self.cursor += count
            if all(_bindable(port) for port in range(base, base + count)):
                return base
        raise RuntimeError(f"no {count} free consecutive ports in {self.ports}")


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as a server binds
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _kernel_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


_WALK = _Walk(_own_slice())


def free_ports(count: int = 1) -> int:
    """The first of ``count`` consecutive ports on 127.0.0.1 that a server can listen on."""
    return _WALK.take(count)


def free_port() -> int:
    return free_ports(1)
