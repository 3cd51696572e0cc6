"""The table runtime: one actor per loaded table, and the registry that loads, recovers and unloads them.

`TableActor` serialises a table's commands (`commands`), runs the pure step (`app.table`), stores it
through `app.server.storage` and publishes it; `registry` finds or loads a table's actor; `robot` runs
the solver robot off the event loop; `robot_seats` seats robot players that act through the same actor.
"""

from __future__ import annotations

from app.server.tables.actor import StepStore, TableActor
from app.server.tables.commands import (
    Act,
    Award,
    Connect,
    Disconnect,
    Judge,
    Leave,
    Resync,
    SeatError,
    Sit,
    Stop,
)
from app.server.tables.registry import (
    Recovery,
    get_actor,
    load_actor,
    place_table,
    recover_all,
    recover_owned,
    shutdown_all,
)
from app.server.tables.robot import OffLoopRobot
from app.server.tables.robot_levels import robot_level, robot_name
from app.server.tables.robot_seats import attach_robots, robot_user

__all__ = [
    "Act",
    "Award",
    "Connect",
    "Disconnect",
    "Judge",
    "Leave",
    "OffLoopRobot",
    "Recovery",
    "Resync",
    "SeatError",
    "Sit",
    "StepStore",
    "Stop",
    "TableActor",
    "attach_robots",
    "get_actor",
    "load_actor",
    "place_table",
    "recover_all",
    "recover_owned",
    "robot_level",
    "robot_name",
    "robot_user",
    "shutdown_all",
]
