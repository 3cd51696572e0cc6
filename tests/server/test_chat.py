"""Table chat (issue 22 §4) over REST and the table sockets: the players' and spectators' channels each
delivered only where they may be read, the players' channel closed during deals where the room says so,
limits (length, presets, rate), stored with the table and read back, a mute for oneself, a report with its
context, a moderator's removal and mute (told to the muted user), every moderation step audited; no chat
frame carries a card."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from typing import Any

import pytest

from app.bots.client import Api, ApiError, TableClient
from tests.server.conftest import ADMIN, OPERATOR, ServerProcess, login, new_player
from tests.server.test_hidden_information import card_texts_in


class Listener:
    """A table socket that keeps every chat frame it receives."""

    def __init__(self, api: Api, table_id: int) -> None:
        self.client = TableClient(api, table_id)
        self.chat: list[dict[str, Any]] = []
        self.got = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.client.connect()
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            frame = await self.client.receive()
            if frame["type"].startswith("chat"):
                self.chat.append(frame)
                self.got.set()

    async def wait_for(self, predicate: Any, timeout: float = 15) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for frame in self.chat:
                if predicate(frame):
                    return frame
            left = deadline - time.monotonic()
            assert left > 0, f"no such chat frame; got {self.chat}"
            self.got.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.got.wait(), min(left, 1))

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task
        await self.client.close()


async def _refused(call: Any, status: int, code: str) -> dict[str, Any]:
    with pytest.raises(ApiError) as caught:
        await call
    assert caught.value.status == status, caught.value.body
    assert caught.value.body["error"] == code, caught.value.body
    body: dict[str, Any] = caught.value.body
    return body


def _texts(history: dict[str, Any]) -> list[str]:
    return [m["text"] for m in history["messages"]]


async def test_chat_channels_limits_moderation_and_audit(server: ServerProcess) -> None:
    operator = await login(server, OPERATOR)
    admin = await login(server, ADMIN)
    room = await operator.create_room(f"chat {secrets.token_hex(2)}", {"pool_size": 30, "deal_time": 600})
    table_id = int((await operator.open_table(room["id"], 3))["id"])
    players = [await new_player(server) for _ in range(3)]
    watcher = await new_player(server, "w")
    for seat, player in enumerate(players):
        await player.sit(table_id, seat)
    names = [(await p.call("GET", "/api/auth/me"))["name"] for p in players]
    listeners = [Listener(players[0], table_id), Listener(players[1], table_id), Listener(watcher, table_id)]
    for listener in listeners:
        await listener.start()
    mine, other, watching = listeners
    chat = f"/api/tables/{table_id}/chat"
    try:
        # The players' channel: written by a player, read by everyone at the table.
        hello = await players[0].call(
            "POST", chat, {"text": "  Хорошей игры! <img src=x onerror=alert(1)>  "}
        )
        assert hello["channel"] == "players" and hello["seat"] == 0
        assert hello["text"] == "Хорошей игры! <img src=x onerror=alert(1)>"  # text as typed, never HTML
        # The spectators' channel: never to a seated player.
        aside = await watcher.call("POST", chat, {"text": "he should lead the ace"})
        assert aside["channel"] == "spectators" and aside["seat"] is None
        preset = await players[1].call("POST", chat, {"preset": "good_game"})
        assert preset["preset"] == "good_game"
        await watching.wait_for(lambda f: f["type"] == "chat" and f["message"]["id"] == preset["id"])
        await other.wait_for(lambda f: f["type"] == "chat" and f["message"]["id"] == preset["id"])
        for listener in (mine, other):
            assert all(f["message"]["channel"] == "players" for f in listener.chat if f["type"] == "chat")
        assert {f["message"]["id"] for f in watching.chat} >= {hello["id"], aside["id"], preset["id"]}
        # Read back from the database, as a reload does: per channel.
        assert _texts(await players[2].call("GET", chat)) == [hello["text"], "good_game"]
        seen = await watcher.call("GET", chat)
        assert _texts(seen) == [hello["text"], aside["text"], "good_game"] and seen["channel"] == "spectators"
        # Limits: empty, too long, unknown preset; nothing stored.
        await _refused(players[0].call("POST", chat, {"text": "   "}), 422, "invalid_chat")
        await _refused(players[0].call("POST", chat, {"text": "x" * 301}), 422, "invalid_chat")
        await _refused(players[0].call("POST", chat, {"preset": "<script>"}), 422, "invalid_chat")

        # The room closes the players' chat during deals (as a tournament room does): a deal is on.
        settings = await operator.call("PUT", f"/api/operator/rooms/{room['id']}/chat", {
            "closed_in_deals": True, "retention_days": 7})  # fmt: skip
        assert settings == {
            "room": room["id"],
            "closed_in_deals": True,
            "retention_days": 7,
        }
        closed = await players[0].call("GET", chat)
        assert closed["open"] is False and closed["closed_in_deals"] is True
        await _refused(players[0].call("POST", chat, {"preset": "thanks"}), 409, "chat_closed")
        await watcher.call("POST", chat, {"text": "spectators still talk"})
        await operator.call("PUT", f"/api/operator/rooms/{room['id']}/chat", {
            "closed_in_deals": False, "retention_days": 7})  # fmt: skip

        # A mute for oneself: player 1 no longer gets player 0's messages, in frames or on reload.
        await players[1].call("PUT", f"/api/chat/ignores/{names[0]}")
        rude = await players[0].call("POST", chat, {"text": "you play like a robot"})
        await watching.wait_for(lambda f: f["type"] == "chat" and f["message"]["id"] == rude["id"])
        later = await players[2].call("POST", chat, {"text": "calm down"})
        await other.wait_for(lambda f: f["type"] == "chat" and f["message"]["id"] == later["id"])
        assert all(f["message"]["id"] != rude["id"] for f in other.chat if f["type"] == "chat")
        ignoring = await players[1].call("GET", chat)
        assert rude["text"] not in _texts(ignoring) and ignoring["ignored"] == [names[0]]

        # A report keeps the context; the room's operator sees it, removes the message (audited).
        report = await players[2].call(
            "POST", f"/api/chat/messages/{rude['id']}/report", {"reason": "insult"}
        )
        reports = (await operator.call("GET", "/api/chat/reports"))["reports"]
        mine_report = next(r for r in reports if r["id"] == report["id"])
        assert mine_report["message"]["text"] == rude["text"] and mine_report["reporter"] == names[2]
        context = [m["text"] for m in mine_report["context"]]
        assert rude["text"] in context and later["text"] in context and hello["text"] in context
        assert [m["id"] for m in mine_report["context"] if m["reported"]] == [rude["id"]]
        assert all(m["channel"] == "players" for m in mine_report["context"])
        # Not another operator's business; a player may not remove.
        await _refused(players[2].call("DELETE", f"{chat}/{rude['id']}", {"reason": "x"}), 403, "forbidden")
        await operator.call("DELETE", f"{chat}/{rude['id']}", {"reason": "insult"})
        await watching.wait_for(lambda f: f["type"] == "chat_removed" and f["id"] == rude["id"])
        assert rude["text"] not in _texts(await watcher.call("GET", chat))
        assert not [
            r for r in (await operator.call("GET", "/api/chat/reports"))["reports"] if r["id"] == report["id"]
        ]

        # A mute in the room for a time: the user is told at once and refused; site-wide is admins' only.
        await _refused(
            operator.call("POST", "/api/chat/mutes", {"user": names[0], "minutes": 10, "reason": "insults"}),
            403,
            "forbidden",
        )
        mute = await operator.call(
            "POST",
            "/api/chat/mutes",
            {"user": names[0], "room": room["id"], "minutes": 10, "reason": "insults"},
        )
        told = await mine.wait_for(lambda f: f["type"] == "chat_muted")
        assert told["until"] == mute["until"] and told["site_wide"] is False and told["reason"] == "insults"
        assert told["until"] > time.time() + 9 * 60
        refused = await _refused(players[0].call("POST", chat, {"text": "sorry"}), 403, "chat_muted")
        assert "insults" in refused["message"]
        assert (await players[0].call("GET", chat))["muted"]["until"] == mute["until"]
        site = await admin.call("POST", "/api/chat/mutes", {"user": names[2], "minutes": 5, "reason": "spam"})
        await _refused(players[2].call("POST", chat, {"text": "hi"}), 403, "chat_muted")
        await admin.call("DELETE", f"/api/chat/mutes/{site['id']}")
        await players[2].call("POST", chat, {"text": "thank you"})

        audit = (await admin.call("GET", "/api/admin/audit?limit=50"))["items"]
        actions = [(e["action"], e["admin"]) for e in audit]
        for expected in [
            ("chat_remove", OPERATOR),
            ("chat_mute", OPERATOR),
            ("chat_mute", ADMIN),
            ("chat_unmute", ADMIN),
            ("room_chat", OPERATOR),
        ]:
            assert expected in actions, actions
        removal = next(e for e in audit if e["action"] == "chat_remove")
        assert removal["detail"]["text"] == rude["text"] and removal["detail"]["reason"] == "insult"

        # The server never writes a card into chat: no chat frame any socket got holds one.
        for listener in listeners:
            assert listener.chat
            for frame in listener.chat:
                assert card_texts_in(frame) == set(), frame
    finally:
        for listener in listeners:
            await listener.stop()
        for api in (*players, watcher, operator, admin):
            await api.close()


async def test_chat_rate_limits_per_user(sqlite_server: ServerProcess) -> None:
    """Past the burst a user's messages are refused (429, Retry-After) and not stored."""
    operator = await login(sqlite_server, OPERATOR)
    room = await operator.create_room(f"rate {secrets.token_hex(2)}", {})
    table_id = int((await operator.open_table(room["id"], 3))["id"])
    watcher = await new_player(sqlite_server, "w")
    chat = f"/api/tables/{table_id}/chat"
    headers = {"Authorization": f"Bearer {watcher.token}"}
    try:
        statuses = []
        for i in range(8):
            response = await watcher.http.post(chat, json={"text": f"message {i}"}, headers=headers)
            statuses.append(response.status_code)
            if response.status_code == 429:
                assert response.json()["error"] == "rate_limited"
                assert int(response.headers["retry-after"]) >= 1
        assert statuses[:5] == [201] * 5 and 429 in statuses, statuses
        stored = _texts(await watcher.call("GET", chat))
        assert len(stored) == statuses.count(201)
    finally:
        await watcher.close()
        await operator.close()
