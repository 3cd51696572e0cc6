"""The tournament's conventions at its tables (RULES.md §4.10, §9)."""

from app.engine.conventions import Conventions
from app.tournament import is_tournament_table, tournament_conventions


def test_a_tournament_table_is_marked_and_takes_no_claims_unless_its_settings_say_so() -> None:
    room = Conventions()
    assert room.claims and not is_tournament_table(room)
    plain = tournament_conventions(room, chosen={"pool_size"})
    assert is_tournament_table(plain)
    assert plain.claims is False
    chosen = tournament_conventions(room.model_copy(update={"claims": True}), chosen={"claims"})
    assert chosen.claims is True and is_tournament_table(chosen)
