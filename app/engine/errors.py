"""The engine's error hierarchy: every rejected action raises one of these and changes nothing."""

from __future__ import annotations

from typing import ClassVar

from app.protocol.codes import ErrorCode


class EngineError(Exception):
    """Base of every error the engine raises for a bad action; ``code`` is a stable machine name."""

    code: ClassVar[ErrorCode] = ErrorCode.ENGINE_ERROR


class MalformedAction(EngineError):
    """The action could not be parsed (unknown type, missing field, bad card or contract text)."""

    code = ErrorCode.MALFORMED_ACTION


class NotYourTurn(EngineError):
    """A seat acted while the table waits for another seat (or for the deal)."""

    code = ErrorCode.NOT_YOUR_TURN


class IllegalAction(EngineError):
    """Well-formed and in turn, but the rules forbid it here; the message says what was expected."""

    code = ErrorCode.ILLEGAL_ACTION


class GameOver(EngineError):
    """The table accepts no more actions."""

    code = ErrorCode.GAME_OVER
