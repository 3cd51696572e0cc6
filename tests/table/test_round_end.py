"""A tournament round's end at the table (RULES.md §9.3) through the pure step, with a fixed deck order."""

from __future__ import annotations

import random

import pytest

from app.engine.actions import shuffle_action
from app.engine.conventions import Conventions
from app.engine.scoring import ScoreSheet
from app.table import EndRound, Game, SeatAction, ServerMoves, TableRefused, Termination, start_game, step
from app.tournament import tournament_conventions

CONVENTIONS = tournament_conventions(Conventions(reserve_time=100_000))


def _start(seats: int, seed: int) -> tuple[Game, ServerMoves, random.Random]:
    decks = random.Random(seed)
    moves = ServerMoves(lambda: shuffle_action(decks))
    return start_game(seats, CONVENTIONS, 1, now_ms=0, moves=moves).game, moves, random.Random(seed + 1)


def _play_until(game: Game, moves: ServerMoves, rng: random.Random, deal: int, now: int) -> tuple[Game, int]:
    """Random legal play until deal ``deal`` is being played (or the game ends)."""
    while not game.is_over and game.state.deal_number < deal:
        seat = game.to_act()
        assert seat is not None
        now += 1_000
        game = step(game, SeatAction(seat, rng.choice(game.legal(seat))), now_ms=now, moves=moves).game
    return game, now


@pytest.mark.parametrize("seats", [3, 4])
def test_the_announcement_ends_the_table_after_exactly_four_more_deals(seats: int) -> None:
    game, moves, rng = _start(seats, seed=30 + seats)
    game, now = _play_until(game, moves, rng, 3, 0)  # in deal 3
    announced = step(game, EndRound(), now_ms=now, moves=moves)
    assert [e.kind for e in announced.events] == ["round_end"]
    event = announced.events[0].data
    assert event["last_deal"] == 7 and event["last_dealer"] == (game.state.dealer + 4) % seats
    game = announced.game
    assert game.sheet.last_deal == 7 and game.sheet.history[-1].kind == "round_end"
    assert ScoreSheet.from_json(game.sheet.to_json()) == game.sheet  # the mark is stored with the sheet
    for again in (EndRound(), EndRound(straggler=True)):  # asked again (a lost reply): the same end
        repeat = step(game, again, now_ms=now, moves=moves)
        assert not repeat.changed and repeat.game.sheet == game.sheet and repeat.game.sheet.last_deal == 7
    game, now = _play_until(game, moves, rng, 99, now)
    assert game.outcome is not None and game.outcome.termination is Termination.ROUND_END
    assert game.state.deal_number == 7
    assert game.state.dealer == event["last_dealer"]  # the marked seat dealt the last deal
    assert game.outcome.settlement is not None and sum(game.outcome.settlement.variant1) == 0


def test_a_straggler_ends_after_its_deal_in_progress() -> None:
    game, moves, rng = _start(3, seed=8)
    game, now = _play_until(game, moves, rng, 2, 0)
    game = step(game, EndRound(straggler=True), now_ms=now, moves=moves).game
    assert game.sheet.last_deal == 2 and game.sheet.last_dealer is None and not game.is_over
    game, now = _play_until(game, moves, rng, 99, now)
    assert game.state.deal_number == 2 and game.outcome is not None
    assert game.outcome.termination is Termination.ROUND_END


def test_the_round_end_is_refused_at_a_casual_table() -> None:
    decks = random.Random(1)
    moves = ServerMoves(lambda: shuffle_action(decks))
    game = start_game(3, Conventions(), 0, now_ms=0, moves=moves).game
    with pytest.raises(TableRefused):
        step(game, EndRound(), now_ms=0, moves=moves)
