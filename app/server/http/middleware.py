"""ASGI middleware of the whole app: the request-body limit (whatever the framing) and security headers."""

from __future__ import annotations

import asyncio
import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.protocol.codes import ErrorCode
from app.server.cluster.addresses import hostname
from app.server.errors import HTTP_STATUS

# The rest of the body is never read, so the connection cannot be reused.
_UNREAD_BODY = ((b"connection", b"close"),)


async def refuse(
    send: Send, code: ErrorCode, message: str, headers: tuple[tuple[bytes, bytes], ...] = _UNREAD_BODY
) -> None:
    """A JSON error answered from ASGI middleware (the app's typed errors have the same shape)."""
    body = json.dumps({"error": code, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": HTTP_STATUS[code],
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Reads a request's body before the app sees it, at most ``max_bytes`` of it and within ``timeout``
    seconds, counting the bytes actually received: a chunked body (no Content-Length) or a lying
    Content-Length is cut off at the limit instead of being buffered."""

    def __init__(self, app: ASGIApp, max_bytes: int, timeout: float) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = f"request bodies are limited to {self.max_bytes} bytes"
        for name, value in scope["headers"]:
            if name == b"content-length" and (not value.isdigit() or int(value) > self.max_bytes):
                await refuse(send, ErrorCode.TOO_LARGE, too_large)
                return
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.timeout):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.max_bytes:
                        await refuse(send, ErrorCode.TOO_LARGE, too_large)
                        return
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await refuse(send, ErrorCode.TIMEOUT, f"the request body must arrive within {self.timeout} s")
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)


# Pages come from the app itself: same-origin scripts (ES modules), styles, images (SVG included) and
# sockets; no inline script, no framing by other sites.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)


class SecurityHeaders:
    """Adds the security headers to every HTTP response that does not set its own (the API docs too: they
    are served by the app, `app.web.api_docs`)."""

    def __init__(
        self, app: ASGIApp, socket_ports: tuple[int, ...] = (), socket_hosts: frozenset[str] = frozenset()
    ) -> None:
        self.app = app
        # Several workers: the pages may open sockets on the workers' own ports of the same host, one of
        # ``socket_hosts`` (the configured public names: a Host header is matched, never copied).
        self.socket_ports = socket_ports
        self.socket_hosts = {host.lower(): host for host in socket_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = list(_HEADERS)
        policy = CONTENT_SECURITY_POLICY
        sockets = self._sockets(scope) if self.socket_ports else ""
        if sockets:
            policy = policy.replace("connect-src 'self'", f"connect-src 'self' {sockets}")
        extra.append((b"content-security-policy", policy.encode()))

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in extra if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)

    def _sockets(self, scope: Scope) -> str:
        host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), "")
        name = self.socket_hosts.get(hostname(host).lower())  # issue 25: the configured name, not the header
        if name is None:
            return ""
        return " ".join(f"{scheme}://{name}:{port}" for port in self.socket_ports for scheme in ("ws", "wss"))
