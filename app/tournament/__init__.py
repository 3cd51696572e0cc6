"""Tournaments (RULES.md §9) as pure values: the draw, the round's end, indices, standings and judging.

Nothing here does I/O or reads the clock: the server (`app.server.tournaments`) stores what these
functions return, and `python -m app.tournament simulate` plays a whole tournament with robots through them.
"""

from app.tournament.draw import DrawError, DrawnTable, RoundDraw, draw_round, repeat_meetings, table_plan
from app.tournament.judging import (
    Adjustment,
    Appeal,
    JudgingError,
    Verdict,
    adjust,
    file_appeal,
    hear_appeal,
    net_adjustments,
)
from app.tournament.roundend import MORE_DEALS, EndReason, RoundClock, RoundEndError, TableEnd, dealer_of
from app.tournament.scores import (
    Standing,
    TableScore,
    TeamStanding,
    ZeroSumError,
    standings,
    table_indices,
    team_standings,
)
from app.tournament.seating import is_tournament_table, tournament_conventions

__all__ = [
    "MORE_DEALS", "Adjustment", "Appeal", "DrawError", "DrawnTable", "EndReason", "JudgingError",
    "RoundClock", "RoundDraw", "RoundEndError", "Standing", "TableEnd", "TableScore", "TeamStanding",
    "Verdict", "ZeroSumError", "adjust", "dealer_of", "draw_round", "file_appeal", "hear_appeal",
    "is_tournament_table", "net_adjustments", "repeat_meetings", "standings", "table_indices",
    "table_plan", "team_standings", "tournament_conventions",
]  # fmt: skip
