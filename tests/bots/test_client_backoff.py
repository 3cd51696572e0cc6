"""Issue 13 §11: the bundled bots do not resend at once after the server could not take an action; they
wait, longer each time, send the same action under the same seq (acknowledged as a duplicate if it was
stored after all), and go on once the server takes it."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from app.bots.client import TableClient, play_table

LEGAL = [{"type": "bid", "bid": "6s"}]


class _RefusingTable:
    """A table that refuses the first ``refusals`` actions with ``code``, then acknowledges and ends."""

    def __init__(self, refusals: int, code: str) -> None:
        self.refusals = refusals
        self.code = code
        self.version = 1
        self.last: dict[str, Any] | None = {"type": "snapshot", "v": 1, "status": "playing", "legal": LEGAL}
        self.sent: list[tuple[int, dict[str, Any]]] = []
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def act(self, action: dict[str, Any]) -> int:
        seq = len(self.sent) + 1
        await self.send({"type": "action", "seq": seq, "action": action})
        return seq

    async def send(self, message: dict[str, Any]) -> None:
        seq = message["seq"]
        self.sent.append((seq, message["action"]))
        if len(self.sent) <= self.refusals:
            self.inbox.put_nowait({"type": "error", "code": self.code, "message": "later", "seq": seq})
        else:
            self.inbox.put_nowait({"type": "ack", "seq": seq, "v": 2, "duplicate": False})
            self.last = {"type": "update", "v": 2, "status": "finished", "legal": []}

    async def receive(self, timeout: float | None = None) -> dict[str, Any]:
        return await asyncio.wait_for(self.inbox.get(), timeout)


@pytest.mark.parametrize("code", ["server_error", "table_busy"])
async def test_a_bot_backs_off_longer_each_time_the_server_cannot_take_its_action(
    code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def recorded_sleep(seconds: float) -> None:
        waits.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr("app.bots.client.asyncio.sleep", recorded_sleep)
    table = _RefusingTable(refusals=6, code=code)
    # The fake has TableClient's methods; play_table takes the class, not a protocol.
    final = await play_table(cast(TableClient, table), lambda legal: legal[0], idle_timeout=5)
    assert final["status"] == "finished"
    # The refused action is sent again, the same under the same seq, once per pause, then taken.
    assert table.sent == [(1, LEGAL[0])] * 7
    assert waits == [0.25, 0.5, 1.0, 2.0, 4.0, 5.0]
