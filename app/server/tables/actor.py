"""The table actor: one asyncio task owns a table (STYLE: lichess ``RoundAsyncActor``).

Every command (a player's action, a seat change, a clock expiry, an operator's stop, an administrator's
award) goes through the actor's queue and is handled to the end before the next one, so a table has exactly
one writer. The rules live in the pure `app.table.step`; the actor only does I/O around it: it runs the
step (off the event loop when the solver robot must play), hands what the step says to the group-commit
writer (`app.server.storage`) and waits for its batch to commit, and only then adopts the new game,
acknowledges and publishes (`connections.publishing`). A failed commit changes nothing of the game in
memory and every waiting caller gets a reply. No per-table clock checkpoints: each step stores its turn's
start on the wall clock, and the process's heartbeat bounds what a crash charges.

The server holds a table's clocks (RULES §8.6) for two reasons, and the players are told both moments
(a ``clock`` frame): ``storage`` — the server cannot store (the writer saw its database away or hung, or
this table's own commit failed): every live table freezes from when the database last answered, whether
or not its player acts, and thaws once it stores again (the writer says so; a retry timer backs that up
for a table whose own commit failed, and makes again a server move that failed — a shuffle, a timeout);
``reconnect`` — after a restart or a takeover the seat to move is not connected yet: its clock runs
from when it connects again or the grace has passed, whichever is first.

The actor talks to the world through small interfaces: a `StepStore` (the table's storage), a ``now``
source of monotonic milliseconds, the off-loop robot and a callback for when it falls idle; seat rules
are `app.table.Seating`'s. A test builds one with a fake store in three lines.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, Protocol

from sqlalchemy.exc import IntegrityError

from app.clock import ReserveClock
from app.engine import EngineError, Shuffle, shuffle_action
from app.engine.conventions import Conventions
from app.engine.events import Event
from app.engine.scoring import ScoringError
from app.protocol.codes import ErrorCode
from app.protocol.messages import AckMessage, ErrorMessage, SeatInfo, ack_text
from app.server import metrics
from app.server.connections.connection import Connection
from app.server.connections.publishing import (
    ViewCache,
    publish_clock,
    publish_presence,
    publish_update,
    send_snapshot,
)
from app.server.storage import StepWrite, StoredTable, WriteRefused
from app.server.tables.commands import (
    Act,
    AdjournDue,
    Award,
    Command,
    Connect,
    Disconnect,
    Expire,
    GraceOver,
    Judge,
    Leave,
    Life,
    Resync,
    Retry,
    RoundEnd,
    SeatError,
    Sit,
    Stop,
    Unseat,
    fail,
)
from app.server.tables.mailbox import Mailbox
from app.server.tables.robot import OffLoopRobot
from app.server.tables.robot_levels import robot_level
from app.server.timebase import MonoMs, WallMs, mono_ms, wall_ms
from app.table import (
    AdjournExpiry,
    AwardDeal,
    ClockExpiry,
    Game,
    JudgeSheet,
    Resume,
    RobotRequired,
    SeatAction,
    Seating,
    ServerMoves,
    Step,
    StopGame,
    TableCommand,
    TableRefused,
    TableStatus,
    abort,
    player_action,
    start_game,
    step,
)
from app.table.life import adjourn_deadline_wall_ms

__all__ = [
    "Act", "Award", "Connect", "Disconnect", "Game", "Leave", "Resync", "SeatError", "Sit", "StepStore",
    "Stop", "TableActor",
]  # fmt: skip

log = logging.getLogger(__name__)

_SYSTEM_RANDOM = secrets.SystemRandom()  # RULES §1.3: shuffling uses a cryptographic RNG


def _shuffle() -> Shuffle:
    return shuffle_action(_SYSTEM_RANDOM)


# The commands that move the game on: a fault in their step would recur on every later move.
_DRIVING = (SeatAction, ClockExpiry, Resume)
# Commands that change nothing stored: they need no reread of an unsure table first.
_READ_ONLY = (Connect, Disconnect, Resync)
# Commands refused with `table_busy` when too many wait: clients' and REST callers', never the table's own.
_SHEDDABLE = (Act, Resync, Sit, Leave, Stop, Award, Judge, Life)
_BUSY = "the table is busy; try again in a moment"


def _shed(command: Command) -> None:
    match command:
        case Act(conn, seq):
            conn.send(ErrorMessage(code=ErrorCode.TABLE_BUSY, message=_BUSY, seq=seq))
        case Resync(conn):
            conn.resync_pending = False  # the client may ask again
            conn.send(ErrorMessage(code=ErrorCode.TABLE_BUSY, message=_BUSY))
        case _:
            fail(command, SeatError(ErrorCode.TABLE_BUSY, _BUSY))


class StepStore(Protocol):
    """What a table needs of storage (`app.server.storage.TableStore`; a dict-backed fake in tests)."""

    @property
    def failing_since(self) -> MonoMs | None:
        """Since when every commit of the process has failed (None: the database is answering)."""

    async def commit(self, table_id: int, version: int | None, write: StepWrite) -> None:
        """Store ``write`` with the table's new ``version`` (None: unchanged); raise if not stored."""

    async def stored_version(self, table_id: int) -> int | None: ...

    async def read(self, table_id: int) -> StoredTable | None: ...

    async def next_award_revision(self, deal_id: int) -> int: ...

    def clock_record(self, clock: ReserveClock, now: MonoMs) -> dict[str, Any]:
        """The clock as the table's row stores it (with its running turn's start on the wall clock)."""


def _consume(future: asyncio.Future[None]) -> None:
    """Nobody waits for the table's own unseating: its failure is logged by the actor, not by asyncio."""
    if not future.cancelled():
        future.exception()


def _stays(_actor: TableActor) -> None:
    """An idle table stays loaded (an actor no registry holds)."""


def _nobody_told(_actor: TableActor) -> None:
    """No list shows the table (an actor no registry holds)."""


class TableActor:
    def __init__(
        self,
        store: StepStore,
        table_id: int,
        seats: int,
        conventions: Conventions,
        *,
        first_dealer: int,
        now: Callable[[], MonoMs] = mono_ms,
        robot: OffLoopRobot | None = None,
        queue_limit: int = 1024,
        on_idle: Callable[[TableActor], None] = _stays,
        on_listing: Callable[[TableActor], None] = _nobody_told,
        shuffle: Callable[[], Shuffle] = _shuffle,
        seat_grace_s: float | None = None,
        wall: Callable[[], WallMs] = wall_ms,
    ) -> None:
        """``robot``: runs a step that needs the solver robot (None: such a step fails as the table's own
        fault, which ends a game it was driving); ``on_idle``: called
        when the game is over and nobody watches any more (the registry unloads the table);
        ``on_listing``: called once a change that the room's list of tables shows is stored and adopted:
        the game's status (its end, an adjournment and its end), a seat's holder (a player gone for the
        grace, a fourth joined, a substitute; the lists and standings that the process shares among their
        viewers are read anew);
        ``seat_grace_s``: how long a player may be gone (no socket to the table) from a table that waits
        for players before his seat is freed (None: never)."""
        self.store = store
        self.table_id = table_id
        self.seats = seats
        self.conventions = conventions
        self.first_dealer = first_dealer
        self._now = now
        self._robot = robot
        self._queue_limit = queue_limit
        self._on_idle = on_idle
        self._on_listing = on_listing
        self._shuffle = shuffle
        self._wall = wall  # the wall clock: only an adjournment's start and limit (RULES §7.7) read it
        self._adjourn_timer: asyncio.TimerHandle | None = None
        self.version = 0
        self.seating = Seating.empty(seats)
        self.game: Game | None = None
        self.next_action_seq = 1
        self.connections: set[Connection] = set()
        self.queue: Mailbox[Command] = Mailbox()
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0  # the deadline (monotonic ms) `_timer` was armed for
        # The version an Expire waits in the queue for: commands ahead of it re-arm the timer, which
        # would queue another for the same version after each of them.
        self._expire_queued: int | None = None
        self._failures = 0  # failed commits in a row (the retry timer backs off with them)
        # Why the server holds the clocks frozen now ("storage", "reconnect"; module docstring), and whether
        # the clock in memory was frozen by such a hold (not by the game itself).
        self._holds: set[str] = set()
        self._paused = False
        # After a restart or a takeover: until when a seat to move that is not connected is held (§8.6).
        self._grace_until: MonoMs | None = None
        self._grace: asyncio.TimerHandle | None = None
        # When a viewer was last sent the clocks: a freeze never gives back time a player saw spent.
        self._shown_at = MonoMs(0)
        self._quiescing = False
        # A commit failed without a definite "not stored": the database may hold it (the reply was lost).
        # The table rereads itself from the log before its next change.
        self._unsure = False
        self._retry: asyncio.TimerHandle | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._views = ViewCache()
        self._seat_grace_s = seat_grace_s
        self._absent: dict[int, asyncio.TimerHandle] = {}  # a gone player's seat, freed when it fires

    @property
    def status(self) -> str:
        return (TableStatus.WAITING if self.game is None else self.game.status).value

    # ---- lifecycle -------------------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table-{self.table_id}")
        self.watch_seats()

    async def stop(self) -> None:
        self._forget_absent()
        for handle in (self._timer, self._retry, self._adjourn_timer, self._grace):
            if handle is not None:
                handle.cancel()
        task = self._task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            # `wait` lets our own cancellation through, unlike awaiting the task under a blanket suppress.
            await asyncio.wait({task})
        for conn in list(self.connections):
            conn.close()
        while not self.queue.empty():
            fail(
                self.queue.get_nowait(),
                SeatError(ErrorCode.TABLE_CLOSED, "the table was unloaded; try again"),
            )

    async def quiesce(self, timeout: float) -> None:
        """A graceful stop, before the sockets close: the command in progress ends — stored, acknowledged
        and published — and no further one starts (they wait in the queue for `stop`)."""
        self._quiescing = True
        task = self._task
        if task is None or task.done():
            return
        self.queue.put_nowait(Retry())  # wakes a table waiting for its next command
        await asyncio.wait({task}, timeout=timeout)

    def submit(self, command: Command) -> None:
        """Queue a command. Players', spectators' and REST callers' commands are refused with
        ``table_busy`` beyond ``queue_limit`` waiting (the table's timers, connections and
        disconnections always get in: there are at most a few of them per connection)."""
        if isinstance(command, _SHEDDABLE) and self.queue.qsize() >= self._queue_limit:
            _shed(command)
            return
        if isinstance(command, Act):
            # §8.6: the action counts when received; its wait in the queue is charged to nobody.
            command.received_ms = self._now()
        self.queue.put_nowait(command)

    def await_reconnect(self, grace_ms: int) -> None:
        """A table resumed after a restart or a takeover, before it starts: its running clock (frozen when
        read back) runs again when the seat to move connects or after ``grace_ms``, whichever is first
        (RULES §8.6 [ours]); any seat to move during the grace that is not connected is held the same."""
        self._grace_until = MonoMs(self._now() + grace_ms)
        game = self.game
        if game is not None and not game.is_over and game.clock.frozen and game.clock.resume is not None:
            self._holds.add("reconnect")
            self._paused = True

    def storage_down(self, since: MonoMs) -> None:
        """The server cannot store (its writer says so): every live table's clock freezes from ``since``,
        when the database last answered, whether or not a player acts (RULES §8.6). Called outside the
        table's queue: a command waiting on its commit meanwhile either fails (the clock stays frozen) or
        is stored (the database is back) and its step runs the clock on."""
        self._pause("storage", since)

    def storage_back(self) -> None:
        """The server stores again: a table held for it thaws (in its queue: the thawed clock is stored)."""
        if "storage" in self._holds:
            self._holds.discard("storage")
            self.submit(Retry())

    async def _run(self) -> None:
        if self._grace_until is not None:
            delay = max(0.0, (self._grace_until - self._now()) / 1000.0)
            self._grace = asyncio.get_running_loop().call_later(delay, self.submit, GraceOver())
        # A recovered table may owe server moves (the next shuffle, a robot's turn) from before the crash.
        await self._guarded(None)
        self._arm_timer()
        while True:
            if self.queue.empty():
                await self.queue.wait()
            command = self.queue.get_nowait()
            if self._quiescing:
                fail(command, SeatError(ErrorCode.TABLE_CLOSED, "the server is stopping; try again"))
                return
            if isinstance(command, Expire):  # out of the queue, whether or not its step runs or succeeds
                self._expire_queued = None
            await self._guarded(command)
            self._arm_timer()

    async def _guarded(self, command: Command | None) -> None:
        if isinstance(command, Retry):
            self._retry = None
        try:
            if self._unsure and not isinstance(command, _READ_ONLY):
                try:
                    await self._reconcile()
                except Exception:
                    # A timer's command lost here must not leave its timer marked as pending: the grace
                    # would hold the clock for good, the adjournment never end (the retry re-arms them).
                    if isinstance(command, GraceOver):
                        self._grace, self._grace_until = None, None
                        self._holds.discard("reconnect")
                    elif isinstance(command, AdjournDue):
                        self._adjourn_timer = None
                    if isinstance(command, Act):  # every action gets a reply: this one is not applied
                        away = "the table cannot reach its database; send it again"
                        command.conn.send(
                            ErrorMessage(code=ErrorCode.SERVER_ERROR, message=away, seq=command.seq)
                        )
                    raise
            if command is None:
                await self._recover_moves()
            else:
                await self._handle(command)
        except asyncio.CancelledError:
            if command is not None:
                fail(command, SeatError(ErrorCode.TABLE_CLOSED, "the table was unloaded; try again"))
            raise
        except (SeatError, TableRefused) as exc:
            if command is not None:  # refused: nothing changed; the caller gets the typed reason
                fail(command, SeatError(exc.code, exc.message))
        except Exception as exc:
            # A failure (the database unreachable, a bug) leaves the in-memory table as it was before the
            # step: nothing was published that was not committed, and the caller is told.
            if self._failures:  # the database is away: one line per command, the writer logged the cause
                log.warning("table %s: command failed, database unreachable: %s", self.table_id, exc)
            else:
                log.exception("table %s: command failed", self.table_id)
            if command is not None:
                fail(
                    command, SeatError(ErrorCode.SERVER_ERROR, f"the table could not store the change: {exc}")
                )

    # ---- dispatch --------------------------------------------------------------------------------------

    async def _handle(self, command: Command) -> None:
        match command:
            case Connect(conn):
                self.connections.add(conn)
                conn.seat = self.seating.seat_of(conn.user_id)
                self._send_snapshot(conn)
                if self._paused and self._holds:  # the newcomer is told why the clocks stand still
                    self._publish_clock("storage" if "storage" in self._holds else "reconnect", [conn])
                self._publish_presence()
                self._watch_absent(conn.user_id)
                if "reconnect" in self._holds and conn.seat is not None and conn.seat == self._held_seat():
                    if self._unsure:  # its retry rereads the table first, then thaws it
                        self._holds.discard("reconnect")
                    else:
                        await self._release("reconnect")  # the seat to move is back (§8.6)
            case Disconnect(conn):
                self.connections.discard(conn)
                self._publish_presence()
                self._watch_absent(conn.user_id)
                self._unload_if_idle()
            case Resync(conn):
                self._send_snapshot(conn)
            case Act(conn, seq, action, received_ms):
                await self._on_act(conn, seq, action, received_ms=received_ms)
            case Sit() as sit:
                await self._on_sit(sit)
            case Leave() as leave:
                await self._on_leave(leave)
            case Unseat() as unseat:
                await self._on_unseat(unseat)
            case Expire(version):
                if version == self.version:  # else stale: the table moved on since the timer was armed
                    metrics.timeout_fired(self._deadline(), self._now())  # admin: metrics hook
                    await self._run_step(ClockExpiry())
            case Retry():
                if self._failures or self._paused:
                    await self._retry_store()
            case GraceOver():
                self._grace, self._grace_until = None, None
                await self._release("reconnect")
            case Stop(reason, reply):
                await self._run_step(StopGame(reason))
                if not reply.done():
                    reply.set_result(None)
            case Award() as award:
                await self._on_award(award)
            case Life() as life:  # RULES §7.7: proposals, answers, "ready", operators' decisions
                await self._run_step(life.build(self.seating), life=life)
                if not life.reply.done():
                    life.reply.set_result(self._life_now())
            case AdjournDue():
                self._adjourn_timer = None
                await self._run_step(AdjournExpiry())
                self._unload_if_idle()  # settled with nobody watching: nothing keeps it in memory
            case Judge() as judge:  # admin: a judge's sanction or revocation (RULES §11)
                await self._run_step(judge.command, judge=judge)
                if not judge.reply.done():
                    judge.reply.set_result(self._sheet_now())
            case RoundEnd() as end:  # a tournament round's end (RULES §9.3)
                await self._run_step(end.command)
                if not end.reply.done():
                    end.reply.set_result(self._sheet_now())
                self._unload_if_idle()

    def _unload_if_idle(self) -> None:
        if not self.connections and self.queue.empty() and self.game is not None and self.game.is_over:
            self._on_idle(self)  # a finished table nobody watches leaves memory; it reloads on demand

    def unload(self) -> None:
        """Stop in the background (the registry has forgotten this actor)."""
        task = asyncio.get_running_loop().create_task(self.stop(), name=f"table-{self.table_id}-unload")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ---- seats -----------------------------------------------------------------------------------------

    def seat_infos(self) -> list[SeatInfo]:
        connected = {c.seat for c in self.connections if c.seat is not None and not c.closed.is_set()}
        return [
            SeatInfo(seat=s, user=name, connected=s in connected, robot=robot_level(name))
            for s, name in enumerate(self.seating.names)
        ]

    async def _on_sit(self, sit: Sit) -> None:
        seat, seating = self.seating.sit(sit.user_id, sit.name, sit.seat, started=self.game is not None)
        write = StepWrite(
            seats=({"table_id": self.table_id, "seat": seat, "user_id": sit.user_id, "last_client_seq": 0},)
        )
        now = self._now()
        # The last seat and the start of the game are stored together: no table is left full and waiting
        # by a crash between the two.
        started = await self._start_if_full(seating, now)
        stored = 0 if started is None else self._add_start(write, started, seating)
        await self._commit(write)
        self.next_action_seq += stored
        self.seating = seating
        for conn in self.connections:
            if conn.user_id == sit.user_id:
                conn.seat = seat
        if not sit.reply.done():
            sit.reply.set_result(seat)
        events = [Event("seated", {"seat": seat, "user": sit.name}, None)]
        if started is not None:
            self.game = started.game.with_server_time(now, self._now())
            events += started.events
            self._forget_absent()  # RULES §7.7: a started game's seats are fixed
        else:
            self._watch_absent(sit.user_id)
        self._publish(events, sheet_changed=started is not None)
        self._publish_presence()

    async def _on_leave(self, leave: Leave) -> None:
        await self._vacate(leave.user_id)
        if not leave.reply.done():
            leave.reply.set_result(None)

    async def _on_unseat(self, unseat: Unseat) -> None:
        """The operator's removal of a player from a table that has not started, or the table's own of a
        player gone for the grace (nothing when he came back, or the seat changed hands, meanwhile)."""
        if not 0 <= unseat.seat < self.seats:
            raise SeatError(ErrorCode.BAD_SEAT, f"seat must be 0..{self.seats - 1}")
        user_id = self.seating.users[unseat.seat]
        if user_id is None and not unseat.if_absent:
            raise SeatError(ErrorCode.NOT_SEATED, f"seat {unseat.seat} is free")
        # The table's own unseating is moot once the player came back, the seat changed hands or the game
        # started while it waited in the queue.
        moot = unseat.if_absent and (
            self.game is not None or user_id != unseat.user_id or self._connected(unseat.user_id or 0)
        )
        if user_id is not None and not moot:
            await self._vacate(user_id)
        if not unseat.reply.done():
            unseat.reply.set_result(None)

    async def _vacate(self, user_id: int) -> None:
        seat, seating = self.seating.leave(user_id, started=self.game is not None)
        await self._commit(StepWrite(seat_removed=seat))
        self.seating = seating
        self._watch_absent(user_id)
        for conn in self.connections:
            if conn.user_id == user_id:
                conn.seat = None
        self._publish([Event("left", {"seat": seat}, None)], sheet_changed=False)
        self._publish_presence()
        self._on_listing(self)

    # ---- players gone from a waiting table ---------------------------------------------------------

    def _connected(self, user_id: int) -> bool:
        return any(c.user_id == user_id and not c.closed.is_set() for c in self.connections)

    def watch_seats(self) -> None:
        """Start the grace of every seated player with no socket (a table just loaded or started)."""
        for user_id in self.seating.users:
            if user_id is not None:
                self._watch_absent(user_id)

    def _watch_absent(self, user_id: int) -> None:
        """A player seated at a table that waits for players, with no socket to it, loses his seat after
        the grace unless he comes back (issue 25: one account held every waiting seat); robots have no
        socket and keep theirs, and a started game's seats are fixed (RULES §7.7)."""
        timer = self._absent.pop(user_id, None)
        if timer is not None:
            timer.cancel()
        if self._seat_grace_s is None or self.game is not None or self._connected(user_id):
            return
        seat = self.seating.seat_of(user_id)
        if seat is None or robot_level(self.seating.names[seat]) is not None:
            return
        self._absent[user_id] = asyncio.get_running_loop().call_later(
            self._seat_grace_s, self._free_absent, seat, user_id
        )

    def _free_absent(self, seat: int, user_id: int) -> None:
        self._absent.pop(user_id, None)
        reply: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        reply.add_done_callback(_consume)
        self.submit(Unseat(seat, user_id, reply, if_absent=True))

    def _forget_absent(self) -> None:
        for timer in self._absent.values():
            timer.cancel()
        self._absent.clear()

    # ---- the game ----------------------------------------------------------------------------------

    async def _on_act(self, conn: Connection, seq: int, data: dict[str, Any], *, received_ms: int) -> None:
        """A seat's action; what the step sends the mover goes out with the reply, in one write."""
        try:
            seat = conn.seat

            def reject(code: ErrorCode, message: str) -> None:
                conn.send(ErrorMessage(code=code, message=message, seq=seq))

            try:
                if self.seating.numbered(seat, seq, data) == "retry":
                    # A retry of the command already applied: acknowledged again, applied once.
                    return conn.send(AckMessage(seq=seq, v=self.version, duplicate=True))
                assert seat is not None  # `numbered` refuses a spectator's action
                if self.game is None:
                    return reject(ErrorCode.NOT_STARTED, "the game has not started")
                action = player_action(data, seat)
                command = SeatAction(seat, action, received_ms=received_ms)  # §8.6: counts when received
                result = await self._run_step(command, client=(seat, seq), mover=conn)
            except (EngineError, TableRefused) as exc:
                return reject(exc.code, str(exc))
            except SeatError as exc:  # the step failed and the game was ended (or could not be)
                return reject(exc.code, exc.message)
            except Exception:
                # Not committed, so not applied: the client may send the same command again.
                reject(ErrorCode.SERVER_ERROR, "the action could not be stored; nothing changed")
                raise
            # The seat's numbering goes on from this action unless the step gave the seat a new numbering:
            # a join carried it into the seat's new place already, and a substitute whose seat this step
            # handed over (the holder's own action ended the deal) numbers his actions afresh (RULES §7.7).
            renumbered = result.joined is not None or any(
                change.seat == seat for change in result.substituted
            )
            if result.too_late:
                if not renumbered:
                    self.seating = self.seating.applied(seat, seq, None)
                reject(ErrorCode.NOT_YOUR_TURN, "too late: your time ran out before the action arrived")
            else:
                if not renumbered:
                    self.seating = self.seating.applied(seat, seq, action.to_json())
                conn.send(ack_text(seq, self.version))
                metrics.action_accepted()
        finally:
            conn.release()  # the step's frames to the mover (held by `_store`) and the reply

    async def _on_award(self, award: Award) -> None:
        if self.game is None:
            raise SeatError(ErrorCode.NOT_PLAYING, "no game was played at this table")
        # Awards of one deal go through its table only, one at a time: the next revision number is free.
        revision = await self.store.next_award_revision(award.deal_id)
        if award.entry:
            award.entry["revision"] = revision
        if award.audit:
            award.audit["detail"] = {**award.audit.get("detail", {}), "revision": revision}
        await self._run_step(
            AwardDeal(award.record, award.result, award.revise),  # admin: revisions
            adjudication=(award.deal_id, award),
        )
        game = self.game
        assert game is not None
        if not award.reply.done():
            award.reply.set_result(
                {
                    "table": self.table_id,
                    "status": game.status.value,
                    "settlement": None if game.outcome is None else game.outcome.settlement_json(),
                    "revision": revision,
                }
            )
        self._unload_if_idle()

    def _life_now(self) -> dict[str, Any]:
        """The reply to a §7.7 command: the table's status, proposal and adjournment as they now stand."""
        game = self.game
        assert game is not None
        return {"table": self.table_id, "status": game.status.value, "life": game.life_json(),
                "seats": list(self.seating.names)}  # fmt: skip

    def _sheet_now(self) -> dict[str, Any]:  # admin: the reply to a judge's entry
        game = self.game
        assert game is not None
        outcome = game.outcome
        return {"table": self.table_id, "status": game.status.value, "sheet": game.sheet.to_json(),
                "settlement": None if outcome is None else outcome.settlement_json()}  # fmt: skip

    async def _recover_moves(self) -> None:
        if self.game is None:
            # Every seat taken but no game (stored before seat and start were one transaction): start it.
            now = self._now()
            write = StepWrite()
            started = await self._start_if_full(self.seating, now)
            if started is not None:
                stored = self._add_start(write, started, self.seating)
                await self._commit(write)
                self.next_action_seq += stored
                self.game = started.game.with_server_time(now, self._now())
                self._forget_absent()  # RULES §7.7: a started game's seats are fixed
                self._publish(list(started.events), sheet_changed=True)
        elif not self.game.is_over:
            await self._run_step(Resume())

    def restore(self, stored: StoredTable) -> None:
        """Take the table as stored (on load, and after a commit whose outcome was unknown)."""
        self.version = stored.version
        self.seats = stored.seats  # RULES §7.7: four once a fourth has joined
        self.seating = stored.seating
        self.next_action_seq = stored.next_action_seq
        self.game = stored.game

    async def _reconcile(self) -> None:
        """After a commit whose outcome is unknown, learn it from the database before the next change: if
        it was stored after all (the reply was lost), take the table as stored and send every connection a
        snapshot; the seat on move is charged nothing for the time the table could not store (§8.1)."""
        try:
            version = await self.store.stored_version(self.table_id)
            moved = version is not None and version != self.version
            stored = await self.store.read(self.table_id) if moved else None
        except Exception:
            self._store_failed()  # still unreachable: clocks stay frozen, tried again on the timer
            raise
        if version is None or version == self.version:
            self._unsure = False
            return
        if stored is None:
            self._unsure = False
            raise SeatError(ErrorCode.TABLE_CLOSED, "the table is gone")
        log.warning("table %s: a commit reported failed was stored (v%s, not v%s); reloaded from the log",
                    self.table_id, stored.version, self.version)  # fmt: skip
        self.restore(stored)
        game = self.game
        holds = self._holds - {"storage"}  # the database just answered
        # A clock stored frozen stays so while a reconnect hold waits (the retry or the seat's return ends
        # it) and at an adjourned game (RULES §7.7); any other runs from now, not from the lost commit.
        if game is not None and not (game.clock.frozen and (holds or not game.playable)):
            self.game = replace(game, clock=game.clock.resume_after_crash(self._now(), 0))
        self._holds = holds
        self._paused = bool(holds) and game is not None and game.clock.frozen
        self._unsure = False
        for conn in list(self.connections):
            conn.seat = self.seating.seat_of(conn.user_id)
            self._send_snapshot(conn)

    async def _start_if_full(self, seating: Seating, now: int) -> Step | None:
        """The step that starts the game, when every seat of ``seating`` is taken."""
        if not seating.full:
            return None
        return await self._compute(
            lambda moves: start_game(self.seats, self.conventions, self.first_dealer, now_ms=now, moves=moves)
        )

    def _add_start(self, write: StepWrite, started: Step, seating: Seating) -> int:
        return write.add_step(
            self.table_id,
            None,
            started,
            first_seq=self.next_action_seq,
            users=seating.users,
            clock=self._clock_record(started.game),
        )

    def _clock_record(self, game: Game) -> dict[str, Any]:
        return self.store.clock_record(game.clock, self._now())

    async def _run_step(
        self,
        command: TableCommand,
        *,
        client: tuple[int, int] | None = None,
        adjudication: tuple[int, Award] | None = None,
        judge: Judge | None = None,
        life: Life | None = None,
        mover: Connection | None = None,
    ) -> Step:
        """Compute the step, store it, then adopt and publish it (TableRefused: nothing happened).
        ``mover``: the socket whose action it is, held from the publishing on (the caller releases it)."""
        stored_game = self.game
        if stored_game is None:
            raise TableRefused(ErrorCode.NOT_STARTED, "the game has not started")
        now = self._now()
        game = self._thawed(stored_game, now)
        try:
            result = await self._compute(lambda moves: step(game, command, now_ms=now, moves=moves))
        except (EngineError, TableRefused):
            raise
        except Exception as exc:
            if isinstance(exc, ScoringError) and isinstance(command, AwardDeal | JudgeSheet):
                # An award or a sanction the table's sheet cannot write (its conventions refuse it): nothing
                # changed, and the administrator is told why.
                code = (
                    ErrorCode.INVALID_SANCTION if isinstance(command, JudgeSheet) else ErrorCode.INVALID_AWARD
                )
                raise SeatError(code, str(exc)) from exc
            if not isinstance(command, _DRIVING):
                # An administrator's or operator's command failed: nothing changed, the game goes on.
                log.exception("table %s: %s failed", self.table_id, type(command).__name__)
                raise SeatError(ErrorCode.SERVER_FAULT, f"the table could not apply it: {exc}") from exc
            # A fault in the table's own step (a bug, not the database): the same step would fail again on
            # every later move, so the game ends here, typed, with the fault recorded (issue 13 §7).
            log.exception("table %s: the step failed; the game is ended", self.table_id)
            await self._run_abort(game, now, exc)
            raise SeatError(ErrorCode.SERVER_ERROR, "the table failed and its game was ended") from exc
        if not result.changed:
            return result
        await self._store(
            game, result, now, client=client, adjudication=adjudication, judge=judge, life=life, mover=mover
        )
        return result

    async def _run_abort(self, game: Game, now: int, exc: Exception) -> None:
        """End the game after a fault in its step (`app.table.abort`), stored and published like a step."""
        if game.is_over:
            return
        result = abort(game, f"{type(exc).__name__}: {exc}", now_ms=now)
        await self._store(game, result, now)

    async def _store(
        self,
        game: Game,
        result: Step,
        now: int,
        *,
        client: tuple[int, int] | None = None,
        adjudication: tuple[int, Award] | None = None,
        judge: Judge | None = None,
        life: Life | None = None,
        mover: Connection | None = None,
    ) -> None:
        """Store the step computed from ``game`` at ``now``, then adopt and publish it."""
        joined = result.joined
        seating = self.seating
        if joined is not None:
            # RULES §7.7: a fourth joined; the seat rows are written anew, the client's number with them.
            if client is not None:
                seating = seating.applied(client[0], client[1], None)
            new = joined.newcomer
            seating = seating.joined(joined.moved, joined.seat, new.user_id, new.name)
        for change in result.substituted:  # RULES §7.7: the substitute holds the seat from the next deal
            seating = seating.substituted(change.seat, change.substitute.user_id, change.substitute.name)
        # The hold asks whether the seat's holder after this step is connected: a substitute taking the
        # seat to move (or a seat renumbered by a join) must not be charged, nor let through, on another
        # user's socket.
        after = self._held_for_reconnect(result.game, MonoMs(now), seating)
        write = StepWrite()
        stored = write.add_step(
            self.table_id,
            game,
            result,
            first_seq=self.next_action_seq,
            users=self.seating.users,
            clock=self._clock_record(after),
            client_seq=None if client is None else client[1],
        )
        if joined is not None:
            write.reseated = [
                {"table_id": self.table_id, "seat": s, "user_id": u, "last_client_seq": seating.last_seq[s]}
                for s, u in enumerate(seating.users)
                if u is not None
            ]
        elif client is not None and all(change.seat != client[0] for change in result.substituted):
            write.seat_seq = client  # (a seat handed over starts afresh: its row's number is reset)
        if adjudication is not None:
            row_id, award = adjudication
            write.adjudications[row_id] = {
                "result": award.result.to_json(),
                "by": award.admin,
                "at": time.time(),
            }
            if award.entry:
                outcome = result.game.outcome
                settlement = None if outcome is None else outcome.settlement_json()
                write.award_rows += ({**award.entry, "settlement": settlement},)
            if award.audit:
                write.audit_rows += (award.audit,)
        if judge is not None:  # admin: the sanction's row and audit line in the sheet's own commit
            if judge.sanction is not None:
                line = result.game.sheet.history[-1].to_json()
                write.sanction_rows += ({**judge.sanction, "line": line},)
            if judge.revoked is not None:
                write.sanction_revocations[judge.revoked[0]] = judge.revoked[1]
            if judge.audit is not None:
                write.audit_rows += (judge.audit,)
        if life is not None and life.audit is not None:  # an operator's decision, audited in its commit
            write.audit_rows += (life.audit,)
        await self._commit(write)
        if mover is not None:
            # No await from here to the caller's ack: what the mover is sent meanwhile goes in one write.
            mover.hold()
        self.next_action_seq += stored
        if after is result.game:
            self._holds.discard("reconnect")
            self._paused = False
        else:
            self._holds.add("reconnect")
            self._paused = True
        self.game = after.with_server_time(now, self._now())
        listed = result.game.status is not game.status or joined is not None or bool(result.substituted)
        if joined is not None:
            self._adopt_join(game, result, seating)
            self._on_listing(self)
            return
        moved = {u for c in result.substituted for u in (c.holder.user_id, c.substitute.user_id)}
        self.seating = seating
        for conn in self.connections:
            if conn.user_id in moved:
                conn.seat = self.seating.seat_of(conn.user_id)
        self._publish(list(result.events), sheet_changed=result.game.sheet is not game.sheet)
        if moved:
            self._publish_presence()
            for conn in self.connections:  # their seat, and so their view, changed
                if conn.user_id in moved:
                    self._send_snapshot(conn)
        if listed:
            self._on_listing(self)

    def _adopt_join(self, game: Game, result: Step, seating: Seating) -> None:
        """RULES §7.7: the table seats four from now on. Every viewer's seat number may have moved, so each
        gets the step's update from where he now sits, less the private events that came before the join
        (they name the old seats; the deal they belong to is over and public), then a snapshot."""
        joined = result.joined
        assert joined is not None
        self.seats = len(seating.users)
        self.seating = seating
        for conn in self.connections:
            conn.seat = seating.seat_of(conn.user_id)
        events = [e for i, e in enumerate(result.events) if i >= joined.events_before or e.visible_to is None]
        self._publish(events, sheet_changed=result.game.sheet is not game.sheet)
        self._publish_presence()
        for conn in list(self.connections):
            self._send_snapshot(conn)

    async def _compute(self, work: Callable[[ServerMoves], Step]) -> Step:
        """Run a step on the loop; if it needs the solver robot, run it again off the loop with the robot."""
        wall = self._wall()
        try:
            return work(ServerMoves(self._shuffle, wall_ms=wall))
        except RobotRequired:
            if self._robot is None:
                raise
            return await self._robot.run(lambda robot: work(ServerMoves(self._shuffle, robot, wall)))

    # ---- storing -----------------------------------------------------------------------------------

    async def _commit(self, write: StepWrite, *, bump: bool = True) -> None:
        """Store one step with the table's next version (its batch committed); nothing is published before
        this returns."""
        version = self.version + 1 if bump else None
        started = time.perf_counter()
        try:
            await self.store.commit(self.table_id, version, write)
        except IntegrityError as exc:
            # The database refused the rows (a key taken meanwhile): definitely not stored, and the database
            # is up, so the clocks run on.
            raise SeatError(
                ErrorCode.CONFLICT, "the change conflicts with one stored meanwhile; try again"
            ) from exc
        except Exception as exc:
            self._unsure = self._unsure or not isinstance(exc, WriteRefused)
            self._store_failed()
            raise
        finally:
            metrics.commit_took(time.perf_counter() - started)  # admin: metrics hook
        if version is not None:
            self.version = version
        self._failures = 0
        self._holds.discard("storage")
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None

    def _thawed(self, game: Game, now: MonoMs) -> Game:
        """The game to step from: a clock the server holds runs again from now (a step the table stores
        ends the hold; one refused leaves the table held as it was)."""
        if self._paused and game.clock.frozen and game.playable:  # an adjourned game's clocks stay frozen
            return replace(game, clock=game.clock.thaw(now))
        return game

    def _held_seat(self) -> int | None:
        game = self.game
        return game.clock.resume if self._paused and game is not None and game.clock.frozen else None

    def _seat_connected(self, seat: int, seating: Seating) -> bool:
        holder = seating.users[seat]
        return holder is not None and any(
            c.user_id == holder and not c.closed.is_set() for c in self.connections
        )

    def _held_for_reconnect(self, game: Game, now: MonoMs, seating: Seating) -> Game:
        """``game`` with its clock held when, within the grace after a restart or a takeover, the holder
        of its seat to move in ``seating`` (the seats as this step leaves them) is not connected (RULES
        §8.6 [ours]: the running clock resumes when that seat is back)."""
        clock = game.clock
        if (
            self._grace_until is None
            or now >= self._grace_until
            or game.is_over
            or clock.frozen
            or clock.running is None
            or self._seat_connected(clock.running, seating)
        ):
            return game
        return replace(game, clock=clock.freeze(now))

    def _pause(self, reason: str, at: MonoMs) -> None:
        """Hold the clocks for ``reason``: a live table's running seat is charged up to ``at`` and no
        further until every hold is over; the viewers are told (§8.6)."""
        new = reason not in self._holds
        self._holds.add(reason)
        game = self.game
        if game is None or game.is_over:
            return
        if not game.clock.frozen:
            now = self._now()
            # RULES §8.6: frozen from when the database last answered — or from the last clocks a viewer
            # was sent, if later: the time left a player saw never grows back.
            at = MonoMs(min(max(at, self._shown_at), now))
            self.game = replace(game, clock=game.clock.freeze(at))
            self._paused = True
            self._arm_timer()  # no deadline while frozen: the timer is cancelled
        elif not (new and self._paused):
            return
        self._publish_clock(reason)

    async def _release(self, reason: str) -> None:
        """One hold is over; with none left, the clocks run again from now (stored first)."""
        self._holds.discard(reason)
        if not self._holds and self._paused:
            await self._retry_store()

    def _store_failed(self) -> None:
        """No clock runs while the table cannot store (its seats are not charged for the outage), and the
        change is tried again on a timer, backing off, in case no player acts meanwhile."""
        self._failures += 1
        # From when the database was first seen away (a failed heartbeat, another table's batch), so an
        # idle seat is not charged the outage before its own table first tried to store.
        at = self._now()
        failing_since = self.store.failing_since
        if failing_since is not None:
            at = min(at, failing_since)
        self._pause("storage", at)
        if self._retry is None:
            delay = min(5.0, 0.25 * 2 ** min(self._failures, 5))
            self._retry = asyncio.get_running_loop().call_later(delay, self.submit, Retry())

    async def _retry_store(self) -> None:
        """Make the server's moves the table owes, or, owing none and held for nothing else, store its
        thawed clocks and tell the viewers they run again."""
        game = self.game
        if game is None or game.is_over:
            self._failures = 0
            self._holds.clear()
            self._paused = False
            return
        result = await self._run_step(Resume())
        if result.changed or not self._paused:
            return
        game = self.game
        assert game is not None
        if self._holds - {"storage"}:
            # Stored (the database answers), but still held for another reason: the clock stays frozen.
            await self._commit(StepWrite(table={"clock": self._clock_record(game)}), bump=False)
            self._holds.discard("storage")
            return
        now = self._now()
        thawed = self._thawed(game, now)
        await self._commit(StepWrite(table={"clock": self._clock_record(thawed)}), bump=False)
        # §8.1: the seat's time runs from when the table could store again, not from the attempt.
        self.game = thawed.with_server_time(now, self._now())
        self._holds.clear()
        self._paused = False
        self._publish_clock(None)

    # ---- publishing ------------------------------------------------------------------------------------

    def _publish(self, events: list[Event], *, sheet_changed: bool) -> None:
        self._shown_at = self._now()
        publish_update(
            self.connections,
            table_id=self.table_id,
            version=self.version,
            status=self.status,
            game=self.game,
            events=events,
            sheet_changed=sheet_changed,
            now_ms=self._now(),
            actions=self.next_action_seq - 1,
            cache=self._views,
        )

    def _publish_clock(self, reason: str | None, to: Iterable[Connection] | None = None) -> None:
        publish_clock(
            self.connections if to is None else to, self.table_id, self.version, self.game, self._now(),
            paused=reason is not None, reason=reason,
        )  # fmt: skip

    def _publish_presence(self) -> None:
        publish_presence(self.connections, self.table_id, self.seat_infos())

    def _send_snapshot(self, conn: Connection) -> None:
        self._shown_at = self._now()
        seat = conn.seat
        send_snapshot(
            conn,
            table_id=self.table_id,
            version=self.version,
            status=self.status,
            seats=self.seat_infos(),
            game=self.game,
            last_seq=0 if seat is None else self.seating.last_seq[seat],
            now_ms=self._now(),
            actions=self.next_action_seq - 1,
            cache=self._views,
        )

    # ---- the clock timer -------------------------------------------------------------------------------

    def _deadline(self) -> int | None:
        """When the seat on move runs out of time (monotonic ms); None with no clock running."""
        game = self.game
        return None if game is None or game.is_over else game.clock.expires_at()

    def _arm_adjourn_timer(self) -> None:
        """RULES §7.7: an adjourned table's one timer, for the end of its `adjourn_limit` (on the wall
        clock, so a restart re-arms it for the same instant)."""
        game = self.game
        adjourned = None if game is None else game.adjourned
        if adjourned is None or game is None:
            if self._adjourn_timer is not None:
                self._adjourn_timer.cancel()
                self._adjourn_timer = None
            return
        if self._adjourn_timer is not None:
            return
        due = adjourn_deadline_wall_ms(adjourned, game.state.conventions.adjourn_limit)
        delay = max(0.0, (due - self._wall()) / 1000.0)
        if self._failures:  # its step could not be stored: tried again at the retry's pace, not at once
            delay = max(delay, min(5.0, 0.25 * 2 ** min(self._failures, 5)))
        self._adjourn_timer = asyncio.get_running_loop().call_later(delay + 0.001, self.submit, AdjournDue())

    def _arm_timer(self) -> None:
        """The table's one clock timer, after every command. Most steps move the deadline later: a timer
        that fires no later than the new deadline is kept, and when it fires early it is armed again for
        the deadline then current. (A new handle per step left thousands of cancelled handles in the
        loop's heap until their old deadlines, and the cycle collector scanned them all, loop stopped.)"""
        self._arm_adjourn_timer()
        due = self._deadline()
        if self._timer is not None and (due is None or self._timer_at > due):
            self._timer.cancel()
            self._timer = None
        if due is None or self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, (due - self._now()) / 1000.0)
        self._timer_at = due
        # 1 ms on top: the loop may run a handle a clock tick early, and the deadline is in whole ms.
        self._timer = loop.call_at(loop.time() + delay + 0.001, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        due = self._deadline()
        if due is None:
            return
        if self._now() < due:  # the deadline moved later since this timer was armed
            self._arm_timer()
            return
        if self._expire_queued == self.version:
            return
        self._expire_queued = self.version
        self.submit(Expire(self.version))
