"""A small client of the server: REST (httpx) for the lobby, one websocket (websockets) per table."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets

from app.protocol.codes import CloseCode, ErrorCode

RETRIES_WHEN_BUSY = 6
# The server runs several workers and this socket reached one that does not run the table (the close
# reason names the one that does): reconnect there (a fresh ticket names it too).
MAX_TABLE_ID = 2**31 - 1


class ApiError(Exception):
    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body


class Api:
    """The REST lobby, with the token of the logged-in user."""

    def __init__(self, server: str, token: str | None = None) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.http = httpx.AsyncClient(base_url=self.server, timeout=30.0)

    async def close(self) -> None:
        await self.http.aclose()

    async def call(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        for _ in range(RETRIES_WHEN_BUSY):
            try:
                response = await self.http.request(method, path, json=body, headers=headers)
            except (httpx.ReadError, httpx.RemoteProtocolError):
                # A pooled keep-alive connection the server had just closed: once more on a fresh one.
                response = await self.http.request(method, path, json=body, headers=headers)
            if response.status_code not in (429, 503) or "retry-after" not in response.headers:
                break
            # Rate-limited (login, register) or the password pool is full: wait as told, then again.
            await asyncio.sleep(min(30.0, float(response.headers["retry-after"])))
        data = response.json() if response.content else None
        if response.status_code >= 400:
            raise ApiError(response.status_code, data)
        return data

    async def register(self, name: str, password: str) -> Any:
        return await self.call("POST", "/api/auth/register", {"name": name, "password": password})

    async def login(self, name: str, password: str) -> Any:
        data = await self.call("POST", "/api/auth/login", {"name": name, "password": password})
        self.token = data["token"]
        return data

    async def create_room(self, name: str, overrides: dict[str, Any], preset: str = "fspr-leningrad") -> Any:
        return await self.call("POST", "/api/rooms", {"name": name, "preset": preset, "overrides": overrides})

    async def open_table(self, room_id: int, seats: int, overrides: dict[str, Any] | None = None) -> Any:
        body = {"seats": seats, "overrides": overrides or {}}
        return await self.call("POST", f"/api/rooms/{room_id}/tables", body)

    async def sit(self, table_id: int, seat: int | None = None) -> int:
        try:
            data = await self.call("POST", f"/api/tables/{table_id}/sit", {"seat": seat})
        except ApiError as exc:
            # A retried request whose first attempt went through.
            if (
                seat is not None
                and exc.status == 409
                and (exc.body or {}).get("error") == ErrorCode.ALREADY_SEATED
            ):
                return seat
            raise
        seat_taken: int = data["seat"]
        return seat_taken

    def ws_base(self, table_id: int) -> str:
        base = "ws" + self.server[len("http") :] if self.server.startswith("http") else self.server
        return f"{base}/ws/tables/{table_id}"

    async def ws_url(self, table_id: int) -> str:
        """The table's websocket URL with a fresh single-use ticket (the token never goes in a URL); with
        several workers, the URL of the one that runs the table."""
        # (An id out of range gets no owner: the socket itself is refused with its typed error.)
        query = f"?table={table_id}" if 1 <= table_id <= MAX_TABLE_ID else ""
        data = await self.call("POST", f"/api/auth/ws-ticket{query}")
        url: str | None = data.get("url")
        return url or f"{self.ws_base(table_id)}?ticket={data['ticket']}"

    def table(self, table_id: int, *, record: bool = False) -> TableClient:
        return TableClient(self, table_id, record=record)


@dataclass
class TableClient:
    """One websocket to one table: tracks the version, resyncs on a gap, sends numbered actions.
    Each `connect` (a reconnect too) gets a fresh ticket through ``api``."""

    api: Api
    table_id: int
    record: bool = False
    frames: list[dict[str, Any]] = field(default_factory=list)
    seq: int = 0
    version: int | None = None
    last: dict[str, Any] | None = None  # the last snapshot or update
    sheet: dict[str, Any] | None = None  # the newest score sheet (updates carry it only when it changes)
    ws: Any = None

    async def connect(self) -> None:
        url = await self.api.ws_url(self.table_id)
        self.ws = await websockets.connect(url, max_size=2**22, open_timeout=30)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def act(self, action: dict[str, Any]) -> int:
        self.seq += 1
        await self.send({"type": "action", "seq": self.seq, "action": action})
        return self.seq

    async def receive(self, timeout: float | None = None) -> dict[str, Any]:
        # asyncio.timeout, not wait_for: Python 3.11's wait_for can swallow a cancellation that arrives
        # as a frame does, and a bot told to stop would then play on.
        try:
            async with asyncio.timeout(timeout):
                text = await self.ws.recv()
        except websockets.ConnectionClosed as exc:
            if exc.rcvd is None or exc.rcvd.code != CloseCode.MOVED:
                raise
            await self.connect()  # the table moved to another worker
            return await self.receive(timeout)
        message: dict[str, Any] = json.loads(text)
        if message.get("type") == "error" and message.get("code") == ErrorCode.MOVED:
            await self.ws.close()
            await self.connect()
            return await self.receive(timeout)
        if self.record:
            self.frames.append(message)
        kind = message.get("type")
        if kind in ("snapshot", "update") and message.get("sheet") is not None:
            self.sheet = message["sheet"]
        if kind == "snapshot":
            self.version = message["v"]
            self.last = message
            self.seq = max(self.seq, int(message.get("last_seq", 0)))
        elif kind == "update":
            if self.version is not None and message["v"] != self.version + 1:
                # A gap: something was lost; ask for the whole picture instead of guessing.
                await self.send({"type": "resync", "v": self.version})
            else:
                self.version = message["v"]
                self.last = message
        return message


# Refusals that mean "not now": the action may succeed if sent again after a pause.
_TRY_LATER = (ErrorCode.SERVER_ERROR, ErrorCode.TABLE_BUSY)

# Picks one of the legal actions; None means "not now" (the bot waits for the next step).
Chooser = Callable[[list[dict[str, Any]]], dict[str, Any] | None]


# A loop timer may fire this much before its time (the loop's clock resolution is finer still).
_EARLY = 0.001


def _now() -> float:
    return asyncio.get_running_loop().time()


async def play_table(
    client: TableClient,
    choose: Chooser | None,
    *,
    idle_timeout: float = 600.0,
    observe: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play until the game ends; ``choose`` picks one of the legal actions (None: never act); ``observe``
    sees every frame received (a test's record of what the bot was told, and when).

    Returns the final snapshot/update (with ``outcome``).
    """
    pending: int | None = None
    sent: dict[str, Any] = {}  # the action sent under `pending`
    acted_on: int | None = None  # the version we last acted on: one action per step
    backoff = 0.0  # after the server could not take an action: wait before sending it again
    resend_at: float | None = None  # when `pending` goes out again (`_now`)
    storing = False  # whether it waits because the table could not store it (not because it was busy)
    while True:
        current = client.last
        if current is not None:
            if current["status"] in ("finished", "awaiting_adjudication"):
                return current
            if choose is not None and pending is None and current["legal"] and acted_on != client.version:
                acted_on = client.version
                action = choose(current["legal"])
                if action is not None:
                    pending, sent = await client.act(action), action
        # While an action waits to go out again, only its pause bounds the wait (at most 5 s).
        wait = idle_timeout if resend_at is None else max(0.0, resend_at - _now())
        try:
            message = await client.receive(timeout=wait)
        except TimeoutError:
            if resend_at is None or _now() < resend_at - _EARLY:
                raise
            message = {}  # the pause is over
        if observe is not None and message:
            observe(message)
        kind = message.get("type")
        if kind == "ack" and message.get("seq") == pending:
            pending, backoff, resend_at = None, 0.0, None
        elif kind == "error" and message.get("code") in _TRY_LATER and message.get("seq") == pending:
            # The server could not store it (its database is away) or the table is flooded: sending it
            # again at once would only add to the load. Wait longer each time, up to 5 s, reading on: the
            # server's word that its clocks run again sends it at once.
            # The same action under the same seq: if it was stored after all, it is acknowledged as a
            # duplicate; a new choice from an old picture could be a move the bot never meant here.
            backoff = min(5.0, max(0.25, backoff * 2))
            resend_at = _now() + backoff
            storing = message.get("code") == ErrorCode.SERVER_ERROR
        elif kind == "error" and message.get("code") == ErrorCode.RATE_LIMITED:
            # The frame was dropped unread: back off, then send the action again under a new number.
            await asyncio.sleep(0.25)
            pending, acted_on, resend_at = None, None, None
        elif kind == "error" and (
            message.get("seq") == pending or message.get("code") == ErrorCode.NOT_YOUR_TURN
        ):
            # Rejected: look again at the newest legal actions.
            pending, acted_on, resend_at = None, None, None
        if resend_at is not None and (
            not message
            or _now() >= resend_at - _EARLY
            or (storing and kind == "clock" and not message.get("paused"))
            or (storing and kind == "update")
        ):
            # RULES §8.1: the seat's clock runs again once the table can store (it says so, or it stored a
            # step, a server move of its retry): a player would act now. A busy table's word is its pause.
            resend_at = None
            await client.send({"type": "action", "seq": pending, "action": sent})


def random_chooser(rng: random.Random) -> Chooser:
    def choose(legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        return rng.choice(legal)

    return choose
