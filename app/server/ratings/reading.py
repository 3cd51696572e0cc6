"""Reading the ladders: a player's rating as shown (with "?" while provisional), leaderboards, history."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import PlayerRating, RatingChange, User
from app.ratings import Rating, display_rating, is_provisional


def shown(mu: float, sigma: float, games: int) -> dict[str, Any]:
    """A rating as the site shows it: ``rating`` (1500 scale), ``provisional`` ("?"), ``games``."""
    return {"rating": display_rating(mu), "provisional": is_provisional(sigma), "games": games,
            "mu": round(mu, 4), "sigma": round(sigma, 4)}  # fmt: skip


def unrated() -> dict[str, Any]:
    start = Rating()
    return shown(start.mu, start.sigma, 0)


async def ladder_rating(session: AsyncSession, ladder: int, user_id: int) -> Rating:
    row = await session.get(PlayerRating, (ladder, user_id))
    return Rating() if row is None else Rating(row.mu, row.sigma, row.games)


async def ratings_of(
    session: AsyncSession, ladder: int, user_ids: Iterable[int]
) -> dict[int, dict[str, Any]]:
    """The shown rating of each of ``user_ids`` on ``ladder`` (a player never rated there: 1500?)."""
    ids = list(user_ids)
    rows = (
        await session.execute(
            select(PlayerRating).where(PlayerRating.ladder == ladder, PlayerRating.user_id.in_(ids))
        )
    ).scalars()
    found = {r.user_id: shown(r.mu, r.sigma, r.games) | {"robot": r.robot} for r in rows}
    return {u: found.get(u, unrated()) for u in ids}


async def leaderboard(session: AsyncSession, ladder: int, limit: int, offset: int) -> list[dict[str, Any]]:
    """People only (robots are rated but not listed), by the conservative μ − 3σ, best first."""
    rows = (
        await session.execute(
            select(PlayerRating, User.name)
            .join(User, User.id == PlayerRating.user_id)
            .where(PlayerRating.ladder == ladder, PlayerRating.robot.is_(False))
            .order_by((PlayerRating.mu - 3 * PlayerRating.sigma).desc(), User.name)
            .offset(offset)
            .limit(limit)
        )
    ).all()
    return [
        {"rank": offset + i + 1, "user": name, **shown(r.mu, r.sigma, r.games)}
        for i, (r, name) in enumerate(rows)
    ]


async def history(session: AsyncSession, ladder: int, user_id: int) -> list[dict[str, Any]]:
    rows = (
        await session.execute(
            select(RatingChange)
            .where(RatingChange.ladder == ladder, RatingChange.user_id == user_id)
            .order_by(RatingChange.at, RatingChange.id)
        )
    ).scalars()
    return [{"table": r.table_id, "at": r.at, **shown(r.mu, r.sigma, r.games)} for r in rows]
