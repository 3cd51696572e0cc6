"""The keys of a tournament's answers shared by every viewer of its page (`http.shared_answers`): what changes
the tournament in this process forgets them, so the next request reads it anew."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.server.context import ServerContext


def tournament_key(tournament_id: int) -> Hashable:
    """The tournament with its rounds' tables (``GET /api/tournaments/{id}`` but its ``judge``)."""
    return ("tournament", tournament_id)


def standings_key(tournament_id: int) -> Hashable:
    return ("standings", tournament_id)


def adjustments_key(tournament_id: int) -> Hashable:
    return ("adjustments", tournament_id)


def forget_tournament(ctx: ServerContext, tournament_id: int) -> None:
    """This process changed the tournament: its shared answers are built again at the next request."""
    ctx.answers.forget(
        tournament_key(tournament_id), standings_key(tournament_id), adjustments_key(tournament_id)
    )
