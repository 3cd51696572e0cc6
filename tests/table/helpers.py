"""Tables in chosen situations for the table step: fixed decks, a fake time source, the step driven."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from app.autoplay.robot import SolverRobot
from app.engine import (
    Action,
    ClaimVerdict,
    Interrupt,
    Shuffle,
    conventions_from,
    legal_actions,
    shuffle_action,
)
from app.engine.cards import parse_cards
from app.table import ClockExpiry, Game, SeatAction, ServerMoves, Step, TableCommand, start_game, step


def deck(first: str, second: str, third: str, talon: str) -> Shuffle:
    """A deck dealing ``first`` to first hand, then the next two active seats, ``talon`` last."""
    cards = parse_cards([*first.split(), *second.split(), *third.split(), *talon.split()])
    assert len(cards) == 32 and len(set(cards)) == 32
    return Shuffle(cards)


def shuffles(*decks: Shuffle, seed: int = 7) -> Iterator[Shuffle]:
    """The given decks in order, then seeded random ones."""
    yield from decks
    rng = random.Random(seed)
    while True:
        yield shuffle_action(rng)


@dataclass
class Table:
    """A pure table driven by a test: ``now`` is the time base, advanced by the test."""

    game: Game
    decks: Iterator[Shuffle]
    now: int = 0
    steps: list[Step] = field(default_factory=list)
    robot: bool = True
    wall_ms: int = 0  # the wall clock the server passes in (§7.7's adjournment)

    @staticmethod
    def start(*decks: Shuffle, seats: int = 3, robot: bool = True, **overrides: Any) -> Table:
        source = shuffles(*decks)
        moves = _moves(source, robot)
        first = start_game(seats, conventions_from(overrides=overrides), 0, now_ms=0, moves=moves)
        table = Table(first.game, source, robot=robot)
        table.steps.append(first)
        return table

    def moves(self) -> ServerMoves:
        return replace(_moves(self.decks, self.robot), wall_ms=self.wall_ms)

    def send(self, command: TableCommand, after_ms: int = 0) -> Step:
        self.now += after_ms
        result = step(self.game, command, now_ms=self.now, moves=self.moves())
        self.game = result.game
        self.steps.append(result)
        return result

    def act(self, action: Action, after_ms: int = 0) -> Step:
        assert not isinstance(action, Shuffle | Interrupt | ClaimVerdict), "a seat acts, not the server"
        return self.send(SeatAction(action.seat, action), after_ms)

    def expire(self) -> Step:
        """Let the running seat's time run out: the timer fires at its deadline."""
        deadline = self.game.clock.expires_at()
        assert deadline is not None, "no clock is running"
        self.now = max(self.now, deadline)
        return self.send(ClockExpiry())

    def play_randomly(self, seed: int, limit: int = 20_000) -> None:
        """Live seats play seeded random legal actions, 10 ms each, until the game is over."""
        rng = random.Random(seed)
        for _ in range(limit):
            if self.game.is_over:
                return
            seat = self.game.to_act()
            assert seat is not None
            self.act(rng.choice(legal_actions(self.game.state)), after_ms=10)
        raise AssertionError("the game did not end")


def _moves(decks: Iterator[Shuffle], robot: bool) -> ServerMoves:
    return ServerMoves(lambda: next(decks), SolverRobot() if robot else None)
