"""The engine's error hierarchy: every rejected action raises one of these and changes nothing."""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises for a bad action; ``code`` is a stable machine name."""

    code = "engine_error"


class MalformedAction(EngineError):
    """The action could not be parsed (unknown type, missing field, bad card or contract text)."""

    code = "malformed_action"


class NotYourTurn(EngineError):
    """A seat acted while the table waits for another seat (or for the deal)."""

    code = "not_your_turn"


class IllegalAction(EngineError):
    """Well-formed and in turn, but the rules forbid it here; the message says what was expected."""

    code = "illegal_action"


class GameOver(EngineError):
    """The table accepts no more actions."""

    code = "game_over"
