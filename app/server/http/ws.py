"""The websocket endpoint: one connection per table; framing, size and rate limits, error frames.

Bad input never reaches the table actor: it is answered here with a typed error frame and the
connection (and the table) go on.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.types import Receive, Scope, Send

from app.protocol.codes import CloseCode, ErrorCode
from app.protocol.messages import (
    ActionMessage,
    ErrorMessage,
    PingMessage,
    PongMessage,
    ProtocolError,
    ResyncMessage,
    action_frame,
    parse_client_message,
)
from app.server.accounts.privacy import PRIVATE_ROOM, SocketCaller, socket_caller
from app.server.accounts.sessions import redeem_signed, too_many_connections, track, untrack
from app.server.cluster.addresses import hostname, moved_url
from app.server.connections.connection import Connection, TokenBucket
from app.server.context import ServerContext
from app.server.errors import ApiError, TableElsewhere
from app.server.http.deps import MAX_ID, claims_of, require_live
from app.server.http.handlers import database_down, database_unavailable
from app.server.tables.actor import TableActor
from app.server.tables.commands import Act, Connect, Disconnect, Resync
from app.server.tables.registry import get_actor

router = APIRouter()

log = logging.getLogger(__name__)


async def _caller(ctx: ServerContext, websocket: WebSocket, table_id: int) -> tuple[SocketCaller, float]:
    """The user, whether he may watch the table, and when the socket's authority ends: a single-use
    ``?ticket=`` (from ``POST /api/auth/ws-ticket``), or a bearer token in the ``Authorization`` header
    (never in the URL)."""
    ticket_key = websocket.query_params.get("ticket")
    if ticket_key:
        if ctx.signed_tickets is not None:
            ticket = await redeem_signed(ctx, ctx.signed_tickets, ticket_key)
        else:
            ticket = ctx.tickets.redeem(ticket_key, time.monotonic())
        if ticket is None:
            raise ApiError(ErrorCode.UNAUTHORIZED, "unknown, used or expired ticket")
        user_id, generation, ends = ticket.user_id, ticket.generation, ticket.token_expires_at
    else:
        scheme, _, value = websocket.headers.get("authorization", "").partition(" ")
        claims = claims_of(ctx, value.strip() if scheme.lower() == "bearer" else None)
        user_id, generation, ends = claims.user_id, claims.generation, claims.expires_at
    # An id out of the tables' range names no table (refused as not found): nothing to read of it.
    known = table_id if 1 <= table_id <= MAX_ID else 0
    async with ctx.engine.connect() as db:
        caller = await socket_caller(db, user_id, known)
    return require_live(caller, generation), ends


def _expire(conn: Connection) -> None:
    conn.send(ErrorMessage(code=ErrorCode.UNAUTHORIZED, message="token expired"))
    conn.close(CloseCode.UNAUTHORIZED)


def origin_allowed(websocket: WebSocket, allowed: str, public_port: int | None = None) -> bool:
    """A browser's page may open a socket only from the server's own origin or an allowed one (another
    site's page must not play with its visitor's ticket); clients that send no Origin are not browsers.
    With several workers, a page of the public port may open a socket on a worker's own port."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    origin = origin.rstrip("/").lower()
    if origin in {o.strip().rstrip("/").lower() for o in allowed.split(",") if o.strip()}:
        return True
    host = websocket.headers.get("host", "").lower()
    hosts = {host}
    if public_port is not None and host:
        hosts.add(f"{hostname(host)}:{public_port}")
    return bool(host) and any(origin in (f"http://{h}", f"https://{h}") for h in hosts)


async def _refuse(
    websocket: WebSocket, code: ErrorCode, message: str, close_code: int, reason: str | None = None
) -> None:
    await websocket.accept()
    await websocket.send_text(ErrorMessage(code=code, message=message).model_dump_json())
    await websocket.close(code=close_code, reason=reason)


async def _redirect(websocket: WebSocket, ctx: ServerContext, table_id: int) -> bool:
    """Several workers: a socket for a table another worker runs is closed with `CloseCode.MOVED`, the reason
    naming that worker's websocket URL (reconnect there with the same ticket, which is not used here)."""
    if ctx.cluster is None or not 1 <= table_id <= MAX_ID:
        return False
    address = await ctx.cluster.locate(ctx, table_id)
    if address is None:
        return False
    url = moved_url(websocket, address, table_id)
    await _refuse(websocket, ErrorCode.MOVED, f"table {table_id} is served at {url}", CloseCode.MOVED, url)
    return True


async def _crowded(ctx: ServerContext, user_id: int, table_id: int, actor: TableActor) -> str | None:
    """Why the socket is refused (`too_many_connections`), or None: then it is counted and must be
    tracked with no await in between. Several workers: the user's sockets at all of them are counted
    (`accounts.shared_caps`), after this worker's own caps, which cost no query."""
    crowded = too_many_connections(ctx, user_id, table_id, actor.seating.users)
    shared = ctx.shared_sockets
    if crowded is not None or shared is None:
        return crowded
    if not await shared.admit(user_id):
        return f"at most {ctx.settings.max_connections_per_user} connections per user"
    # Again after the await: the table's own caps may have filled meanwhile.
    crowded = too_many_connections(ctx, user_id, table_id, actor.seating.users)
    if crowded is not None:
        shared.release(user_id)
    return crowded


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: int) -> None:
    ctx: ServerContext = websocket.app.state.ctx
    settings = ctx.settings
    if not origin_allowed(websocket, settings.allowed_origins, settings.public_port):
        await _refuse(
            websocket, ErrorCode.FORBIDDEN, "this origin may not open table sockets", CloseCode.FORBIDDEN
        )
        return
    try:
        if await _redirect(websocket, ctx, table_id):
            return
        user, authority_ends = await _caller(ctx, websocket, table_id)
        welcome = user.may_watch  # a private room may be closed to spectators (accounts.privacy)
        actor = await get_actor(ctx, table_id) if welcome and 1 <= table_id <= MAX_ID else None
    except TableElsewhere as exc:  # several workers: another one took the table meanwhile; try again
        await _refuse(websocket, exc.code, exc.message, CloseCode.TRY_AGAIN)
        return
    except ApiError as exc:
        await _refuse(websocket, ErrorCode.UNAUTHORIZED, exc.message, CloseCode.UNAUTHORIZED)
        return
    except Exception as exc:
        if not database_down(exc):
            raise
        # The handshake is answered (HTTP 503, Retry-After), never left to fail as a 500.
        await websocket.send_denial_response(database_unavailable())
        return
    if not welcome:
        await _refuse(websocket, ErrorCode.PRIVATE_ROOM, PRIVATE_ROOM, CloseCode.FORBIDDEN)
        return
    if actor is None:
        await _refuse(websocket, ErrorCode.NOT_FOUND, f"no table {table_id}", CloseCode.NOT_FOUND)
        return
    try:
        crowded = await _crowded(ctx, user.id, table_id, actor)
    except Exception as exc:
        if not database_down(exc):
            raise
        await websocket.send_denial_response(database_unavailable())
        return
    if crowded is not None:
        await _refuse(websocket, ErrorCode.TOO_MANY_CONNECTIONS, crowded, CloseCode.POLICY)
        return
    conn = Connection(
        websocket,
        user.id,
        user.name,
        settings.send_queue_frames,
        queue_bytes=settings.send_queue_bytes,
        generation=user.token_generation,
    )
    track(ctx, conn, table_id)  # no await since the count above: the caps hold
    try:
        await websocket.accept()
    except Exception:
        untrack(ctx, conn, table_id)
        raise
    # Fetched again after the await: a finished table may have left memory meanwhile. No await between
    # this and the submit below, so the actor that gets the connection is the live one.
    try:
        actor = await get_actor(ctx, table_id)
    except TableElsewhere as exc:  # several workers: taken over by another one meanwhile
        untrack(ctx, conn, table_id)
        await websocket.send_text(ErrorMessage(code=exc.code, message=exc.message).model_dump_json())
        await websocket.close(code=CloseCode.TRY_AGAIN)
        return
    except BaseException:  # (the database away): the socket ends here, and is no longer counted
        untrack(ctx, conn, table_id)
        raise
    if actor is None:  # left memory and could not be read back: nothing to serve
        untrack(ctx, conn, table_id)
        await websocket.close(code=CloseCode.TRY_AGAIN)
        return
    conn.start()
    loop = asyncio.get_running_loop()
    expiry = loop.call_later(max(0.0, authority_ends - time.time()), _expire, conn)
    actor.submit(Connect(conn))
    bucket = TokenBucket(settings.rate_per_second, settings.rate_burst)
    resyncs = TokenBucket(settings.resync_per_second, settings.resync_burst)
    strikes = 0

    def on_text(text: str) -> None:
        """One text message of the client; no await: it runs in the socket's read too (`take_frames`)."""
        nonlocal strikes
        if conn.closed.is_set():  # closed for flooding (or any reason): what still comes is not read
            return
        if not bucket.take():
            strikes += 1
            if strikes == 1:
                conn.send(ErrorMessage(code=ErrorCode.RATE_LIMITED, message="too many messages; slow down"))
            if strikes >= settings.rate_strikes_to_close:
                conn.close(CloseCode.POLICY)  # after the frames already sent, as every close
            return
        strikes = 0
        if len(text) > settings.max_frame_bytes or len(text.encode()) > settings.max_frame_bytes:
            limit = settings.max_frame_bytes
            conn.send(
                ErrorMessage(code=ErrorCode.FRAME_TOO_LARGE, message=f"frames are limited to {limit} bytes")
            )
            return
        fast = action_frame(text)
        if fast is not None:  # a move: no model per frame
            actor.submit(Act(conn, fast[0], fast[1]))
            return
        try:
            message = parse_client_message(text)
        except ProtocolError as exc:
            conn.send(ErrorMessage(code=exc.code, message=exc.message))
            return
        if isinstance(message, ActionMessage):
            actor.submit(Act(conn, message.seq, message.action))
        elif isinstance(message, ResyncMessage):
            # A snapshot is the table's dearest frame: one at a time per connection (more asks are
            # answered by the one on its way) and at most `resync_per_second` of them, later if over.
            if conn.resync_pending:
                return
            conn.resync_pending = True
            delay = resyncs.reserve()
            if delay == 0:
                actor.submit(Resync(conn))
            else:
                loop.call_later(delay, _resync_later, actor, conn)
        elif isinstance(message, PingMessage):
            conn.send(PongMessage(id=message.id))

    def on_text_in_read(text: str) -> None:
        try:
            on_text(text)
        except Exception:  # a bug must not break the socket's protocol: this client comes back later
            log.exception("table %s: a client's message failed", table_id)
            conn.take_frames(None)
            conn.close(CloseCode.TRY_AGAIN)

    conn.take_frames(on_text_in_read)
    try:
        # What the socket's read does not take (a binary frame, messages queued before) and the close.
        while not conn.closed.is_set():
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            if text is None:
                conn.send(ErrorMessage(code=ErrorCode.BAD_JSON, message="binary frames are not accepted"))
                continue
            on_text(text)
    except WebSocketDisconnect:
        pass
    finally:
        conn.take_frames(None)
        expiry.cancel()
        untrack(ctx, conn, table_id)
        conn.close()
        actor.submit(Disconnect(conn))
        await conn.wait_sent()


# A table's socket path for the lane (`ServerApp`): ASCII digits, as the route's int takes no others
# through the lane; bounded, so no client makes `int` read a long number (longer ids go the router's way
# and are refused there as no table).
_TABLE_SOCKET = re.compile(r"/ws/tables/([0-9]{1,18})")


def table_socket_id(scope: Scope) -> int | None:
    """The table of a websocket scope for `table_socket` (None: another path)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    match = _TABLE_SOCKET.fullmatch(path)
    return None if match is None else int(match.group(1))


async def table_socket_lane(scope: Scope, receive: Receive, send: Send) -> None:
    """`table_socket` as a bare ASGI app, for a scope with the table in ``path_params`` and the app in
    ``app`` (as the router sets them): what `app.server.app.ServerApp` serves a table's socket with, not
    through the app's middleware stack and router."""
    await table_socket(WebSocket(scope, receive, send), scope["path_params"]["table_id"])


def _resync_later(actor: TableActor, conn: Connection) -> None:
    if not conn.closed.is_set():
        actor.submit(Resync(conn))
