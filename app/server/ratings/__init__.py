"""Ratings on the server (issue 21 §1): the ladders kept in the database, updated as games settle, the
rebuild that replays them, and the room's rating limits at the seat.

`rate_settled` takes in every game settled since the last call (the background `run_ratings` loop calls it);
`rebuild` replays every settled game from nothing, in the same order and through the same function, so
the two agree (``python -m app ratings rebuild``). `require_rating_to_sit` is the room's "minimum/maximum
rating to sit".
"""

from app.server.ratings.ladder import SITE, rate_settled, rebuild, run_ratings
from app.server.ratings.limits import require_rating_to_sit, require_rating_within, room_settings
from app.server.ratings.reading import ladder_rating, ratings_of

__all__ = [
    "SITE",
    "ladder_rating",
    "rate_settled",
    "ratings_of",
    "rebuild",
    "require_rating_to_sit",
    "require_rating_within",
    "room_settings",
    "run_ratings",
]
