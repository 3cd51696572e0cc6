"""Why the table refuses a command (typed; the server maps ``code`` to an error frame or HTTP status)."""

from __future__ import annotations

from app.protocol.codes import ErrorCode


class TableRefused(Exception):
    """The command does not fit the table's state; nothing changed."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RobotRequired(Exception):
    """The step needs the solver robot, which the caller did not provide (the server then runs the same
    step again off its event loop with the robot: the step is pure, so the second run is the real one)."""
