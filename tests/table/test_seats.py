"""The seat rules of a table (`app.table.Seating`): who may sit where, leaving only before the game
(RULES §7.7), and how a client's numbered actions are told new, retried or refused."""

from __future__ import annotations

import pytest

from app.engine.errors import MalformedAction
from app.table import Seating, TableRefused, normalised_action, player_action


def _refused(code: str) -> pytest.RaisesExc[TableRefused]:
    return pytest.raises(TableRefused, check=lambda exc: exc.code == code)


def test_a_player_takes_the_seat_asked_for_or_the_first_free_one() -> None:
    seat, seating = Seating.empty(3).sit(7, "ann", 2, started=False)
    assert seat == 2 and seating.users == (None, None, 7) and seating.names == (None, None, "ann")
    seat, seating = seating.sit(8, "bob", None, started=False)
    assert seat == 0 and seating.seat_of(8) == 0 and not seating.full
    _, seating = seating.sit(9, "cid", None, started=False)
    assert seating.full and seating.users == (8, 9, 7)


def test_a_seat_is_refused_with_the_reason() -> None:
    _, seating = Seating.empty(3).sit(7, "ann", 1, started=False)
    with _refused("seat_taken"):
        seating.sit(8, "bob", 1, started=False)
    with _refused("bad_seat"):
        seating.sit(8, "bob", 3, started=False)
    with _refused("already_seated"):
        seating.sit(7, "ann", 0, started=False)
    with _refused("game_started"):
        seating.sit(8, "bob", 0, started=True)
    _, seating = seating.sit(8, "bob", None, started=False)
    _, seating = seating.sit(9, "cid", None, started=False)
    with _refused("table_full"):
        seating.sit(10, "dan", None, started=False)


def test_a_seat_is_left_only_before_the_game_starts() -> None:
    """§7.7: once the pulya has started a seat is left only by its end."""
    _, seating = Seating.empty(3).sit(7, "ann", 1, started=False)
    with _refused("game_started"):
        seating.leave(7, started=True)
    with _refused("not_seated"):
        seating.leave(8, started=False)
    seat, left = seating.leave(7, started=False)
    assert seat == 1 and left.users == (None, None, None) and left.names == (None, None, None)


def test_numbered_actions_new_retried_or_refused() -> None:
    _, seating = Seating.empty(3).sit(7, "ann", 0, started=False)
    bid = {"type": "bid", "bid": "6S"}  # stored as the server writes it ("6s")
    assert seating.numbered(0, 1, bid) == "new"
    seating = seating.applied(0, 1, normalised_action(bid, 0))
    assert seating.last_seq == (1, 0, 0)
    # The same action under the same number is a retry: acknowledged again, applied once.
    assert seating.numbered(0, 1, bid) == "retry"
    with _refused("seq_reused"):
        seating.numbered(0, 1, {"type": "pass"})
    with _refused("stale_seq"):
        seating.numbered(0, 0, bid)
    with _refused("not_seated"):
        seating.numbered(None, 5, bid)
    # Refused as too late, its action is not known: a resend under that number is answered as a retry.
    late = seating.applied(0, 2, None)
    assert late.numbered(0, 2, {"type": "pass"}) == "retry" and late.numbered(0, 3, bid) == "new"


def test_a_players_frame_naming_another_seat_or_a_servers_action_is_refused_before_it_is_parsed() -> None:
    """A seat acts only for itself, never as the server (docs/protocol.md's ``not_your_seat`` and
    ``malformed_action``); a frame's foreign seat is named as such even when the rest would not parse."""
    assert player_action({"type": "pass"}, 1).to_json() == {"type": "pass", "seat": 1}
    with _refused("not_your_seat"):
        player_action({"type": "play", "seat": 2, "card": "zz"}, 0)
    with _refused("not_your_seat"):
        player_action({"type": "pass", "seat": "1"}, 1)
    with _refused("malformed_action"):
        player_action({"type": "shuffle"}, 0)
    with pytest.raises(MalformedAction):  # its own seat: parsed, and the card is no card
        player_action({"type": "play", "card": "zz"}, 0)
