"""Robot players (issue 12): decide from one seat's view by sampling the unseen cards and solving layouts.

Pure: no I/O, no clock, randomness only from the seed passed in. `decide` is the whole API a table needs;
`app.robots.duel` plays robots against each other away from the server (`python -m app.robots duel`).
"""

from app.robots.knowledge import Memory, remember
from app.robots.levels import LEVELS, Level, level_named
from app.robots.robot import Robot, RobotError, decide

__all__ = ["LEVELS", "Level", "Memory", "Robot", "RobotError", "decide", "level_named", "remember"]
