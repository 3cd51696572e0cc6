"""Table chat rules (issue 22 §4): who writes to which channel, when the players' channel is closed, and
what a message may hold. Pure: the server asks these and stores and sends what they allow.

Two channels: ``players`` (the seated players write; everyone at the table reads) and ``spectators``
(watchers write and read; players never receive it, so no kibitzer can tell them anything during a deal).
"""

from __future__ import annotations

import unicodedata
from enum import StrEnum
from typing import Final


class Channel(StrEnum):
    PLAYERS = "players"
    SPECTATORS = "spectators"


# Preset phrases: sent by key, each reader sees them in the language of his own page.
PRESETS: Final = ("good_game", "thanks", "another_pulya", "well_played", "sorry", "hello", "bye")

# Phases in which a deal is under way (the engine's `Phase` values): from the shuffle's bidding to the
# last card. Between deals (`awaiting_deal`, `deal_over`, `interrupted`) the players' channel is open.
DEAL_PHASES: Final = frozenset(
    {"bidding", "dealer_invitation", "discard", "contract", "whisting", "play_mode", "play"}
)


def channel_for(seated: bool) -> Channel:
    """A seated player writes to the players' channel, anyone else to the spectators'."""
    return Channel.PLAYERS if seated else Channel.SPECTATORS


def may_read(channel: Channel, seated: bool) -> bool:
    """Players never read the spectators' channel; everyone at the table reads the players'."""
    return channel is Channel.PLAYERS or not seated


def players_chat_open(status: str, phase: str | None, closed_in_deals: bool) -> bool:
    """Seed 002 forbids words not about the bidding during a tournament deal: where the room closes the
    players' chat during deals (a tournament room, or a room that chose it), it is closed from the deal's
    start to its end while the game is being played; before the game, between deals and after it, open."""
    if not closed_in_deals:
        return True
    return not (status == "playing" and phase in DEAL_PHASES)


class ChatTextError(ValueError):
    pass


def clean_text(text: str, max_length: int) -> str:
    """The message as stored: Unicode NFC, control characters (but newlines) dropped, at most 3 lines,
    stripped; refused when empty or longer than ``max_length`` characters. It stays plain text: the
    pages show it as text (never HTML), links included."""
    text = unicodedata.normalize("NFC", text)
    kept = "".join(c for c in text if c == "\n" or unicodedata.category(c)[0] != "C")
    lines = [line.strip() for line in kept.split("\n")]
    cleaned = "\n".join(line for line in lines if line)
    if not cleaned:
        raise ChatTextError("the message is empty")
    if len(cleaned) > max_length:
        raise ChatTextError(f"a message holds at most {max_length} characters")
    if cleaned.count("\n") > 2:
        raise ChatTextError("a message holds at most 3 lines")
    return cleaned
