"""Strength levels: how many layouts a robot samples, how hard it solves each, and how much it errs.

The budget of a decision is counted in layouts and solver nodes, never in wall time, so a decision is the
same on any machine. `random` is today's bot (a uniformly random legal action), kept as the yardstick.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Level:
    name: str
    card_layouts: int  # layouts solved per card decision
    bid_layouts: int  # layouts per auction / contract / whist judgement (0: static evaluation only)
    discard_candidates: int  # discards tested on layouts by a declarer
    node_budget: int  # solver nodes per layout; a layout over budget is left out of the average
    noise: float  # chance of a random legal card / of a bid misjudged by one trick
    random: bool = False

    def scaled(self, factor: float) -> Level:
        """The same level with its layouts scaled by ``factor`` (the server lowers a budget under a clock)."""
        return Level(
            self.name,
            max(1, round(self.card_layouts * factor)),
            max(0, round(self.bid_layouts * factor)),
            max(1, round(self.discard_candidates * factor)),
            self.node_budget,
            self.noise,
            self.random,
        )


LEVELS: Final[dict[str, Level]] = {
    "random": Level("random", 0, 0, 0, 0, 1.0, random=True),
    "easy": Level("easy", 3, 0, 1, 20_000, 0.15),
    "normal": Level("normal", 12, 6, 4, 100_000, 0.0),
    "strong": Level("strong", 40, 12, 8, 300_000, 0.0),
}


def level_named(name: str | Level) -> Level:
    if isinstance(name, Level):
        return name
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(f"unknown robot level {name!r} (known: {', '.join(LEVELS)})") from None
