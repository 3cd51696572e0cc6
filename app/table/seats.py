"""Who sits where, and what each seat's client last had applied: the table's seat rules as one value.

`Seating` decides; the server's table actor only carries its answers. Seats are taken only while the
table waits for players and left only then: once the game has started a seat is left only by the end of
the pulya (RULES §7.7). A client numbers its actions; an action under the seat's last applied number is
a retry (acknowledged again, applied once) if it is the same action, and refused if it is another.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from app.engine import Action, EngineError, action_from_json
from app.protocol.codes import ErrorCode
from app.table.errors import TableRefused


def _replaced(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


# What only the server may do: a player's action of these types is refused whatever it says.
SERVER_ACTIONS = frozenset({"shuffle", "timeout", "interrupt", "claim_verdict", "join"})


def refuse_foreign(seat: int, named: object, kind: object) -> None:
    """A seated player acts only for its own seat, and never as the server (the protocol's rule, not a
    clause of RULES.md); checked on the frame as sent, before it is parsed, and on the parsed action by
    the step."""
    if named != seat:
        raise TableRefused(ErrorCode.NOT_YOUR_SEAT, f"you sit in seat {seat}, not {named!r}")
    if kind in SERVER_ACTIONS:
        raise TableRefused(ErrorCode.MALFORMED_ACTION, f"{kind} is the server's action")


def player_action(data: dict[str, Any], seat: int) -> Action:
    """A seated player's frame as an action of its seat (the seat may be left out); refused, typed, when it
    names another seat or a server's action (before any other fault of the frame), or does not parse."""
    refuse_foreign(seat, data.get("seat", seat), data.get("type"))
    return action_from_json({"seat": seat, **data})


def normalised_action(data: dict[str, Any], seat: int) -> dict[str, Any] | None:
    """A client's action as the server stores it (None: not an action at all)."""
    try:
        return action_from_json({"seat": seat, **data}).to_json()
    except (EngineError, ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True, slots=True)
class Seating:
    """Each seat's user and name (None: free), the last client seq applied for it, and the action applied
    under that seq (None: not known, e.g. refused as too late)."""

    users: tuple[int | None, ...]
    names: tuple[str | None, ...]
    last_seq: tuple[int, ...]
    last_action: tuple[dict[str, Any] | None, ...]

    @staticmethod
    def empty(seats: int) -> Seating:
        return Seating((None,) * seats, (None,) * seats, (0,) * seats, (None,) * seats)

    @property
    def full(self) -> bool:
        return all(user is not None for user in self.users)

    def seat_of(self, user_id: int) -> int | None:
        for seat, user in enumerate(self.users):
            if user == user_id:
                return seat
        return None

    def sit(self, user_id: int, name: str, wanted: int | None, *, started: bool) -> tuple[int, Seating]:
        """The seat ``user_id`` takes (``wanted``, or the first free one) and the seating after it."""
        # The seat's holder first: a retried sit (its reply lost with a restart) is told it sits here,
        # whether or not the game started meanwhile (issue 26 §1.4).
        if self.seat_of(user_id) is not None:
            raise TableRefused(ErrorCode.ALREADY_SEATED, "you already sit at this table")
        if started:
            raise TableRefused(ErrorCode.GAME_STARTED, "the game at this table has started; seats are fixed")
        free = [s for s, user in enumerate(self.users) if user is None]
        if wanted is None:
            if not free:
                raise TableRefused(ErrorCode.TABLE_FULL, "no free seat")
            seat = free[0]
        elif not 0 <= wanted < len(self.users):
            raise TableRefused(ErrorCode.BAD_SEAT, f"seat must be 0..{len(self.users) - 1}")
        elif wanted not in free:
            raise TableRefused(ErrorCode.SEAT_TAKEN, f"seat {wanted} is taken")
        else:
            seat = wanted
        return seat, Seating(
            _replaced(self.users, seat, user_id),
            _replaced(self.names, seat, name),
            _replaced(self.last_seq, seat, 0),
            _replaced(self.last_action, seat, None),
        )

    def leave(self, user_id: int, *, started: bool) -> tuple[int, Seating]:
        """The seat ``user_id`` leaves and the seating after it (RULES §7.7: not once the game started)."""
        seat = self.seat_of(user_id)
        if seat is None:
            raise TableRefused(ErrorCode.NOT_SEATED, "you do not sit at this table")
        if started:
            raise TableRefused(
                ErrorCode.GAME_STARTED,
                "the game has started: a seat is left only by the end of the pulya (RULES §7.7)",
            )
        return seat, replace(
            self, users=_replaced(self.users, seat, None), names=_replaced(self.names, seat, None)
        )

    def substituted(self, seat: int, user_id: int, name: str) -> Seating:
        """RULES §7.7: ``user_id`` holds ``seat`` from now on (his client numbers its actions afresh)."""
        return Seating(
            _replaced(self.users, seat, user_id),
            _replaced(self.names, seat, name),
            _replaced(self.last_seq, seat, 0),
            _replaced(self.last_action, seat, None),
        )

    def joined(self, moved: tuple[int, ...], seat: int, user_id: int, name: str) -> Seating:
        """RULES §7.7: a fourth sits in ``seat``; old seat ``s`` is now ``moved[s]``, its client's numbering
        kept (the action last applied is forgotten where it named the old seat)."""
        size = len(moved) + 1
        users: list[int | None] = [None] * size
        names: list[str | None] = [None] * size
        last_seq = [0] * size
        last_action: list[dict[str, Any] | None] = [None] * size
        for old, new in enumerate(moved):
            users[new], names[new], last_seq[new] = self.users[old], self.names[old], self.last_seq[old]
            last_action[new] = self.last_action[old] if new == old else None
        users[seat], names[seat] = user_id, name
        return Seating(tuple(users), tuple(names), tuple(last_seq), tuple(last_action))

    def numbered(self, seat: int | None, seq: int, data: dict[str, Any]) -> Literal["new", "retry"]:
        """Whether a client's action numbered ``seq`` is new or a retry of the one last applied for its seat
        (refused: a spectator's action, a seq below the last, the last seq reused for another action)."""
        if seat is None:
            raise TableRefused(ErrorCode.NOT_SEATED, "spectators cannot act")
        last = self.last_seq[seat]
        if seq == last:
            applied = self.last_action[seat]
            if applied is not None and normalised_action(data, seat) != applied:
                raise TableRefused(
                    ErrorCode.SEQ_REUSED, f"seq {seq} was applied to another action; use a new seq"
                )
            return "retry"
        if seq < last:
            raise TableRefused(ErrorCode.STALE_SEQ, f"seq {seq} is not above the last applied {last}")
        return "new"

    def applied(self, seat: int, seq: int, action: dict[str, Any] | None) -> Seating:
        """The seating once ``seq`` was applied for ``seat`` (``action``: None when it was too late)."""
        # Built directly, not by `dataclasses.replace` (twice the cost): once for every move (issue 24).
        return Seating(
            self.users,
            self.names,
            _replaced(self.last_seq, seat, seq),
            _replaced(self.last_action, seat, action),
        )
