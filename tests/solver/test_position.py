"""Positions: validation, JSON form and playing a card (RULES.md §1.1 cards, §10 following rules)."""

from __future__ import annotations

import pytest

from app.engine.cards import Card, Suit, parse_cards
from app.solver import InvalidPosition, Position


def _json(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "hands": [["sA", "sK"], ["hA"], ["d7", "d8"]],
        "trump": "s",
        "mode": "contract",
        "declarer": 0,
        "leader": 1,
        "trick": ["hK"],
    }
    data.update(changes)
    return data


def test_json_round_trip() -> None:
    """RULES.md §1.1: cards are written in the canonical notation; a position survives its JSON form."""
    position = Position.from_json(_json())
    assert position.hands[0] == parse_cards(["sK", "sA"])
    assert position.trump is Suit.SPADES
    assert position.mover == 2
    assert position.tricks_left == 2
    assert Position.from_json(position.to_json()) == position


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"hands": [["sA", "sK"], ["sA"], ["d7", "d8"]]}, "appears twice"),
        ({"trick": ["sA"]}, "appears twice"),
        ({"trick": []}, "hand sizes"),
        ({"trick": ["hK", "hQ", "hJ"]}, "complete trick"),
        ({"hands": [["sA", "sK"], ["hA"], ["d7", "h8"]], "trick": ["hK", "d8"], "leader": 1}, "hand sizes"),
        ({"trump": "x"}, "trump"),
        ({"mode": "misere"}, "without trumps"),
        ({"declarer": 3}, "declarer"),
        ({"hands": [["sA", "sK"], ["hA"], ["d7", "zz"]]}, "not a card"),
        ({"hands": [["sA", "sK"], ["hA"]]}, "3 lists"),
        ({"colour": "red"}, "unknown field"),
    ],
)
def test_invalid_positions_are_rejected(changes: dict[str, object], message: str) -> None:
    """RULES.md §10: only positions that play can produce are solved; the error names the defect."""
    with pytest.raises(InvalidPosition, match=message):
        Position.from_json(_json(**changes))


def test_a_renounce_in_the_trick_is_rejected() -> None:
    """RULES.md §10 following rules: a card off the led suit while holding that suit cannot be in a trick."""
    data = _json(hands=[["sA", "hQ"], ["hA"], ["h7"]], leader=1, trick=["hK", "d8"])
    with pytest.raises(InvalidPosition, match="could not play d8"):
        Position.from_json(data)


def test_failing_to_ruff_is_rejected() -> None:
    """RULES.md §10: void in the led suit with a trump in hand, a player must trump."""
    good = _json(hands=[["sA", "sK"], ["hA"], ["d8"]], trick=["cK", "cQ"])
    assert Position.from_json(good).mover == 0
    bad = _json(hands=[["sA", "sK"], ["hA"], ["s7"]], trick=["cK", "dQ"])
    with pytest.raises(InvalidPosition, match="could not play dQ"):
        Position.from_json(bad)


def test_play_completes_the_trick_and_passes_the_lead() -> None:
    """RULES.md §10: the highest trump, else the highest card of the led suit, takes the trick and leads."""
    position = Position.from_json(_json(hands=[["sA", "sK"], ["hA"], ["h7", "d8"]]))
    after, taker = position.play(Card.parse("h7"))
    assert taker is None
    final, taker = after.play(Card.parse("sK"))
    assert taker == 0
    assert final.leader == 0
    assert final.trick == ()
    assert final.tricks_left == 1
    with pytest.raises(InvalidPosition):
        position.play(Card.parse("d8"))
