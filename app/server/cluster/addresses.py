"""Where a worker is reached: the URL a client is sent to when another worker runs its table."""

from __future__ import annotations

from starlette.requests import HTTPConnection

# A websocket that reached a worker which does not run its table is closed with this code; the close
# reason is the websocket URL of the worker that does (reconnect there with the same ticket).


def hostname(host: str) -> str:
    """``host`` of a Host header ``host[:port]`` (an IPv6 literal keeps its brackets)."""
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.split(":", 1)[0]


def moved_url(websocket: HTTPConnection, address: str, table_id: int) -> str:
    """The websocket URL of the worker at ``address`` (its own host:port): on a loopback worker address,
    the host the client used with the worker's port (one machine), else the worker's address."""
    worker_host, _, port = address.rpartition(":")
    host = worker_host
    if worker_host in ("127.0.0.1", "localhost", "::1", "0.0.0.0"):
        host = hostname(websocket.headers.get("host", "")) or worker_host
    scheme = "wss" if websocket.url.scheme in ("wss", "https") else "ws"
    return f"{scheme}://{host}:{port}/ws/tables/{table_id}"
