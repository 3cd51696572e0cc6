"""Issue 12: a robot decides from its own seat's view only (RULES.md §12).

Two states that differ only in cards the seat may not see — two hidden cards of one suit swapped between
other players' hands, the unseen talon or another player's discard — give the same view (checked) and
so must give the same decision for the same seed, in every phase.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from app.engine import Action, Card, TableState, legal_actions, view
from app.engine.state import DealState
from app.robots import Level, Robot, decide
from tests.robots.helpers import CHEAP, play_robot_deal


def _hidden_places(state: TableState, seat: int) -> dict[str, tuple[Card, ...]]:
    """Where the cards this seat cannot see lie: other hands it is not shown, the closed talon, a discard."""
    deal = state.deal
    assert deal is not None
    shown = {int(s) for s in view(state, seat)["deal"]["hands"]}
    places = {f"hand{s}": deal.hands[s] for s in deal.active if s not in shown}
    if not deal.talon_open and not deal.allpass:
        places["talon"] = deal.talon
    if deal.declarer != seat and deal.discard:
        places["discard"] = deal.discard
    return places


def _swap(deal: DealState, place: str, old: Card, new: Card) -> DealState:
    if place == "talon":
        return replace(deal, talon=tuple(new if c is old else c for c in deal.talon))
    if place == "discard":
        return replace(deal, discard=tuple(new if c is old else c for c in deal.discard))
    seat = int(place[4:])
    hands, dealt = list(deal.hands), list(deal.dealt)
    hands[seat] = tuple(sorted((new if c is old else c for c in hands[seat]), key=lambda c: c.index))
    if old in dealt[seat]:
        dealt[seat] = tuple(sorted((new if c is old else c for c in dealt[seat]), key=lambda c: c.index))
    return replace(deal, hands=tuple(hands), dealt=tuple(dealt))


def hidden_twin(state: TableState, seat: int, rng: random.Random) -> TableState | None:
    """``state`` with two same-suit cards hidden from ``seat`` exchanged between two places, if any."""
    places = _hidden_places(state, seat)
    pairs = [(p, a, q, b) for p in places for q in places if p < q
             for a in places[p] for b in places[q] if a.suit == b.suit]  # fmt: skip
    if not pairs:
        return None
    p, a, q, b = rng.choice(pairs)
    deal = state.deal
    assert deal is not None
    deal = _swap(_swap(deal, p, a, b), q, b, a)
    return replace(state, deal=deal)


@pytest.mark.parametrize("seats", [3, 4])
def test_decision_depends_only_on_the_seats_view(seats: int) -> None:
    rng = random.Random(seats)
    compared: Counter[str] = Counter()

    def check(state: TableState, seat: int, robot: Robot, action: Action) -> None:
        if robot.level.name == "random":
            return
        twin = hidden_twin(state, seat, rng)
        if twin is None:
            return
        assert twin != state
        seen = view(state, seat)
        assert view(twin, seat) == seen, "the twin must differ only in cards the seat cannot see"
        legal = legal_actions(state)
        assert legal_actions(twin) == legal
        seed = rng.randrange(1 << 30)
        here = decide(seen, legal, seed, robot.level, memory=robot.memory)
        there = decide(view(twin, seat), legal_actions(twin), seed, robot.level, memory=robot.memory)
        assert here == there, f"{state.phase.value}: {here} here, {there} with hidden cards swapped"
        compared[state.phase.value] += 1

    for deal in range(40):
        levels: list[str | Level] = [CHEAP, "easy", "random", CHEAP]
        robots = {s: Robot(levels[(deal + s) % 4]) for s in range(seats)}
        play_robot_deal(seats, rng, robots, series=deal % 2, check=check)
    for phase in ("bidding", "discard", "contract", "whisting", "play"):
        assert compared[phase] > 0, f"no decision compared in {phase}: {compared}"
