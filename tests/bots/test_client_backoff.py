"""Issue 13 §11: the bundled bots do not resend at once after the server could not take an action; they
wait, longer each time, send the same action under the same seq (acknowledged as a duplicate if it was
stored after all), and go on once the server takes it. While they wait they read on: after a storage
refusal the server's word that the table stores again (a ``clock`` frame, not paused, or an update) sends the
action at once, as a player would, since the seat's clock runs from then (RULES §8.1); a busy table's pause
is waited out."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any, cast

import pytest

from app.bots.client import TableClient, play_table

LEGAL = [{"type": "bid", "bid": "6s"}]


class _RefusingTable:
    """A table that refuses the first ``refusals`` actions with ``code``, then acknowledges and ends. Its
    time is its own: a receive that would wait for nothing moves it on by the timeout, at once. ``after``
    holds frames it sends (delay, frame) after the given refusal."""

    def __init__(
        self, refusals: int, code: str, after: dict[int, list[tuple[float, dict[str, Any]]]] | None = None
    ) -> None:
        self.refusals = refusals
        self.code = code
        self.after = after or {}
        self.now = 0.0
        self.version = 1
        self.last: dict[str, Any] | None = {"type": "snapshot", "v": 1, "status": "playing", "legal": LEGAL}
        self.sent: list[tuple[int, dict[str, Any]]] = []
        self.sent_at: list[float] = []
        self.inbox: list[tuple[float, dict[str, Any]]] = []

    def _deliver(self, at: float, frame: dict[str, Any]) -> None:
        self.inbox.append((at, frame))
        self.inbox.sort(key=lambda item: item[0])

    async def act(self, action: dict[str, Any]) -> int:
        seq = len(self.sent) + 1
        await self.send({"type": "action", "seq": seq, "action": action})
        return seq

    async def send(self, message: dict[str, Any]) -> None:
        seq = message["seq"]
        self.sent.append((seq, message["action"]))
        self.sent_at.append(self.now)
        if len(self.sent) <= self.refusals:
            self._deliver(self.now, {"type": "error", "code": self.code, "message": "later", "seq": seq})
            for delay, frame in self.after.get(len(self.sent), []):
                self._deliver(self.now + delay, frame)
        else:
            self._deliver(self.now, {"type": "ack", "seq": seq, "v": 2, "duplicate": False})

    async def receive(self, timeout: float | None = None) -> dict[str, Any]:
        assert timeout is not None and timeout >= 0
        await asyncio.sleep(0)
        if self.inbox and self.inbox[0][0] <= self.now + timeout:
            at, message = self.inbox.pop(0)
            self.now = max(self.now, at)
            if message["type"] == "ack":  # the step is stored: here it ends the game
                self.last = {"type": "update", "v": 2, "status": "finished", "legal": []}
            return message
        self.now += timeout
        raise TimeoutError


def _clock(paused: bool) -> dict[str, Any]:
    reason = "storage" if paused else None
    return {"type": "clock", "table": 1, "v": 1, "paused": paused, "reason": reason, "clock": None}


PRESENCE = {"type": "presence", "table": 1, "seats": []}
STORED = {"type": "update", "table": 1, "v": 1, "status": "playing", "events": [], "legal": LEGAL}


def _gaps(times: list[float]) -> list[float]:
    return [round(b - a, 6) for a, b in itertools.pairwise(times)]


@pytest.mark.parametrize("code", ["server_error", "table_busy"])
async def test_a_bot_backs_off_longer_each_time_the_server_cannot_take_its_action(
    code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _RefusingTable(refusals=6, code=code)
    monkeypatch.setattr("app.bots.client._now", lambda: table.now)
    # The fake has TableClient's methods; play_table takes the class, not a protocol.
    final = await play_table(cast(TableClient, table), lambda legal: legal[0], idle_timeout=60)
    assert final["status"] == "finished"
    # The refused action is sent again, the same under the same seq, once per pause, then taken.
    assert table.sent == [(1, LEGAL[0])] * 7
    assert _gaps(table.sent_at) == [0.25, 0.5, 1.0, 2.0, 4.0, 5.0]


@pytest.mark.parametrize("word", [_clock(paused=False), STORED], ids=["clock", "update"])
async def test_a_waiting_bot_sends_its_action_again_as_soon_as_the_table_stores_again(
    word: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Refused 4 times; 0.3 s after the 4th refusal the table says it can store again (the bot would wait
    # 2 s): its clocks run (a clock frame) or it stored a step (an update). Frames that do not say so (a
    # seat's presence, the clocks still held) change nothing.
    after = {4: [(0.1, PRESENCE), (0.2, _clock(paused=True)), (0.3, word)]}
    table = _RefusingTable(refusals=4, code="server_error", after=after)
    monkeypatch.setattr("app.bots.client._now", lambda: table.now)
    final = await play_table(cast(TableClient, table), lambda legal: legal[0], idle_timeout=60)
    assert final["status"] == "finished"
    assert table.sent == [(1, LEGAL[0])] * 5
    assert _gaps(table.sent_at) == [0.25, 0.5, 1.0, 0.3]


async def test_a_bot_refused_by_a_busy_table_waits_out_its_pause_whatever_it_hears(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A busy table's other seats move on meanwhile: their updates are no word to send again sooner.
    after = {1: [(0.1, STORED), (0.2, _clock(paused=False))]}
    table = _RefusingTable(refusals=1, code="table_busy", after=after)
    monkeypatch.setattr("app.bots.client._now", lambda: table.now)
    final = await play_table(cast(TableClient, table), lambda legal: legal[0], idle_timeout=60)
    assert final["status"] == "finished"
    assert _gaps(table.sent_at) == [0.25]


async def test_an_ack_that_comes_after_all_ends_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    # The refused action was stored after all (its commit's outcome was unknown): a late ack for it, and
    # nothing is sent again.
    ack = {"type": "ack", "seq": 1, "v": 2, "duplicate": False}
    table = _RefusingTable(refusals=10, code="server_error", after={1: [(0.1, ack)]})
    monkeypatch.setattr("app.bots.client._now", lambda: table.now)
    final = await play_table(cast(TableClient, table), lambda legal: legal[0], idle_timeout=60)
    assert final["status"] == "finished"
    assert table.sent == [(1, LEGAL[0])] and table.now < 0.25


async def test_a_bot_with_nothing_to_send_again_still_gives_up_after_its_idle_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = _RefusingTable(refusals=0, code="server_error")
    table.last = {"type": "snapshot", "v": 1, "status": "playing", "legal": []}  # not its turn, ever
    monkeypatch.setattr("app.bots.client._now", lambda: table.now)
    with pytest.raises(TimeoutError):
        await play_table(cast(TableClient, table), lambda legal: legal[0], idle_timeout=7)
    assert table.now == 7 and table.sent == []
