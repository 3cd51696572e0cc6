"""Preferans engine: a pure, replayable table state machine (RULES.md §1–§4, §6, §12).

Nothing here does I/O or reads the clock: the server feeds actions in and sends views out.
"""

from app.engine.actions import (
    Action,
    AnswerClaim,
    AnswerInvitation,
    CallWhist,
    ChoosePlay,
    Claim,
    ClaimVerdict,
    DealerLook,
    Discard,
    Interrupt,
    InviteDealer,
    JoinFourth,
    MakeBid,
    NameContract,
    PassBid,
    PlayCard,
    Shuffle,
    TimeOut,
    Zastrel,
    action_from_json,
    action_to_json,
    shuffle_action,
)
from app.engine.bids import Bid, Strain
from app.engine.cards import DECK, Card, Rank, Suit
from app.engine.conventions import ConventionError, Conventions, conventions_from
from app.engine.errors import EngineError, GameOver, IllegalAction, MalformedAction, NotYourTurn
from app.engine.events import Event
from app.engine.machine import apply, current_actor, defenders, legal_actions
from app.engine.replay import log_to_json, replay, replay_json, state_from_json, state_to_json
from app.engine.result import DealKind, DealResult, PlayMode, WhistCall
from app.engine.state import TALON, DealState, Phase, TableState, new_table
from app.engine.views import view

__all__ = [
    "DECK", "TALON", "Action", "AnswerClaim", "AnswerInvitation", "Bid", "CallWhist", "Card", "ChoosePlay",
    "Claim", "ClaimVerdict",
    "ConventionError", "Conventions", "DealKind", "DealResult", "DealState", "DealerLook", "Discard",
    "EngineError", "Event", "GameOver", "IllegalAction", "Interrupt", "InviteDealer", "JoinFourth", "MakeBid",
    "MalformedAction", "NameContract", "NotYourTurn", "PassBid", "Phase", "PlayCard", "PlayMode", "Rank",
    "Shuffle", "Strain", "Suit", "TableState", "TimeOut", "WhistCall", "Zastrel", "action_from_json",
    "action_to_json", "apply", "conventions_from", "current_actor", "defenders", "legal_actions",
    "log_to_json", "new_table", "replay", "replay_json", "shuffle_action", "state_from_json",
    "state_to_json", "view",
]  # fmt: skip
