"""The table actor: one asyncio task owns a table (STYLE: lichess ``RoundAsyncActor``).

Every command (a player's action, a seat change, a clock expiry, a resync) goes through the actor's queue
and is handled to the end before the next one, so a table has exactly one writer. An accepted action is
applied to the engine's immutable state, committed to the database, and only then acknowledged and
published: each connection gets the step's events it may see and its own view (RULES.md §12), under a
table-wide version number that grows by one per step.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import update

from app.autoplay.finish import close_after_timeout
from app.autoplay.record import InterruptedDeal as InterruptedRecord
from app.clock import ClockSettings, ReserveClock
from app.db.models import ActionRecord, DealRecord, GameTable, InterruptedDeal, TableSeat
from app.engine import (
    Action,
    EngineError,
    Event,
    Interrupt,
    Phase,
    Shuffle,
    TableState,
    action_from_json,
    apply,
    current_actor,
    legal_actions,
    new_table,
    shuffle_action,
    view,
)
from app.engine.conventions import Conventions
from app.engine.scoring import ScoreSheet
from app.engine.scoring.settlement import Settlement, settle
from app.protocol.messages import (
    AckMessage,
    ErrorMessage,
    EventFrame,
    GameOutcome,
    PresenceMessage,
    SeatInfo,
    SnapshotMessage,
    UpdateMessage,
)
from app.server.connection import Connection
from app.server.context import ServerContext
from app.server.robot import run_timeout

log = logging.getLogger(__name__)

_SYSTEM_RANDOM = secrets.SystemRandom()  # RULES §1.3: shuffling uses a cryptographic RNG


def mono_ms() -> int:
    return time.monotonic_ns() // 1_000_000


class SeatError(Exception):
    """A sit/leave request the table refuses; ``code`` maps to an HTTP status in one place."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# ---- commands ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Connect:
    conn: Connection


@dataclass(slots=True)
class Disconnect:
    conn: Connection


@dataclass(slots=True)
class Sit:
    user_id: int
    name: str
    seat: int | None
    reply: asyncio.Future[int]


@dataclass(slots=True)
class Leave:
    user_id: int
    reply: asyncio.Future[None]


@dataclass(slots=True)
class Act:
    conn: Connection
    seq: int
    action: dict[str, Any]
    # When the server took the frame off the socket: the wait in the table's queue is lag the server
    # measured itself, credited by the clock's lag allowance (client-reported time is never used).
    received_ms: int = field(default_factory=mono_ms)


@dataclass(slots=True)
class Resync:
    conn: Connection


@dataclass(slots=True)
class Expire:
    version: int


@dataclass(slots=True)
class Checkpoint:
    pass


@dataclass(slots=True)
class Stop:
    reason: str
    reply: asyncio.Future[None]


Command = Connect | Disconnect | Sit | Leave | Act | Resync | Expire | Checkpoint | Stop


# ---- the actor -----------------------------------------------------------------------------------------


@dataclass(slots=True)
class Game:
    """A started pulya: the engine state, the clocks and the score sheet."""

    state: TableState
    clock: ReserveClock
    sheet: ScoreSheet


@dataclass(slots=True)
class _Step:
    """What one step writes: action rows plus table fields, committed in one transaction."""

    actions: list[ActionRecord] = field(default_factory=list)
    deals: list[DealRecord] = field(default_factory=list)
    interrupted: list[InterruptedDeal] = field(default_factory=list)
    table: dict[str, Any] = field(default_factory=dict)
    seat_rows: list[TableSeat] = field(default_factory=list)
    seat_removed: int | None = None
    seat_seq: tuple[int, int] | None = None  # (seat, client seq) applied by this step


class TableActor:
    def __init__(
        self,
        ctx: ServerContext,
        table_id: int,
        seats: int,
        conventions: Conventions,
        *,
        first_dealer: int,
        status: str = "waiting",
        version: int = 0,
    ) -> None:
        self.ctx = ctx
        self.table_id = table_id
        self.seats = seats
        self.conventions = conventions
        self.first_dealer = first_dealer
        self.status = status
        self.version = version
        self.seat_users: list[int | None] = [None] * seats
        self.seat_names: list[str | None] = [None] * seats
        self.last_seq: list[int] = [0] * seats
        self.game: Game | None = None
        self.next_action_seq = 1
        self.outcome: GameOutcome | None = None
        self.connections: set[Connection] = set()
        self.queue: asyncio.Queue[Command] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self._sheet_sent: ScoreSheet | None = None

    # ---- lifecycle -------------------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table-{self.table_id}")
        self._checkpointer = asyncio.create_task(self._checkpoint_loop(), name=f"table-{self.table_id}-ckpt")

    async def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        for task in (self._task, self._checkpointer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        for conn in list(self.connections):
            conn.close()

    def submit(self, command: Command) -> None:
        self.queue.put_nowait(command)

    async def _run(self) -> None:
        # A recovered table may owe server actions (the next shuffle, a robot move) from before the crash.
        await self._guarded(self._drive())
        self._arm_timer()
        while True:
            command = await self.queue.get()
            await self._guarded(self._handle(command))
            self._arm_timer()

    async def _guarded(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception:
            # A failure (the database unreachable, a bug) leaves the in-memory table as it was before the
            # step: nothing was published that was not committed.
            log.exception("table %s: command failed", self.table_id)

    async def _checkpoint_loop(self) -> None:
        interval = self.ctx.settings.clock_checkpoint_interval
        while True:
            await asyncio.sleep(interval)
            if self.game is not None and self.game.clock.running is not None and self.queue.empty():
                self.submit(Checkpoint())

    # ---- dispatch --------------------------------------------------------------------------------------

    async def _handle(self, command: Command) -> None:
        match command:
            case Connect(conn):
                self.connections.add(conn)
                conn.seat = self._seat_of(conn.user_id)
                self._send_snapshot(conn)
                self._publish_presence()
            case Disconnect(conn):
                self.connections.discard(conn)
                self._publish_presence()
                idle = not self.connections and self.queue.empty()
                if (
                    idle
                    and self.status not in ("waiting", "playing")
                    and self.ctx.tables.get(self.table_id) is self
                ):
                    # A finished table nobody watches leaves memory; it reloads on the next connection.
                    del self.ctx.tables[self.table_id]
                    asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(self.stop()))
            case Resync(conn):
                self._send_snapshot(conn)
            case Act(conn, seq, action, received_ms):
                await self._on_act(conn, seq, action, lag_ms=max(0, mono_ms() - received_ms))
            case Sit() as sit:
                await self._on_sit(sit)
            case Leave() as leave:
                await self._on_leave(leave)
            case Expire(version):
                await self._on_expire(version)
            case Checkpoint():
                await self._on_checkpoint()
            case Stop(reason, reply):
                await self._on_stop(reason, reply)

    # ---- seats -----------------------------------------------------------------------------------------

    def _seat_of(self, user_id: int) -> int | None:
        for seat, user in enumerate(self.seat_users):
            if user == user_id:
                return seat
        return None

    def seat_infos(self) -> list[SeatInfo]:
        connected = {c.seat for c in self.connections if c.seat is not None and not c.closed.is_set()}
        return [
            SeatInfo(seat=s, user=self.seat_names[s], connected=s in connected) for s in range(self.seats)
        ]

    async def _on_sit(self, sit: Sit) -> None:
        try:
            if self.status != "waiting":
                raise SeatError("game_started", "the game at this table has started; seats are fixed")
            if self._seat_of(sit.user_id) is not None:
                raise SeatError("already_seated", "you already sit at this table")
            free = [s for s in range(self.seats) if self.seat_users[s] is None]
            if sit.seat is None:
                if not free:
                    raise SeatError("table_full", "no free seat")
                seat = free[0]
            elif not 0 <= sit.seat < self.seats:
                raise SeatError("bad_seat", f"seat must be 0..{self.seats - 1}")
            elif sit.seat not in free:
                raise SeatError("seat_taken", f"seat {sit.seat} is taken")
            else:
                seat = sit.seat
        except SeatError as exc:
            if not sit.reply.done():
                sit.reply.set_exception(exc)
            return
        step = _Step(seat_rows=[TableSeat(table_id=self.table_id, seat=seat, user_id=sit.user_id)])
        await self._commit(step)
        self.seat_users[seat] = sit.user_id
        self.seat_names[seat] = sit.name
        self.last_seq[seat] = 0
        for conn in self.connections:
            if conn.user_id == sit.user_id:
                conn.seat = seat
        if not sit.reply.done():
            sit.reply.set_result(seat)
        self._publish([Event("seated", {"seat": seat, "user": sit.name}, None)])
        self._publish_presence()
        if all(u is not None for u in self.seat_users):
            await self._start_game()

    async def _on_leave(self, leave: Leave) -> None:
        seat = self._seat_of(leave.user_id)
        if seat is None or self.status != "waiting":
            exc = SeatError(
                "not_seated" if seat is None else "game_started",
                "you do not sit at this table"
                if seat is None
                else "the game has started: a seat is left only by the end of the pulya (RULES §7.7)",
            )
            if not leave.reply.done():
                leave.reply.set_exception(exc)
            return
        await self._commit(_Step(seat_removed=seat))
        self.seat_users[seat] = None
        self.seat_names[seat] = None
        for conn in self.connections:
            if conn.user_id == leave.user_id:
                conn.seat = None
        if not leave.reply.done():
            leave.reply.set_result(None)
        self._publish([Event("left", {"seat": seat}, None)])
        self._publish_presence()

    # ---- the game ----------------------------------------------------------------------------------

    async def _start_game(self) -> None:
        state = new_table(self.seats, self.conventions, self.first_dealer)
        clock = ReserveClock.new(self.seats, ClockSettings.from_conventions(self.conventions))
        self.game = Game(state, clock, ScoreSheet.new(self.seats, self.conventions))
        now = time.time()
        await self._commit(_Step(table={"status": "playing", "started_at": now}))
        self.status = "playing"
        self._publish([Event("game_started", {"first_dealer": self.first_dealer}, None)])
        await self._drive()

    async def _on_act(self, conn: Connection, seq: int, data: dict[str, Any], *, lag_ms: int = 0) -> None:
        seat = conn.seat

        def reject(code: str, message: str) -> None:
            conn.send(ErrorMessage(code=code, message=message, seq=seq))

        if seat is None:
            return reject("not_seated", "spectators cannot act")
        if seq == self.last_seq[seat]:
            # A retry of the command already applied: acknowledged again, applied once.
            return conn.send(AckMessage(seq=seq, v=self.version, duplicate=True))
        if seq < self.last_seq[seat]:
            return reject("stale_seq", f"seq {seq} is not above the last applied {self.last_seq[seat]}")
        if self.game is None:
            return reject("not_started", "the game has not started")
        if self.status != "playing":
            return reject("game_over", "the game has ended")
        data = dict(data)
        named = data.setdefault("seat", seat)
        if named != seat:
            return reject("not_your_seat", f"you sit in seat {seat}, not {named!r}")
        if data.get("type") in ("shuffle", "timeout", "interrupt"):
            return reject("malformed_action", f"{data.get('type')} is the server's action")
        try:
            action = action_from_json(data)
        except EngineError as exc:
            return reject(exc.code, str(exc))
        if self.game.clock.is_flagged(seat):
            return reject("not_your_turn", "your time ran out: the server plays for you this deal")
        try:
            applied = await self._apply(
                action, user_id=conn.user_id, client_seq=seq, seat=seat, lag_ms=lag_ms
            )
        except EngineError as exc:
            return reject(exc.code, str(exc))
        except Exception:
            # Not committed, so not applied: the client may send the same command again.
            reject("server_error", "the action could not be stored; nothing changed")
            raise
        if applied:
            conn.send(AckMessage(seq=seq, v=self.version))
        else:
            reject("not_your_turn", "too late: your time ran out before the action arrived")
        await self._drive()

    async def _apply(
        self,
        action: Action,
        *,
        user_id: int | None = None,
        client_seq: int | None = None,
        seat: int | None = None,
        lag_ms: int = 0,
    ) -> bool:
        """Apply, commit, then publish one action. False when the player's clock ran out first."""
        game = self.game
        assert game is not None
        new_state, events = apply(game.state, action)  # raises EngineError; nothing changed then
        now = mono_ms()
        clock = game.clock
        if seat is not None:
            stopped = clock.stop(now, lag_ms) if clock.running == seat else clock
            if stopped.is_flagged(seat):
                # The action arrived after the seat's time ran out: the timeout procedure runs instead.
                game.clock = stopped
                await self._timeout(seat)
                return False
            clock = stopped
        else:
            clock = clock.stop(now)
        if isinstance(action, Shuffle):
            clock = clock.new_deal()
        deal = new_state.deal
        if deal is not None and deal.contract is not None and deal.contract.is_misere:
            clock = clock.add_misere_bonus(now)  # RULES §8.1: misère adds the bonus to every deal time
        step = _Step()
        sheet = game.sheet
        ends_by_timeout = clock.settings.reserve_on and deal is not None and bool(deal.timed_out)
        if new_state.phase is Phase.DEAL_OVER and game.state.phase is not Phase.DEAL_OVER:
            result = new_state.last_result
            assert result is not None
            if not ends_by_timeout:  # else `close_after_timeout` writes it before the penalty (§8.5)
                sheet = sheet.apply(result)
            step.deals.append(
                DealRecord(
                    table_id=self.table_id,
                    deal_number=new_state.deal_number,
                    result=result.to_json(),
                    record=view(new_state, None),
                    at=time.time(),
                )
            )
        if new_state.phase is Phase.INTERRUPTED and game.state.phase is not Phase.INTERRUPTED:
            reason = new_state.interrupt_reason or "interrupted"
            step.interrupted.append(
                InterruptedDeal(
                    table_id=self.table_id,
                    deal_number=new_state.deal_number,
                    reason=reason[:255],
                    record=InterruptedRecord.from_state(new_state, reason, clock.to_json()).to_json(),
                    clock=clock.to_json(),
                    at=time.time(),
                )
            )
        next_seat = current_actor(new_state)
        if next_seat is not None and new_state.phase not in (Phase.DEAL_OVER, Phase.INTERRUPTED):
            clock = clock.start(next_seat, now)
        sheet_json = None if sheet is game.sheet else sheet.to_json()
        step.actions.append(
            ActionRecord(
                table_id=self.table_id,
                seq=self.next_action_seq,
                action=action.to_json(),
                user_id=user_id,
                client_seq=client_seq,
                by_server=user_id is None,
                at=time.time(),
                clock=clock.to_json(),
                # The sheet only changes when a deal ends: stored then, not with every card.
                sheet=sheet_json,
            )
        )
        step.table["clock"] = clock.to_json()
        if sheet_json is not None:
            step.table["sheet"] = sheet_json
        if seat is not None and client_seq is not None:
            step.seat_seq = (seat, client_seq)
        await self._commit(step)
        self.next_action_seq += 1
        if seat is not None and client_seq is not None:
            self.last_seq[seat] = client_seq
        game.state, game.clock, game.sheet = new_state, clock, sheet
        self._publish(events)
        return True

    async def _drive(self) -> None:
        """Make the server's own moves until the table waits for a player (or the game ends)."""
        while self.status == "playing" and self.game is not None:
            game = self.game
            state = game.state
            deal = state.deal
            if state.phase in (Phase.DEAL_OVER, Phase.INTERRUPTED):
                if game.clock.settings.reserve_on and deal is not None and deal.timed_out:
                    # RULES §8.3–§8.5: the deal with the timeout is over; penalty, then settlement.
                    close = close_after_timeout(game.sheet, state)
                    reason = "interrupted" if close.provisional else "timeout"
                    status = "awaiting_adjudication" if close.provisional else "finished"
                    await self._finish(reason, status, close.sheet, close.settlement)
                    return
                if state.phase is Phase.INTERRUPTED:
                    await self._finish("interrupted", "awaiting_adjudication", game.sheet, settle(game.sheet))
                    return
                if game.sheet.finished:
                    await self._finish("pool_complete", "finished", game.sheet, settle(game.sheet))
                    return
            if state.phase in (Phase.AWAITING_DEAL, Phase.DEAL_OVER):
                await self._apply(shuffle_action(_SYSTEM_RANDOM))
                continue
            seat = current_actor(state)
            if seat is None or not game.clock.is_flagged(seat):
                return
            await self._timeout(seat)

    async def _timeout(self, seat: int) -> None:
        """RULES §8.2–§8.4: act for a seat that ran out, through the timeout procedure (off the loop)."""
        game = self.game
        assert game is not None
        outcome = await run_timeout(
            self.ctx.solver_executor,
            game.state,
            seat,
            reserve_on=game.clock.settings.reserve_on,
            flagged=game.clock.flagged,
            clocks=game.clock.to_json(),
            time_budget=self.ctx.settings.solver_budget,
        )
        for action in outcome.actions:
            await self._apply(action)

    async def _on_expire(self, version: int) -> None:
        if version != self.version or self.game is None or self.status != "playing":
            return  # stale: the table moved on since the timer was armed
        running = self.game.clock.running
        if running is not None and self.game.clock.is_flagged(running):
            await self._drive()  # the procedure already acts for this seat
            return
        clock, seat = self.game.clock.expire(mono_ms())
        if seat is None:
            return
        self.game.clock = clock
        await self._timeout(seat)
        await self._drive()

    async def _on_checkpoint(self) -> None:
        if self.game is None or self.game.clock.running is None:
            return
        clock = self.game.clock.checkpoint(mono_ms())
        async with self.ctx.sessions() as session, session.begin():
            await session.execute(
                update(GameTable).where(GameTable.id == self.table_id).values(clock=clock.to_json())
            )
        self.game.clock = clock

    async def _on_stop(self, reason: str, reply: asyncio.Future[None]) -> None:
        """RULES §7.7: an operator's or an admin's decision ends the pulya early, settled as it stands."""
        if self.status != "playing" or self.game is None:
            if not reply.done():
                reply.set_exception(SeatError("not_playing", "no game is running at this table"))
            return
        if self.game.state.phase not in (Phase.AWAITING_DEAL, Phase.DEAL_OVER):
            await self._apply(Interrupt(reason[:200]))
        sheet = self.game.sheet
        await self._finish("interrupted", "finished", sheet, settle(sheet), note=reason)
        if not reply.done():
            reply.set_result(None)

    async def _finish(
        self, reason: str, status: str, sheet: ScoreSheet, settlement: Settlement, note: str | None = None
    ) -> None:
        game = self.game
        assert game is not None
        clock = game.clock.stop(mono_ms()) if game.clock.running is not None else game.clock
        summary = settlement_json(settlement)
        if note:
            summary["note"] = note
        outcome = GameOutcome(reason=reason, settlement=summary)
        await self._commit(
            _Step(
                table={
                    "status": status,
                    "finished_at": time.time(),
                    "finish_reason": reason,
                    "settlement": summary,
                    "clock": clock.to_json(),
                    "sheet": sheet.to_json(),
                }
            )
        )
        game.clock, game.sheet = clock, sheet
        self.status = status
        self.outcome = outcome
        self._publish([Event("game_over", outcome.model_dump(), None)])

    # ---- persistence -----------------------------------------------------------------------------------

    async def _commit(self, step: _Step) -> None:
        """Write the step and the new version in one transaction; nothing is published before this."""
        version = self.version + 1
        async with self.ctx.sessions() as session, session.begin():
            session.add_all(step.seat_rows)
            session.add_all(step.actions)
            session.add_all(step.deals)
            session.add_all(step.interrupted)
            if step.seat_removed is not None:
                row = await session.get(TableSeat, (self.table_id, step.seat_removed))
                if row is not None:
                    await session.delete(row)
            if step.seat_seq is not None:
                seat, seq = step.seat_seq
                await session.execute(
                    update(TableSeat)
                    .where(TableSeat.table_id == self.table_id, TableSeat.seat == seat)
                    .values(last_client_seq=seq)
                )
            await session.execute(
                update(GameTable).where(GameTable.id == self.table_id).values(version=version, **step.table)
            )
        self.version = version  # committed: the version the following publish announces

    # ---- publishing ------------------------------------------------------------------------------------

    def _publish(self, events: list[Event]) -> None:
        """Send one committed step (``self.version``) to every connection, filtered for its viewer.

        The score sheet (which grows with every deal) goes out only when it changed or the game is over.
        """
        sheet: dict[str, Any] | None = None
        if self.game is not None and (self.game.sheet is not self._sheet_sent or self.status != "playing"):
            sheet = self.game.sheet.to_json()
            self._sheet_sent = self.game.sheet
        for conn in list(self.connections):
            if conn.closed.is_set():
                continue
            seat = conn.seat
            visible = [
                EventFrame(kind=e.kind, data=e.data)
                for e in events
                if e.visible_to is None or (seat is not None and seat in e.visible_to)
            ]
            conn.send(
                UpdateMessage(
                    table=self.table_id,
                    v=self.version,
                    status=self.status,
                    events=visible,
                    view=self._view(seat),
                    clock=self._clock_json(),
                    legal=self._legal(seat),
                    sheet=sheet,
                    outcome=self.outcome,
                )
            )

    def _publish_presence(self) -> None:
        message = PresenceMessage(table=self.table_id, seats=self.seat_infos())
        for conn in list(self.connections):
            conn.send(message)

    def _send_snapshot(self, conn: Connection) -> None:
        seat = conn.seat
        conn.send(
            SnapshotMessage(
                table=self.table_id,
                v=self.version,
                status=self.status,
                seat=seat,
                seats=self.seat_infos(),
                view=self._view(seat),
                clock=self._clock_json(),
                legal=self._legal(seat),
                sheet=None if self.game is None else self.game.sheet.to_json(),
                outcome=self.outcome,
                last_seq=0 if seat is None else self.last_seq[seat],
            )
        )

    def _view(self, seat: int | None) -> dict[str, Any] | None:
        return None if self.game is None else view(self.game.state, seat)

    def _clock_json(self) -> dict[str, Any] | None:
        return None if self.game is None else self.game.clock.snapshot(mono_ms())

    def _legal(self, seat: int | None) -> list[dict[str, Any]]:
        game = self.game
        if game is None or seat is None or self.status != "playing":
            return []
        if current_actor(game.state) != seat or game.clock.is_flagged(seat):
            return []
        return [a.to_json() for a in legal_actions(game.state)]

    # ---- the clock timer -------------------------------------------------------------------------------

    def _arm_timer(self) -> None:
        """One ``call_at`` per turn; it carries the version, so a timer that outlived its turn is ignored."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        game = self.game
        if game is None or self.status != "playing":
            return
        deadline = game.clock.expires_at()
        if deadline is None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, (deadline - mono_ms()) / 1000.0)
        version = self.version
        self._timer = loop.call_at(loop.time() + delay + 0.005, lambda: self.submit(Expire(version)))


def settlement_json(settlement: Settlement) -> dict[str, Any]:
    """The settlement as JSON: ``result`` is the table's (variant 1 or exact fractions as strings)."""
    result = settlement.result
    return {
        "rounding": settlement.rounding,
        "result": [v if isinstance(v, int) else str(v) for v in result],
        "sum": str(sum(result)) if not all(isinstance(v, int) for v in result) else sum(result),
        "variant1": list(settlement.variant1),
        "variant2": list(settlement.variant2),
        "exact": [str(v) for v in settlement.exact],
        "money": [str(v) for v in settlement.money],
        "mountains": list(settlement.mountains),
    }
