"""RULES §8.6, in process on a fake store and a fake clock: the server holds a table's clocks while it cannot
store (every live table, whether or not its player acts) and, after a restart or a takeover, until the
seat to move is connected again or the grace has passed, whichever is first; the players are told both
moments (a ``clock`` frame), and nobody is charged for the hold."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any, cast

import orjson
import pytest
from fastapi import WebSocket
from pydantic import BaseModel

from app.engine import legal_actions
from app.engine.conventions import Conventions
from app.server.connections.connection import Connection
from app.server.tables.actor import TableActor
from app.server.tables.commands import Act, Connect, Life, Sit
from app.server.timebase import MonoMs
from app.table import Decree, ProposalKind
from app.table.proposals import Person
from tests.server.test_actor_replies import FakeStore


class Now:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.ms = 1_000_000

    def __call__(self) -> MonoMs:
        return MonoMs(self.ms)


class Recorder(Connection):
    """A player's connection whose frames the test reads."""

    def __init__(self, user_id: int) -> None:
        super().__init__(cast(WebSocket, None), user_id, f"u{user_id}", queue_frames=64)
        self.frames: list[dict[str, Any]] = []

    def send(self, message: BaseModel | dict[str, Any] | str) -> None:
        if isinstance(message, BaseModel):
            message = message.model_dump(mode="json")
        self.frames.append(orjson.loads(message) if isinstance(message, str) else message)

    def clock_frames(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == "clock"]


async def _started(actor: TableActor) -> None:
    for user in range(3):
        reply: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        actor.submit(Sit(user + 1, f"u{user + 1}", user, reply))
        await asyncio.wait_for(reply, 5)


async def _settled(actor: TableActor) -> None:
    """Every queued command handled (the actor waits for the next one)."""
    for _ in range(200):
        await asyncio.sleep(0.01)
        if actor.queue.empty():
            await asyncio.sleep(0.05)
            if actor.queue.empty():
                return
    raise AssertionError("the table did not settle")


def _left(actor: TableActor, now: Now) -> list[int]:
    game = actor.game
    assert game is not None
    return [game.clock.time_left(s, now.ms).total_ms for s in range(3)]


@pytest.fixture
async def table() -> AsyncIterator[tuple[TableActor, FakeStore, Now]]:
    store, now = FakeStore(), Now()
    actor = TableActor(store, 1, 3, Conventions(), first_dealer=0, now=now)
    actor.start()
    await _started(actor)
    yield actor, store, now
    await actor.stop()


async def _restarted(source: TableActor, store: FakeStore, now: Now, grace_ms: int) -> tuple[TableActor, int]:
    """A copy of ``source``'s table as a restarted server resumes it: its clock held, the grace running."""
    game = source.game
    assert game is not None and game.clock.running is not None
    mover = game.clock.running
    actor = TableActor(store, 1, 3, Conventions(), first_dealer=0, now=now)
    actor.seating, actor.version = source.seating, source.version
    actor.next_action_seq = source.next_action_seq
    actor.game = replace(game, clock=game.clock.freeze(now.ms))
    actor.await_reconnect(grace_ms)
    actor.start()
    return actor, mover


async def test_a_restarted_table_runs_the_clock_when_the_seat_to_move_connects(
    table: tuple[TableActor, FakeStore, Now],
) -> None:
    source, store, now = table
    actor, mover = await _restarted(source, store, now, grace_ms=60_000)
    try:
        held = _left(actor, now)
        other = Recorder(user_id=(mover + 1) % 3 + 1)
        actor.submit(Connect(other))
        now.ms += 5_000  # the seat to move is 5 s late
        await _settled(actor)
        assert _left(actor, now) == held, "a seat that is not to move connecting resumes nothing"
        snapshot = next(f for f in other.frames if f["type"] == "snapshot")
        assert snapshot["clock"]["frozen"] and snapshot["clock"]["running"] is None

        player = Recorder(user_id=mover + 1)
        actor.submit(Connect(player))
        await _settled(actor)
        assert _left(actor, now) == held, "the seat to move was charged for coming back late"
        game = actor.game
        assert game is not None and game.clock.running == mover and not game.clock.frozen
        resumed = other.clock_frames()[-1]
        assert resumed["paused"] is False and resumed["clock"]["running"] == mover
        now.ms += 1_500
        left = _left(actor, now)
        assert left[mover] == held[mover] - 1_500 and [s for i, s in enumerate(left) if i != mover] == [
            s for i, s in enumerate(held) if i != mover
        ]
    finally:
        await actor.stop()


async def test_a_restarted_table_runs_the_clock_after_the_grace_when_nobody_comes_back(
    table: tuple[TableActor, FakeStore, Now],
) -> None:
    source, store, now = table
    actor, mover = await _restarted(source, store, now, grace_ms=300)
    try:
        watcher = Recorder(user_id=99)  # a spectator: not the seat to move
        actor.submit(Connect(watcher))
        held = _left(actor, now)
        await _settled(actor)
        game = actor.game
        assert game is not None and game.clock.frozen
        # The newcomer was told why the clocks stand still.
        told = watcher.clock_frames()
        assert told and told[0]["paused"] is True and told[0]["reason"] == "reconnect", told
        # The grace timer runs on the loop's time: the table resumes by itself once it has passed.
        async with asyncio.timeout(10):
            while watcher.clock_frames()[-1]["paused"]:
                await asyncio.sleep(0.02)
        game = actor.game
        assert game is not None and game.clock.running == mover and not game.clock.frozen
        assert watcher.clock_frames()[-1]["paused"] is False
        assert _left(actor, now) == held
        now.ms += 700
        assert _left(actor, now)[mover] == held[mover] - 700
    finally:
        await actor.stop()


async def test_an_idle_table_freezes_while_the_database_is_away_and_tells_its_players(
    table: tuple[TableActor, FakeStore, Now],
) -> None:
    actor, _store, now = table
    player = Recorder(user_id=1)
    actor.submit(Connect(player))
    await _settled(actor)
    game = actor.game
    assert game is not None and game.clock.running is not None
    mover = game.clock.running
    now.ms += 2_000
    before = _left(actor, now)  # 2 s of thinking while the database answered
    answered = now.ms
    now.ms += 300  # the writer sees the database away 300 ms after its last answer: not charged
    actor.storage_down(MonoMs(answered))
    frozen = player.clock_frames()[-1]
    assert frozen["paused"] is True and frozen["reason"] == "storage" and frozen["clock"]["frozen"]
    now.ms += 6_000  # the outage
    assert _left(actor, now) == before
    actor.storage_back()
    await _settled(actor)
    thawed = player.clock_frames()[-1]
    assert thawed["paused"] is False and thawed["clock"]["running"] == mover
    now.ms += 1_000
    assert _left(actor, now)[mover] == before[mover] - 1_000


async def _acted(actor: TableActor, conn: Recorder, seq: int, action: dict[str, Any]) -> None:
    version = actor.version
    actor.submit(Act(conn, seq, action))
    async with asyncio.timeout(10):
        while actor.version == version:
            await asyncio.sleep(0.005)


async def substitute_decreed(actor: TableActor, seat: int) -> None:
    """An operator's decree (RULES §7.7): user 4 takes ``seat`` (held by user ``seat + 1``) after the deal."""
    holder = seat + 1
    reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    decree = Decree(
        ProposalKind.SUBSTITUTE, "gone", seat=seat, holder=Person(holder, f"u{holder}"),
        substitute=Person(4, "u4"), seated=(1, 2, 3),
    )  # fmt: skip
    actor.submit(Life(lambda _s: decree, reply))
    await asyncio.wait_for(reply, 5)


async def test_a_substitute_taking_the_seat_to_move_in_the_grace_is_held_on_his_own_socket(
    table: tuple[TableActor, FakeStore, Now],
) -> None:
    """Within the grace after a restart, a substitution (RULES §7.7) takes a seat from the next deal; when
    that seat is the next deal's first to move, the hold asks whether the substitute is connected, not
    whether his predecessor is: the holder's socket left open, the substitute's clock stays held (he is not
    charged for a table he has not reached) until he connects."""
    source, store, now = table
    actor, _ = await _restarted(source, store, now, grace_ms=600_000)
    try:
        players = {user: Recorder(user_id=user) for user in (1, 2, 3)}
        for conn in players.values():
            actor.submit(Connect(conn))
        await _settled(actor)
        game = actor.game
        assert game is not None and not game.clock.frozen  # every holder back: the clock runs
        # Deal 2's first to move: the seat after its dealer (deal 1's dealer is seat 0).
        first = (game.state.dealer + 2) % 3
        await substitute_decreed(actor, first)
        seqs = dict.fromkeys(range(3), 0)
        while (game := actor.game) is not None and game.state.deal_number == 1:
            seat = game.to_act()
            assert seat is not None
            seqs[seat] += 1
            now.ms += 100
            await _acted(actor, players[seat + 1], seqs[seat], legal_actions(game.state)[0].to_json())
        game = actor.game
        assert game is not None and actor.seating.users[first] == 4
        assert game.clock.frozen, "the substitute was charged on his predecessor's socket"
        assert game.clock.resume == first, game.clock
        held = _left(actor, now)
        now.ms += 5_000
        assert _left(actor, now) == held
        substitute = Recorder(user_id=4)
        actor.submit(Connect(substitute))
        await _settled(actor)
        game = actor.game
        assert game is not None and not game.clock.frozen and game.clock.running == first
        now.ms += 1_000
        assert _left(actor, now)[first] == held[first] - 1_000
    finally:
        await actor.stop()
