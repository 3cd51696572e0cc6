"""Seed 002 / issue 22 §4: the players' chat is closed during deals at a tournament's tables, whatever
the room chose, and in a room that chose it."""

from app.db.models import GameTable, Room
from app.engine.conventions import Conventions
from app.server.accounts.chat import chat_closed_in_deals
from app.tournament import tournament_conventions


def _table(conventions: Conventions) -> GameTable:
    return GameTable(conventions=conventions.model_dump(mode="json"))


def test_a_tournament_table_closes_the_players_chat_during_deals() -> None:
    open_room, closing_room = Room(chat_closed_in_deals=False), Room(chat_closed_in_deals=True)
    casual, tournament = _table(Conventions()), _table(tournament_conventions(Conventions()))
    assert chat_closed_in_deals(open_room, casual) is False
    assert chat_closed_in_deals(closing_room, casual) is True
    assert chat_closed_in_deals(open_room, tournament) is True
