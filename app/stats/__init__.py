"""A player's statistics (issue 21 §3), computed from the stored results of their deals and games. Pure:
the server reads the rows and hands them here (`app.server.http.routes.stats`)."""

from app.stats.player import GameFacts, PlayerStats, player_stats

__all__ = ["GameFacts", "PlayerStats", "player_stats"]
