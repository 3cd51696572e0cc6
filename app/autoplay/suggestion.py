"""The solver's suggestion for an interrupted deal (issue 11 §2): what a judge may look at, never an award.

With a named contract: the double-dummy result of the position at the interruption (every hand open, best
play from there on). Without one (the declarer won the auction but never named a contract): each discard
of the declarer's twelve cards is solved in each strain, and the best contract the declarer could name at
or above the winning bid is reported with the discard that makes it. Searches are bounded by node budgets
(deterministic), so the same deal always gets the same suggestion; a search cut by its budget is reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

from app.autoplay.record import InterruptedDeal
from app.engine.bids import LADDER, Bid, Strain
from app.engine.cards import Card, card_texts
from app.engine.play import trick_winner
from app.solver import Position, Solver, SolverBudgetExceeded
from app.solver.errors import InvalidPosition

POSITION_NODES = 20_000_000
CANDIDATE_NODES = 400_000


@dataclass(frozen=True, slots=True)
class Suggestion:
    kind: str  # "position" | "contract" | "none"
    note: str
    contract: Bid | None = None
    discard: tuple[Card, ...] = ()
    declarer_tricks: int | None = None  # over the whole deal: taken so far plus the best play from here
    complete: bool = True
    nodes: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "label": "suggestion",
            "kind": self.kind,
            "note": self.note,
            "contract": None if self.contract is None else self.contract.text,
            "discard": card_texts(self.discard),
            "declarer_tricks": self.declarer_tricks,
            "complete": self.complete,
            "nodes": self.nodes,
        }


def _hands_now(record: InterruptedDeal, contract: Bid, discard: tuple[Card, ...]) -> list[tuple[Card, ...]]:
    played = {card for trick in record.tricks for _, card in trick} | {card for _, card in record.trick}
    hands = []
    for seat in record.active:
        cards = list(record.hands[seat])
        if seat == record.declarer and not contract.no_talon:
            cards = [c for c in (*cards, *record.talon) if c not in discard]
        hands.append(tuple(c for c in cards if c not in played))
    return hands


def _leader(record: InterruptedDeal, trump: Strain | None) -> int:
    if record.trick:
        return record.trick[0][0]
    if record.tricks:
        suit = None if trump is None or trump is Strain.NO_TRUMP else int(trump.value)
        return trick_winner(record.tricks[-1], suit)
    return record.active[0]  # first hand leads the first trick (§4.9)


def _position(record: InterruptedDeal, contract: Bid, discard: tuple[Card, ...]) -> Position:
    assert record.declarer is not None
    hands = _hands_now(record, contract, discard)
    active = list(record.active)
    return Position(
        hands=(hands[0], hands[1], hands[2]),
        trump=contract.trump,
        misere=contract.is_misere,
        declarer=active.index(record.declarer),
        leader=active.index(_leader(record, contract.strain)),
        trick=tuple(card for _, card in record.trick),
    )


def suggest(record: InterruptedDeal, *, implementation: str | None = None) -> Suggestion:
    """Pure and deterministic (node budgets); may take seconds: run it off the event loop."""
    if record.declarer is None or record.bid is None:
        return Suggestion("none", "no declarer: such a deal can only be awarded void")
    solver = Solver(implementation)
    if record.contract is not None:
        contract = record.contract
        if not contract.no_talon and len(record.discard) != 2:
            return Suggestion("none", "the declarer had not discarded: the position is not complete")
        try:
            solution = solver.solve(_position(record, contract, record.discard), node_budget=POSITION_NODES)
        except SolverBudgetExceeded as exc:
            return Suggestion("position", f"search stopped: {exc}", contract, complete=False, nodes=exc.nodes)
        except InvalidPosition as exc:
            return Suggestion("none", f"the position cannot be solved: {exc}")
        total = record.taken[record.declarer] + solution.declarer_tricks
        return Suggestion(
            "position",
            "double-dummy result of the position at the interruption (every hand open, best play)",
            contract,
            record.discard,
            total,
            nodes=solution.nodes,
        )
    return _best_contract(record, record.bid, solver)


def _best_contract(record: InterruptedDeal, bid: Bid, solver: Solver) -> Suggestion:
    """No contract named: solve every discard in every strain (misère: every discard, fewest tricks)."""
    assert record.declarer is not None
    twelve = (*record.hands[record.declarer], *record.talon)
    discards: list[tuple[Card, ...]] = (
        [()] if bid.no_talon else [tuple(pair) for pair in combinations(twelve, 2)]
    )
    strains: list[Bid] = [bid] if bid.is_misere else [Bid(6, Strain(s), bid.no_talon) for s in range(5)]
    best: dict[Strain | None, tuple[int, tuple[Card, ...]]] = {}
    nodes, complete = 0, True
    for shape in strains:
        for discard in discards:
            try:
                solution = solver.solve(_position(record, shape, discard), node_budget=CANDIDATE_NODES)
            except SolverBudgetExceeded as exc:
                nodes += exc.nodes
                complete = False
                continue
            nodes += solution.nodes
            tricks = solution.declarer_tricks
            score = -tricks if shape.is_misere else tricks
            held = best.get(shape.strain)
            if held is None or score > held[0]:
                best[shape.strain] = (score, discard)
    if not best:
        return Suggestion(
            "contract", "every candidate search stopped at its budget", complete=False, nodes=nodes
        )
    if bid.is_misere:
        score, discard = best[None]
        return Suggestion("contract", _NOTE, bid, discard, -score, complete, nodes)
    # The highest contract at or above the winning bid that the declarer makes with best play; none made:
    # the winning bid itself in the strain that takes the most tricks.
    made = [
        contract
        for contract in LADDER
        if not contract.is_misere
        and contract.no_talon == bid.no_talon
        and contract.rank >= bid.rank
        and contract.strain in best
        and best[contract.strain][0] >= contract.level
    ]
    if made:
        contract = max(made, key=lambda c: c.rank)
    else:
        strain = max(best, key=lambda s: best[s][0])
        assert strain is not None
        contract = Bid(bid.level, strain, bid.no_talon)
        if contract.rank < bid.rank:
            contract = bid
    tricks, discard = best[contract.strain]
    return Suggestion("contract", _NOTE, contract, discard, tricks, complete, nodes)


_NOTE = "the best contract and discard found by solving each candidate (every hand open); the judge decides"
