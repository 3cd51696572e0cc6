"""Connections cannot hog the server (issue 13): resyncs are coalesced and budgeted per connection, a
client that does not read is dropped with its queue bounded, connections per user and per table capped."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from app.protocol.codes import CloseCode
from app.protocol.messages import PongMessage, SnapshotMessage
from app.server.connections.connection import Connection
from tests.server.conftest import OPERATOR, ServerProcess, _server, login, new_player
from tests.server.helpers import open_table


@pytest.fixture
def capped_server(tmp_path: Path) -> Iterator[ServerProcess]:
    env = {"PREFERANS_MAX_CONNECTIONS_PER_USER": "3", "PREFERANS_MAX_CONNECTIONS_PER_TABLE": "5"}
    yield from _server(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}", tmp_path, env)


async def _table(server: ServerProcess) -> int:
    operator = await login(server, OPERATOR)
    try:
        room = await operator.create_room("r", {})
        return int((await operator.open_table(room["id"], 3))["id"])
    finally:
        await operator.close()


async def _frames(ws: Any, seconds: float) -> list[dict[str, Any]]:
    frames = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), left)))
        except TimeoutError:
            break
    return frames


async def test_a_resync_flood_is_coalesced_into_a_few_snapshots(sqlite_server: ServerProcess) -> None:
    """Before: every resync rebuilt and sent the whole snapshot (48/s per connection stalled every table)."""
    table_id = await _table(sqlite_server)
    player = await new_player(sqlite_server)
    try:
        async with websockets.connect(await player.ws_url(table_id)) as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"
            for _ in range(45):  # within the 50 frames/s a connection may send
                await ws.send('{"type": "resync"}')
            frames = await _frames(ws, 2.5)
            snapshots = [f for f in frames if f["type"] == "snapshot"]
            # The burst (3) and one a second: never one per ask.
            assert 1 <= len(snapshots) <= 6, len(snapshots)
            assert not [f for f in frames if f["type"] == "error"]
    finally:
        await player.close()


async def test_connections_per_user_and_per_table_are_capped(capped_server: ServerProcess) -> None:
    table_id = await _table(capped_server)
    players = [await new_player(capped_server) for _ in range(3)]
    sockets = []
    try:
        for _ in range(3):
            sockets.append(await websockets.connect(await players[0].ws_url(table_id)))
        async with websockets.connect(await players[0].ws_url(table_id)) as ws:
            frame = json.loads(await ws.recv())
            assert frame["code"] == "too_many_connections" and "per user" in frame["message"]
        for _ in range(2):
            sockets.append(await websockets.connect(await players[1].ws_url(table_id)))
        async with websockets.connect(await players[2].ws_url(table_id)) as ws:
            frame = json.loads(await ws.recv())
            assert frame["code"] == "too_many_connections" and "per table" in frame["message"]
        await sockets.pop().close()
        await asyncio.sleep(0.3)
        async with websockets.connect(await players[2].ws_url(table_id)) as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"
    finally:
        for ws in sockets:
            await ws.close()
        for api in players:
            await api.close()


@pytest.fixture
def watched_server(tmp_path: Path) -> Iterator[ServerProcess]:
    env = {
        "PREFERANS_MAX_CONNECTIONS_PER_USER": "2",
        "PREFERANS_MAX_CONNECTIONS_PER_TABLE": "4",
        "PREFERANS_MAX_SPECTATORS_PER_TABLE": "3",
    }
    yield from _server(f"sqlite+aiosqlite:///{tmp_path / 'w.db'}", tmp_path, env)


async def test_a_seated_player_gets_a_socket_however_many_spectators_watch(
    watched_server: ServerProcess,
) -> None:
    """Issue 25: throwaway accounts filled a table's sockets and its seated players got
    `too_many_connections` on every reconnect while their clocks ran. Spectators have their own, smaller
    cap; a seated player is bounded only by his per-user cap."""
    table_id = await _table(watched_server)
    seated = await new_player(watched_server)
    await seated.sit(table_id)
    watchers = [await new_player(watched_server) for _ in range(3)]
    sockets = []
    try:
        refused = None
        for watcher in watchers:
            for _ in range(2):
                ws = await websockets.connect(await watcher.ws_url(table_id))
                frame = json.loads(await ws.recv())
                if frame["type"] == "error":
                    refused = frame
                    await ws.close()
                    break
                sockets.append(ws)
            if refused is not None:
                break
        assert refused is not None and refused["code"] == "too_many_connections", refused
        assert len(sockets) == 3  # the spectators' cap, below the table's
        for _ in range(2):  # the table is full of watchers: the player still gets both his sockets
            ws = await websockets.connect(await seated.ws_url(table_id))
            sockets.append(ws)
            frame = json.loads(await ws.recv())
            assert frame["type"] == "snapshot" and frame["seat"] == 0, frame
    finally:
        for ws in sockets:
            await ws.close()
        for api in [seated, *watchers]:
            await api.close()


class _StuckSocket:
    """A websocket whose client never reads: the first send never completes."""

    def __init__(self) -> None:
        self.scope: dict[str, object] = {}
        self.closed_with: int | None = None

    async def send_text(self, _text: str) -> None:
        await asyncio.Event().wait()

    async def close(self, code: int = 1000) -> None:
        self.closed_with = code


async def test_a_client_that_does_not_read_is_dropped_with_a_bounded_queue() -> None:
    socket = _StuckSocket()
    conn = Connection(socket, 1, "slow", queue_frames=10_000, queue_bytes=1 << 20)  # type: ignore[arg-type]
    conn.start()
    await asyncio.sleep(0)  # the sender takes the first frame and hangs on it
    big = SnapshotMessage(
        table=1, v=1, status="playing", seat=None, seats=[], view={"pad": "x" * 100_000},
        clock=None, legal=[], sheet=None,
    )  # fmt: skip
    sent = 0
    while not conn.closed.is_set():
        conn.send(big)
        sent += 1
        assert sent < 100
    assert conn.queued_bytes <= 1 << 20
    conn.send(PongMessage(id=1))  # ignored once closed
    await conn.wait_sent()
    assert socket.closed_with == CloseCode.TRY_AGAIN


# Resyncs and frames allowed as fast as the client asks.
_UNLIMITED = {
    "PREFERANS_RESYNC_PER_SECOND": "100000",
    "PREFERANS_RESYNC_BURST": "100000",
    "PREFERANS_RATE_PER_SECOND": "100000",
    "PREFERANS_RATE_BURST": "100000",
}


@pytest.fixture
def flood_server(tmp_path: Path) -> Iterator[ServerProcess]:
    # The bound under test is the connection's backlog.
    env = {**_UNLIMITED, "PREFERANS_SEND_QUEUE_BYTES": str(1 << 20)}
    yield from _server(f"sqlite+aiosqlite:///{tmp_path / 'f.db'}", tmp_path, env)


async def _small_socket(server: ServerProcess) -> socket.socket:
    """A connected socket whose kernel holds little for it (a client that stops reading fills it at once)."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.setblocking(False)
    await asyncio.get_running_loop().sock_connect(raw, ("127.0.0.1", server.port))
    return raw


async def test_a_real_socket_that_does_not_read_is_dropped(flood_server: ServerProcess) -> None:
    """A client that asks for snapshots and never reads them: once the socket's buffers are full its frames
    wait in the connection's backlog, and past its bound the server drops the client and aborts the socket
    (before: it stopped writing but the socket, its buffers and the close frame stayed stuck behind the
    unread data, and the client never learned)."""
    table_id = await _table(flood_server)
    player = await new_player(flood_server)
    raw = await _small_socket(flood_server)
    try:
        ws = await websockets.connect(await player.ws_url(table_id), sock=raw, max_queue=1)
        snapshot = await ws.recv()
        assert json.loads(snapshot)["type"] == "snapshot"
        asked, dropped = 0, False
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                await ws.send('{"type": "resync"}')
            except websockets.ConnectionClosed:
                dropped = True
                break
            asked += 1
            await asyncio.sleep(0.001)
        assert dropped, f"still connected after {asked} snapshots asked and none read"
        assert asked * len(snapshot) > 1 << 20  # it was dropped for what waited, not sooner
        # The table and the server go on: another connection gets its snapshot and its answers.
        async with websockets.connect(await player.ws_url(table_id)) as other:
            assert json.loads(await other.recv())["type"] == "snapshot"
            await other.send('{"type": "ping", "id": 7}')
            frames = await _frames(other, 2.0)
            assert PongMessage(id=7).model_dump(mode="json") in frames, frames
    finally:
        raw.close()
        await player.close()


@pytest.fixture
def patient_server(tmp_path: Path) -> Iterator[ServerProcess]:
    # The backlog's bound far away: a client that does not read is closed for another reason here.
    env = {**_UNLIMITED, "PREFERANS_SEND_QUEUE_FRAMES": "1000000"}
    env["PREFERANS_SEND_QUEUE_BYTES"] = str(256 << 20)
    yield from _server(f"sqlite+aiosqlite:///{tmp_path / 'p.db'}", tmp_path, env)


async def test_a_socket_closed_while_its_client_does_not_read_is_reset(patient_server: ServerProcess) -> None:
    """A client that stopped reading, with megabytes unread, logs out from another tab: the server closes
    its socket, and since neither the frames before the close nor the close frame are ever taken, resets it
    after the grace period (before: the close waited on the unread data forever, and so did the socket)."""
    table_id = await _table(patient_server)
    player = await new_player(patient_server)
    raw = await _small_socket(patient_server)
    try:
        # No keepalive of its own: its pings' answers are never read, so it would give up by itself.
        url = await player.ws_url(table_id)
        ws = await websockets.connect(url, sock=raw, max_queue=1, ping_interval=None)
        snapshot = await ws.recv()
        asked = 0
        while asked * len(snapshot) < 8 << 20:  # far more than the kernel's buffers hold
            await ws.send('{"type": "resync"}')
            asked += 1
            await asyncio.sleep(0.001)
        await player.call("POST", "/api/auth/logout")
        reset, started = False, time.monotonic()
        while time.monotonic() - started < 40:
            try:
                await asyncio.wait_for(ws.send('{"type": "ping", "id": 1}'), 1)
            except websockets.ConnectionClosed:
                reset = True
                break
            except TimeoutError:
                pass  # its own buffers full: the server still holds the socket
            await asyncio.sleep(0.2)
        assert reset, "the socket of a client that reads nothing stayed open after it was closed"
    finally:
        raw.close()
        await player.close()


@pytest.fixture
def quiet_server(tmp_path: Path) -> Iterator[ServerProcess]:
    # The backlog's bounds far away, as at a quiet table where nothing more is ever sent.
    env = {**_UNLIMITED, "PREFERANS_SEND_QUEUE_FRAMES": "1000000", "PREFERANS_SEND_TIMEOUT": "2"}
    yield from _server(f"sqlite+aiosqlite:///{tmp_path / 'q.db'}", tmp_path, env)


async def test_a_client_that_never_reads_is_dropped_at_a_finished_table(quiet_server: ServerProcess) -> None:
    """Issue 25: at a finished table nothing more is published, so a client that asked for snapshots and
    never read them never filled its backlog: its data sat in the server's kernel and its socket counted
    against the caps for as long as it liked. The rule is the same at every table: a client that takes
    none of what waits for it for `PREFERANS_SEND_TIMEOUT` seconds is dropped."""
    table = await open_table(quiet_server, 3, {})
    try:
        await table.operator.call("POST", f"/api/tables/{table.id}/stop", {"reason": "closing time"})
        watcher = table.players[0]
        raw = await _small_socket(quiet_server)
        try:
            ws = await websockets.connect(
                await watcher.ws_url(table.id), sock=raw, max_queue=1, ping_interval=None
            )
            snapshot = json.loads(await ws.recv())
            # Stopped in its first deal, the game is over and waits for an award: nothing more is published.
            assert snapshot["type"] == "snapshot" and snapshot["status"] == "awaiting_adjudication", snapshot
            for _ in range(60):  # paced (resyncs asked together are answered by one), then quiet
                await ws.send('{"type": "resync"}')
                await asyncio.sleep(0.02)
            started = time.monotonic()
            dropped = False
            while not dropped and time.monotonic() - started < 25:
                try:
                    await asyncio.wait_for(ws.send('{"type": "ping", "id": 1}'), 1)
                except websockets.ConnectionClosed:
                    dropped = True
                except TimeoutError:
                    pass
                await asyncio.sleep(0.5)
            assert dropped, "a client that reads nothing stayed at a quiet table"
        finally:
            raw.close()
        # The players themselves read: none of them was dropped meanwhile.
        for client in table.clients:
            await client.send({"type": "ping", "id": 2})
            while (await client.receive(timeout=10))["type"] != "pong":
                pass
    finally:
        await table.close()
