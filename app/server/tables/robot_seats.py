"""Robot players at server tables (issue 12): a robot sits like a person and plays through the same actor.

A robot seat is a user named ``robot:LEVEL:SEAT`` (a name no person can register: ':' is not allowed in
names; the account is disabled, so nobody logs in as it). Its player is a `RobotPlayer`: a connection of
the table like a browser's, except that the frames go to the robot instead of a socket. So a robot gets
exactly the frames its seat's socket would get (`view(state, seat)`, RULES.md §12) and acts with the same
``action`` commands, sequence numbers, clocks and refusals as a person. It decides off the event loop
(`app.robots.decide`, budgets in layouts and solver nodes), after a short humanlike pause.

Clocks: a robot answers within its own time. When its seat's deal time and reserve fall under
`LOW_TIME_MS`, it plays at the ``easy`` level (a few layouts), so a slow machine cannot make a strong
robot run out — the level it uses depends on its own clock, as a person plays faster when short of time.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from typing import Any, cast

import orjson
from fastapi import WebSocket
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.users import name_key
from app.db.models import User
from app.engine import Action, action_from_json
from app.protocol.messages import SnapshotMessage, UpdateMessage
from app.robots import Robot, decide
from app.server.connections.connection import Connection
from app.server.context import ServerContext
from app.server.tables.actor import TableActor
from app.server.tables.commands import Act, Connect, Disconnect
from app.server.tables.robot_levels import robot_level, robot_name

log = logging.getLogger(__name__)

LOW_TIME_MS = 8_000


async def robot_user(session: AsyncSession, level: str, seat: int) -> User:
    """The robot account for ``level`` at ``seat`` (created once; disabled, with no usable password)."""
    name = robot_name(level, seat)
    user = (await session.execute(select(User).where(User.name_key == name_key(name)))).scalar_one_or_none()
    if user is None:
        user = User(
            name=name, name_key=name_key(name), password_hash="!robot", role="player",
            created_at=time.time(), disabled=True,
        )  # fmt: skip
        session.add(user)
        await session.flush()
    return user


class RobotPlayer(Connection):
    """A robot at one seat of one table: a connection whose frames the robot reads."""

    def __init__(self, ctx: ServerContext, actor: TableActor, user_id: int, name: str, level: str) -> None:
        super().__init__(cast(WebSocket, None), user_id, name, queue_frames=8)
        self.ctx = ctx
        self.actor = actor
        self.level = level
        self.robot = Robot(level, actor.conventions)
        self.seq = 0
        self._latest: SnapshotMessage | UpdateMessage | None = None
        self._decided_v = -1
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # ---- the connection side (called by the table actor) ------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._play(), name=f"robot-{self.actor.table_id}-{self.user_name}")

    def send(self, message: BaseModel | dict[str, Any] | str) -> None:
        if isinstance(message, str):  # a snapshot or an update, encoded once (publishing)
            data = orjson.loads(message)
            if data.get("type") == "snapshot":
                message = SnapshotMessage.model_validate(data)
            elif data.get("type") == "update":
                message = UpdateMessage.model_validate(data)
            else:
                return
        if isinstance(message, SnapshotMessage):
            self.seq = max(self.seq, message.last_seq)
        if isinstance(message, SnapshotMessage | UpdateMessage):
            if message.view is not None and message.view.get("deal") is not None:
                self.robot.observe(message.view)
            self._latest = message
            self._wake.set()

    def close(self, code: int = 1000) -> None:
        self.closed.set()
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()

    async def wait_sent(self, timeout: float = 10.0) -> None:
        return None

    # ---- the robot side ----------------------------------------------------------------------------------

    async def _play(self) -> None:
        while not self.closed.is_set():
            await self._wake.wait()
            self._wake.clear()
            message = self._latest
            if message is None:
                continue
            if message.status not in ("waiting", "playing"):
                self.actor.submit(Disconnect(self))  # the game is over: the robot leaves the room
                self.closed.set()
                return
            if not message.legal or message.v == self._decided_v or message.view is None:
                continue
            self._decided_v = message.v
            delay = self.ctx.settings.robot_delay_ms / 1000.0
            if delay > 0:
                await asyncio.sleep(delay)
                if self._latest is not message:
                    continue  # the table moved on meanwhile (a timeout, a stop)
            try:
                action = await self._decide(message)
            except Exception:
                log.exception("table %s: robot %s could not decide", self.actor.table_id, self.user_name)
                action = action_from_json(message.legal[0])
            self.seq += 1
            self.actor.submit(Act(self, self.seq, {k: v for k, v in action.to_json().items() if k != "seat"}))

    async def _decide(self, message: SnapshotMessage | UpdateMessage) -> Action:
        view = message.view
        assert view is not None
        legal = [action_from_json(a) for a in message.legal]
        seat = self.seat
        level = self.level
        clock = message.clock
        if clock is not None and seat is not None and level in ("normal", "strong"):
            mine = clock["seats"][seat]
            if int(mine["deal_ms"]) + int(mine["reserve_ms"]) < LOW_TIME_MS:
                level = "easy"
        seed = _seed(self.actor.table_id, seat, message.actions)
        robot = self.robot

        def work() -> Action:
            if level == robot.level.name:
                return robot.act(view, legal, seed)
            return decide(view, legal, seed, level, memory=robot.memory, conventions=robot.conventions)

        return await asyncio.get_running_loop().run_in_executor(self.ctx.solver_executor, work)


def _seed(table_id: int, seat: int | None, actions: int) -> int:
    """The robot's randomness for one decision: a function of the table and the position in its log."""
    digest = hashlib.blake2b(f"{table_id}:{seat}:{actions}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def attach_robots(ctx: ServerContext, actor: TableActor) -> None:
    """Give every robot seat of ``actor`` its player (at the table's start or after a reload)."""
    present = {c.user_id for c in actor.connections if isinstance(c, RobotPlayer)}
    for seat, name in enumerate(actor.seating.names):
        level = robot_level(name)
        user_id = actor.seating.users[seat]
        if level is None or name is None or user_id is None or user_id in present:
            continue
        player = RobotPlayer(ctx, actor, user_id, name, level)
        player.start()
        actor.submit(Connect(player))
