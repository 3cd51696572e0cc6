"""Hand-made positions with answers worked out by hand (and checked against the plain minimax).

Seats are solver seats 0, 1, 2 in clockwise play order; the declarer is seat 0 in every position.
"""

from __future__ import annotations

from app.engine.cards import Card, Suit, parse_cards
from app.solver import Position, analyse, solve
from tests.solver.reference import card_values


def _position(
    hands: tuple[str, str, str],
    *,
    trump: Suit | None = None,
    misere: bool = False,
    leader: int,
    trick: str = "",
) -> Position:
    h0, h1, h2 = (parse_cards(h.split()) for h in hands)
    return Position((h0, h1, h2), trump, misere, 0, leader, parse_cards(trick.split()))


def _values(position: Position, implementation: str) -> dict[str, int]:
    got = {c.text: v for c, v in analyse(position, implementation=implementation).items()}
    reference = card_values(
        position.hands,
        trump=position.trump,
        misere=position.misere,
        declarer=position.declarer,
        leader=position.leader,
        trick=position.trick,
    )
    assert got == {c.text: v for c, v in reference.items()}
    return got


def test_throw_in_forces_the_defender_to_lead_into_the_tenace(implementation: str) -> None:
    """RULES.md §10, throw-in: declarer ♠7 ♥A ♥Q leads ♠7; the defender's ♠A wins perforce and he must then
    lead from ♥K ♥8 into the ♥A–♥Q tenace: two tricks. Cashing ♥A or leading ♥Q first yields only one."""
    position = _position(("s7 hA hQ", "sA hK h8", "c7 c8 c9"), leader=0)
    assert _values(position, implementation) == {"s7": 2, "hA": 1, "hQ": 1}
    solution = solve(position, implementation=implementation)
    assert solution.declarer_tricks == 2
    assert solution.best == (Card.parse("s7"),)


def test_defenders_squeeze_the_declarer(implementation: str) -> None:
    """RULES.md §10, simple squeeze by the defence: seat 1 (♠A ♦J ♥7) cashes ♠A; seat 2 (♥A ♥J ♣7) throws
    its idle ♣7; the declarer (♥Q ♥8 ♦Q), void in spades, must unguard hearts (♥Q–♥8 sits over ♥A–♥J) or
    diamonds (♦Q over ♦J) and takes nothing. Any other lead leaves him a trick."""
    position = _position(("hQ h8 dQ", "sA dJ h7", "hA hJ c7"), leader=1)
    assert _values(position, implementation) == {"sA": 0, "dJ": 1, "h7": 1}
    squeezed = _position(("hQ h8 dQ", "dJ h7", "hA hJ"), leader=1, trick="sA c7")
    assert _values(squeezed, implementation) == {"hQ": 0, "h8": 0, "dQ": 0}


def test_the_idle_card_must_go_in_the_squeeze(implementation: str) -> None:
    """RULES.md §10, mid-trick: on the squeeze card seat 2 must keep ♥A (the entry to ♥J); throwing it
    lets the declarer's ♥Q–♥8 take both heart tricks."""
    position = _position(("hQ h8 dQ", "dJ h7", "hA hJ c7"), leader=1, trick="sA")
    values = _values(position, implementation)
    assert values["hA"] == 2
    assert values["c7"] == 0
    solution = solve(position, implementation=implementation)
    assert solution.declarer_tricks == 0
    assert Card.parse("hA") not in solution.best


def test_void_player_must_ruff(implementation: str) -> None:
    """RULES.md §10 following rule: void in the led suit, the declarer must trump (♥7 on ♠A), and wins."""
    position = _position(("h7 c7", "sA cA", "s8 c8"), trump=Suit.HEARTS, leader=1)
    assert _values(position, implementation) == {"sA": 1, "cA": 1}
    after_lead = _position(("h7 c7", "cA", "c8"), trump=Suit.HEARTS, leader=1, trick="sA s8")
    assert after_lead.legal_cards() == (Card.parse("h7"),)


def test_misere_catch_needs_the_right_lead(implementation: str) -> None:
    """RULES.md §10, misère: the declarer's ♥A is caught only if hearts are led at once (♥7 forces ♥A);
    after ♠8 the other defender must lead clubs and the declarer throws ♥A away."""
    position = _position(("hA s7", "h7 s8", "c7 sA"), misere=True, leader=1)
    assert _values(position, implementation) == {"s8": 0, "h7": 1}
    solution = solve(position, implementation=implementation)
    assert solution.declarer_tricks == 1
    assert solution.best == (Card.parse("h7"),)


def test_clean_misere_cannot_be_caught(implementation: str) -> None:
    """RULES.md §10, misère: sevens in every suit the defenders can lead never win a trick."""
    position = _position(("s7 c7 d7", "sA cA dA", "s8 c8 d8"), misere=True, leader=1)
    assert set(_values(position, implementation).values()) == {0}


def test_lowest_optimal_card_is_lowest_rank_then_suit(implementation: str) -> None:
    """RULES.md §8.4: the robot plays the lowest optimal card: lowest rank, ties by suit order ♠♣♦♥."""
    position = _position(("s7 c7 d7", "sA cA dA", "s8 c8 d8"), misere=True, leader=0)
    solution = solve(position, implementation=implementation)
    assert solution.best == parse_cards(["s7", "c7", "d7"])
    assert solution.lowest == Card.parse("s7")
