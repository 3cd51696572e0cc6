"""Player ratings (issue 21 §1): the pure model that turns one settled pulya into new ratings.

`rate_pulya` takes the players' ratings before a game and the game's final whist indices and returns the
ratings after it, through the `openskill` library's Plackett-Luce model (Weng-Lin): a Bayesian rating made
for free-for-all games of any number of players, which a 3- or 4-handed pulya is. No I/O here: the server
(`app.server.ratings`) reads games and stores ratings; ``python -m app ratings rebuild`` replays them.
"""

from app.ratings.model import (
    PROVISIONAL_SIGMA,
    REFERENCE_POOL,
    GameForRating,
    Rating,
    display_rating,
    initial_rating,
    is_provisional,
    ranks_from_indices,
    rate_pulya,
)

__all__ = [
    "PROVISIONAL_SIGMA",
    "REFERENCE_POOL",
    "GameForRating",
    "Rating",
    "display_rating",
    "initial_rating",
    "is_provisional",
    "ranks_from_indices",
    "rate_pulya",
]
