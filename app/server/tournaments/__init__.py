"""The tournaments' running side (RULES.md §9.3): the durable round clock that announces the round's end at
every table and ends the stragglers. The rules are `app.tournament`'s and `app.table`'s."""

from app.server.tournaments.analysis_gate import round_over
from app.server.tournaments.round_clock import add_downtime, add_downtime_on_start, run_round_clocks, tick

__all__ = ["add_downtime", "add_downtime_on_start", "round_over", "run_round_clocks", "tick"]
