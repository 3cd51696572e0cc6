"""The pure rating model (`app.ratings`): ranks from indices, pool-size weight, robots as anchors."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.ratings import GameForRating, Rating, initial_rating, ranks_from_indices, rate_pulya


def test_ranks_from_indices_share_a_rank_on_equal_indices() -> None:
    assert ranks_from_indices([Fraction(5), Fraction(0), Fraction(5)]) == [1, 3, 1]
    assert ranks_from_indices([Fraction(-3), Fraction(7, 3), Fraction(2)]) == [3, 1, 2]
    assert ranks_from_indices([Fraction(0)] * 4) == [1, 1, 1, 1]


def test_winner_gains_and_losers_lose_and_uncertainty_falls() -> None:
    after = rate_pulya({}, GameForRating(("a", "b", "c"), (Fraction(40), Fraction(-10), Fraction(-30)), 20))
    assert after["a"].mu > after["b"].mu > after["c"].mu
    assert after["a"].mu > Rating().mu > after["c"].mu
    assert all(r.sigma < Rating().sigma and r.games == 1 for r in after.values())


def test_tied_players_move_alike() -> None:
    after = rate_pulya({}, GameForRating(("a", "b", "c"), (Fraction(10), Fraction(-5), Fraction(-5)), 20))
    assert after["b"] == after["c"]


def test_a_short_pulya_moves_ratings_less() -> None:
    indices = (Fraction(30), Fraction(0), Fraction(-30))
    short = rate_pulya({}, GameForRating(("a", "b", "c"), indices, 6))
    full = rate_pulya({}, GameForRating(("a", "b", "c"), indices, 20))
    longer = rate_pulya({}, GameForRating(("a", "b", "c"), indices, 40))
    start = Rating().mu
    assert 0 < short["a"].mu - start < full["a"].mu - start
    assert longer["a"] == full["a"]  # pools of REFERENCE_POOL and more count alike


def test_a_robot_is_an_anchor_that_does_not_move() -> None:
    robot = initial_rating("strong")
    game = GameForRating(
        ("a", "b", "bot"), (Fraction(30), Fraction(0), Fraction(-30)), 20, frozenset({"bot"})
    )
    after = rate_pulya({"bot": robot}, game)
    assert (after["bot"].mu, after["bot"].sigma) == (robot.mu, robot.sigma)
    assert after["bot"].games == 1
    # Beating a strong anchor is worth more than beating a weak one.
    weak = rate_pulya({"bot": initial_rating("random")}, game)
    assert after["a"].mu > weak["a"].mu


def test_new_players_are_provisional_and_settle_after_some_pulyas() -> None:
    ratings: dict[object, Rating] = {}
    assert Rating().provisional and Rating().shown == 1500
    for n in range(12):
        indices = tuple(Fraction(v) for v in ((10, 0, -10), (0, -10, 10), (-10, 10, 0))[n % 3])
        ratings = dict(rate_pulya(ratings, GameForRating(("a", "b", "c"), indices, 20)))
    assert not ratings["a"].provisional


def test_a_game_needs_distinct_players_and_one_index_each() -> None:
    with pytest.raises(ValueError):
        GameForRating(("a", "a", "b"), (Fraction(0),) * 3, 10)
    with pytest.raises(ValueError):
        GameForRating(("a", "b", "c"), (Fraction(0),) * 2, 10)
