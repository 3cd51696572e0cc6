"""A small, explicit lag allowance (in the spirit of lichess's lag quota).

The server measures lag itself (e.g. the round-trip of its own WebSocket ping frames, or the time an action
spent queued before the table task processed it) and passes that figure in. Nothing a client reports about
time is ever used: a client can at most make the server *measure* a slow network, and whatever it gains is
bounded twice — per action by ``per_action_cap_ms`` and in total by a quota that refills slowly.

Numbers of the default policy, chosen for a game whose actions are seconds apart:

- each action may be credited back at most 500 ms of measured lag;
- the quota starts at 2000 ms, refills by 100 ms per action the seat makes, and never exceeds 2000 ms;
- when a seat's time runs out, the server waits ``min(per_action_cap_ms, quota)`` more before it flags the
  seat, so an action already in flight is not lost (that waiting is the same allowance, not extra time:
  an action arriving then is charged in full minus its credited lag, and flags the seat if that still
  exceeds the time left).

A player on a perfect connection therefore gets nothing; a player on a bad one gets back at most 2 s at
once and 100 ms per action in the long run — about 3 s over a 30-action deal, against 120 s of deal time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class LagPolicy:
    """Bounds of the lag allowance, in milliseconds. `LagPolicy.none()` disables it."""

    per_action_cap_ms: int = 500
    quota_initial_ms: int = 2000
    quota_gain_ms: int = 100
    quota_max_ms: int = 2000

    def __post_init__(self) -> None:
        for name in ("per_action_cap_ms", "quota_initial_ms", "quota_gain_ms", "quota_max_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"LagPolicy.{name} must not be negative")
        if self.quota_initial_ms > self.quota_max_ms:
            raise ValueError("LagPolicy.quota_initial_ms must not exceed quota_max_ms")

    @staticmethod
    def none() -> LagPolicy:
        return LagPolicy(0, 0, 0, 0)

    def credit(self, measured_lag_ms: int, quota_ms: int, elapsed_ms: int) -> int:
        """Milliseconds of an action's elapsed time forgiven as lag: bounded by cap, quota and elapsed."""
        return max(0, min(measured_lag_ms, self.per_action_cap_ms, quota_ms, elapsed_ms))

    def quota_after(self, quota_ms: int, credited_ms: int) -> int:
        """The seat's quota after one action that was credited ``credited_ms``."""
        return min(self.quota_max_ms, quota_ms - credited_ms + self.quota_gain_ms)

    def grace(self, quota_ms: int) -> int:
        """How long past a seat's exhaustion the server waits for an action already in flight."""
        return max(0, min(self.per_action_cap_ms, quota_ms))

    def to_json(self) -> dict[str, Any]:
        return {
            "cap": self.per_action_cap_ms,
            "initial": self.quota_initial_ms,
            "gain": self.quota_gain_ms,
            "max": self.quota_max_ms,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> LagPolicy:
        return LagPolicy(int(data["cap"]), int(data["initial"]), int(data["gain"]), int(data["max"]))
