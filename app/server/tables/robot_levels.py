"""Which seats are robots: a robot's user is named ``robot:LEVEL:SEAT`` (':' is not allowed in names
people register, so no person can take such a name)."""

from __future__ import annotations

from app.robots.levels import LEVELS

ROBOT_PREFIX = "robot:"


def robot_name(level: str, seat: int) -> str:
    return f"{ROBOT_PREFIX}{level}:{seat}"


def robot_level(name: str | None) -> str | None:
    """The level of a robot seat's user name; None for a person."""
    if name is None or not name.startswith(ROBOT_PREFIX):
        return None
    level = name[len(ROBOT_PREFIX) :].split(":", 1)[0]
    return level if level in LEVELS else None
