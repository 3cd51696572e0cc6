"""The clock as a table row stores it, and what a crash may charge (RULES §8.1).

Each step stores its turn's start on the wall clock (`clock_record`) with the process that started it;
after a crash the running seat is charged from that start up to the writing process's last heartbeat
(`charge_after_crash`), never for the downtime.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from app.clock import ReserveClock, thought_before_crash
from app.server.timebase import MonoMs, WallMs


@dataclass(frozen=True, slots=True)
class Boot:
    """This server process: its id names its heartbeat row and the turns it started."""

    id: str = field(default_factory=lambda: secrets.token_hex(8))


def clock_record(
    clock: ReserveClock,
    boot: Boot,
    now_mono: MonoMs,
    now_wall: WallMs,
    *,
    resumed_ms: WallMs | None = None,
    charged_ms: int = 0,
) -> dict[str, Any]:
    """The clock as stored on the table's row: its JSON plus, while a seat runs, the turn's start on the
    wall clock and the process that started it (whose last heartbeat bounds the charge after a crash).
    A clock resumed after a restart also records when (``resumed_ms``, wall) and what the crash charged
    its running seat (``charged_ms``), so that what a restart cost a player can be read back."""
    data = clock.to_json()
    wall: dict[str, Any] = {"boot": boot.id}
    if clock.running is not None and clock.since is not None:
        # The turn's start on the wall clock, which survives the process: as long before ``now_wall``.
        wall["since_ms"] = WallMs(now_wall - (now_mono - clock.since))
    if resumed_ms is not None:  # a clock held after a restart (frozen: no turn start) says so too
        wall.update(resumed_ms=resumed_ms, charged_ms=charged_ms)
    if len(wall) > 1:
        data["wall"] = wall
    return data


def charge_after_crash(stored: dict[str, Any], heartbeats: dict[str, WallMs]) -> int:
    """What the running seat of a clock stored as ``stored`` is charged after a crash (RULES §8.1,
    `app.clock.thought_before_crash`): its turn's start and the writing process's last heartbeat."""
    wall = stored.get("wall")
    if not isinstance(wall, dict):
        return 0
    since = wall.get("since_ms")
    if not isinstance(since, int):
        return 0
    return thought_before_crash(since, heartbeats.get(str(wall.get("boot"))))
