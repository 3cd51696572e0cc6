"""One played deal, card by card, against the double-dummy solver.

Figures are the declarer's total tricks: those already taken plus the solver's value of the position
(`app.solver`: the current trick included). For each card: ``before`` the position's value with best
play, ``after`` its value once this card is played (best play after it), ``best`` the cards of the same
value as the best, ``loss`` what the card cost its own side: ``before − after`` for the side that wants
tricks (the declarer in a contract, the defenders in a misère), ``after − before`` for the other. So
``loss`` is 0 exactly on the best cards.

Seats here are solver seats 0, 1, 2 in play order (the hands' order); the server maps table seats onto
them (a 4-seat deal's dealer takes no part in play).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.engine.cards import Card, Suit
from app.solver import InvalidPosition, Position, Solver

# Per position analysed. A whole deal's first position is the costliest; the compiled solver needs far
# fewer nodes than this for any 10-card position, so the budget only stops a runaway, never a real deal.
DEFAULT_NODE_BUDGET = 50_000_000


@dataclass(frozen=True, slots=True)
class PlayedDeal:
    """A deal as played: the three playing hands (solver seats 0..2), trumps, misère, the declarer, the
    first leader and every card in play order."""

    hands: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    trump: Suit | None
    misere: bool
    declarer: int
    leader: int
    play: tuple[Card, ...]

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> PlayedDeal:
        """The command line's input (issue 21 §2); any defect raises `InvalidPosition` naming it."""
        if not isinstance(data, Mapping):
            raise InvalidPosition("a deal must be a JSON object")
        unknown = set(data) - {"hands", "trump", "mode", "declarer", "leader", "play"}
        if unknown:
            raise InvalidPosition(f"unknown field(s): {', '.join(sorted(unknown))}")
        start = Position.from_json(
            {k: data[k] for k in ("hands", "trump", "mode", "declarer", "leader") if k in data}
        )
        raw_play = data.get("play", [])
        if not isinstance(raw_play, list):
            raise InvalidPosition("play must be a list of cards")
        play = []
        for text in raw_play:
            try:
                play.append(Card.parse(text))
            except (ValueError, TypeError, AttributeError):
                raise InvalidPosition(f"play holds {text!r}, which is not a card") from None
        return PlayedDeal(start.hands, start.trump, start.misere, start.declarer, start.leader, tuple(play))


@dataclass(frozen=True, slots=True)
class CardVerdict:
    seat: int
    card: Card
    before: int
    after: int
    best: tuple[Card, ...]
    loss: int

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "card": self.card.text, "before": self.before, "after": self.after,
                "best": [c.text for c in self.best], "loss": self.loss}  # fmt: skip


@dataclass(frozen=True, slots=True)
class DealAnalysis:
    """``start``: the declarer's tricks with best play from the first card (the deal's par); ``taken``:
    the tricks the declarer took in the play analysed; ``cards``: one verdict per card played."""

    start: int
    taken: int
    cards: tuple[CardVerdict, ...]

    def mistakes(self) -> dict[int, dict[str, int]]:
        """Per seat: the cards that cost their side something, and the tricks they cost in all."""
        out = {seat: {"mistakes": 0, "tricks_lost": 0} for seat in range(3)}
        for verdict in self.cards:
            if verdict.loss:
                out[verdict.seat]["mistakes"] += 1
                out[verdict.seat]["tricks_lost"] += verdict.loss
        return out

    def to_json(self) -> dict[str, Any]:
        return {"start": self.start, "cards": [c.to_json() for c in self.cards]}


def analyse_deal(deal: PlayedDeal, *, node_budget: int | None = DEFAULT_NODE_BUDGET) -> DealAnalysis:
    """Every card of ``deal.play`` judged by the solver; raises `InvalidPosition` at the first card that
    could not have been played, `SolverBudgetExceeded` if a position needs more than ``node_budget``."""
    position = Position(deal.hands, deal.trump, deal.misere, deal.declarer, deal.leader)
    solver = Solver()
    won = 0
    start: int | None = None
    verdicts = []
    for card in deal.play:
        if position.tricks_left == 0:
            raise InvalidPosition(f"{card} is played after the last trick")
        values = solver.analyse(position, node_budget=node_budget)
        if card not in values:
            raise InvalidPosition(f"seat {position.mover} cannot play {card} here")
        wants_tricks = (position.mover == deal.declarer) != deal.misere
        best_value = max(values.values()) if wants_tricks else min(values.values())
        before, after = won + best_value, won + values[card]
        best = tuple(c for c, v in values.items() if v == best_value)
        verdicts.append(CardVerdict(position.mover, card, before, after, best,
                                    before - after if wants_tricks else after - before))  # fmt: skip
        if start is None:
            start = before
        position, taker = position.play(card)
        if taker == deal.declarer:
            won += 1
    if start is None:
        start = won + solver.solve(position, node_budget=node_budget).declarer_tricks
    return DealAnalysis(start, won, tuple(verdicts))


def positions_of(deal: PlayedDeal) -> Sequence[tuple[Position, int]]:
    """Each position met in the play, with the declarer's tricks taken before it (for the tests' re-run)."""
    position = Position(deal.hands, deal.trump, deal.misere, deal.declarer, deal.leader)
    won, out = 0, []
    for card in deal.play:
        out.append((position, won))
        position, taker = position.play(card)
        won += taker == deal.declarer
    return out


def analyse_json(data: Mapping[str, Any], node_budget: int | None = DEFAULT_NODE_BUDGET) -> dict[str, Any]:
    """`analyse_deal` from and to JSON: what a worker process of the server runs (picklable both ways)."""
    deal = PlayedDeal.from_json(data)
    analysis = analyse_deal(deal, node_budget=node_budget)
    return {**analysis.to_json(), "taken": analysis.taken}


def deal_json(deal: PlayedDeal) -> dict[str, Any]:
    """The command line's input form of ``deal`` (`PlayedDeal.from_json` reads it back)."""
    return {
        "hands": [[c.text for c in hand] for hand in deal.hands],
        "trump": None if deal.trump is None else deal.trump.letter,
        "mode": "misere" if deal.misere else "contract",
        "declarer": deal.declarer,
        "leader": deal.leader,
        "play": [c.text for c in deal.play],
    }
