"""The routers of issue 21 (what keeps players here), included by `app.server.app` together: ratings,
analysis, statistics, broadcast, export and import."""

from __future__ import annotations

from fastapi import APIRouter

from app.server.http.routes import analysis, broadcast, export, practice, ratings, stats

ROUTERS: tuple[APIRouter, ...] = (
    ratings.router,
    analysis.router,
    stats.router,
    broadcast.router,
    export.router,
    practice.router,
)
