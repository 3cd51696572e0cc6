"""One pulya's effect on its players' ratings, with `openskill`'s Plackett-Luce model.

Why openskill (Weng-Lin, Plackett-Luce) and not Glicko-2: a pulya is one free-for-all result of three or
four players, which Plackett-Luce rates as it is (a ranking of all of them at once, ties allowed), where
Glicko-2 would have to cut it into invented pairwise games that are not independent. openskill is kept up
(typed, tested, on PyPI), fast, and needs no rating period.

- **Ranks** come from the final whist indices of the settlement (`Settlement.exact`, exact fractions):
  the highest index ranks first; equal indices share a rank (`ranks_from_indices`).
- **Pool size**: a short pulya is a noisier measure of skill, so its performance noise β grows as the
  pool shrinks: β = β₀·√(REFERENCE_POOL / S) for a pool S below `REFERENCE_POOL` (β₀ the library's
  25/6). A pool of 10 thus moves ratings less than a pool of 20; pools of 20 and more count alike.
- **Robots** are rated as anchors: they take part in the update (the humans are rated against the
  robot's rating) but their own rating never moves (`GameForRating.frozen`).
- **Shown rating**: μ on a familiar scale, 1500 + 40·(μ − 25); **provisional** ("?") while σ is above
  `PROVISIONAL_SIGMA` (a new player starts at σ = 25/3 and gets under it after about five pulyas).
  Leaderboards sort by the conservative μ − 3σ (`Rating.ordinal`), so one lucky pulya does not top them.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from openskill.models import PlackettLuce

REFERENCE_POOL = 20
PROVISIONAL_SIGMA = 7.5
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0
DEFAULT_BETA = 25.0 / 6.0

# Robots' fixed ratings by level (μ): anchors a human is rated against. Chosen from the levels' duel
# strength order (`python -m app.robots duel`): random < easy < normal < strong. σ is small: they do not move.
ROBOT_MU: Mapping[str, float] = {"random": 15.0, "easy": 21.0, "normal": 25.0, "strong": 29.0}
ROBOT_SIGMA = 2.0


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating on one ladder: the library's μ and σ and the number of pulyas rated."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative estimate μ − 3σ the leaderboards sort by."""
        return self.mu - 3.0 * self.sigma

    @property
    def shown(self) -> int:
        return display_rating(self.mu)

    @property
    def provisional(self) -> bool:
        return is_provisional(self.sigma)


def initial_rating(robot_level: str | None = None) -> Rating:
    """A new player's rating; a robot's is its level's fixed anchor."""
    if robot_level is None:
        return Rating()
    return Rating(ROBOT_MU.get(robot_level, DEFAULT_MU), ROBOT_SIGMA, 0)


def display_rating(mu: float) -> int:
    return round(1500 + 40 * (mu - DEFAULT_MU))


def is_provisional(sigma: float) -> bool:
    return sigma > PROVISIONAL_SIGMA


@dataclass(frozen=True, slots=True)
class GameForRating:
    """What rating needs of a settled pulya: each seat's player and final index, and the pool size.

    ``players[i]`` is seat i's player key (any hashable: the server uses user ids); ``frozen`` holds the
    keys whose rating must not move (robots)."""

    players: tuple[Hashable, ...]
    indices: tuple[Fraction, ...]
    pool_size: int
    frozen: frozenset[Hashable] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if len(self.players) != len(self.indices) or len(self.players) < 2:
            raise ValueError("a rated game needs one index per player and at least two players")
        if len(set(self.players)) != len(self.players):
            raise ValueError("a player holds two seats of one game")
        if self.pool_size < 1:
            raise ValueError("the pool size is at least 1")


def ranks_from_indices(indices: Sequence[Fraction]) -> list[int]:
    """Competition ranks (1 = best) from the final indices, ties sharing one: [5, 0, 5] → [1, 3, 1]."""
    return [1 + sum(1 for other in indices if other > mine) for mine in indices]


def beta_for_pool(pool_size: int) -> float:
    """The performance noise of a pulya of this pool size (see the module's docstring)."""
    return DEFAULT_BETA * math.sqrt(REFERENCE_POOL / min(pool_size, REFERENCE_POOL))


def rate_pulya(before: Mapping[Hashable, Rating], game: GameForRating) -> dict[Hashable, Rating]:
    """Every player's rating after ``game``, from ``before`` (a player missing there starts at the
    default). Frozen players come back unchanged but counted; the others moved by the library's update."""
    model = PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA, beta=beta_for_pool(game.pool_size))
    start = [before.get(p, Rating()) for p in game.players]
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in start]
    rated = model.rate(teams, ranks=[float(r) for r in ranks_from_indices(game.indices)])
    out: dict[Hashable, Rating] = {}
    for player, old, team in zip(game.players, start, rated, strict=True):
        if player in game.frozen:
            out[player] = Rating(old.mu, old.sigma, old.games + 1)
        else:
            out[player] = Rating(float(team[0].mu), float(team[0].sigma), old.games + 1)
    return out
