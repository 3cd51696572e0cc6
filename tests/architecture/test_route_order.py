"""The routes are tried in the order of their traffic, and that order decides no request (issue 24).

The router tries its routes in order, each at a cost (`docs/capacity-log.md`, "FastAPI's router"), so the
health checks and what the pages ask every few seconds (the lobby, a tournament, a broadcast) come first.
That is safe only while no path is matched by the routes of two routers, but for the captains' calls, whose
literal paths the tournaments' ``{tournament_id}`` would match too. The routers are read as FastAPI 0.165
keeps them, one route each (``original_router``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI

from app.server.app import create_app
from app.server.http.routes import broadcast, captains, lobby, ratings, tournaments
from app.server.settings import Settings


def _app(docs: bool = True) -> FastAPI:
    return create_app(Settings(database_url="sqlite+aiosqlite://", token_secret="s" * 40, api_docs=docs))


def _index(app: FastAPI, router: Any) -> int:
    """Where ``router`` is included in the app's list of routes."""
    return next(
        i for i, top in enumerate(app.router.routes) if getattr(top, "original_router", None) is router
    )


def _routes(app: FastAPI) -> Iterator[tuple[int, str, re.Pattern[str]]]:
    """Each route with a path, in the order tried: the index of its route (or its router) in the app's
    list, its path and the regex it is matched by."""
    for index, top in enumerate(app.router.routes):
        router = getattr(top, "original_router", None)  # an included router, kept as one route
        for route in router.routes if router is not None else [top]:
            path, regex = getattr(route, "path", None), getattr(route, "path_regex", None)
            if path is not None and regex is not None:
                yield index, path, regex


def _samples(path: str, literals: dict[int, set[str]]) -> Iterator[str]:
    """Paths ``path`` matches: each of its parameters a number, or any literal segment another route has
    in that place (where a literal of one route meets a parameter of another)."""
    parts = path.strip("/").split("/")
    choices = [["1", *sorted(literals.get(i, ()))] if "{" in part else [part] for i, part in enumerate(parts)]
    for combination in itertools.product(*choices):
        yield "/" + "/".join(combination)


def test_no_path_is_matched_by_two_routers_but_the_captains_before_the_tournaments() -> None:
    app = _app()
    routes = list(_routes(app))
    assert len(routes) > 100
    literals: dict[int, set[str]] = {}
    for _, path, _ in routes:
        for i, part in enumerate(path.strip("/").split("/")):
            if "{" not in part:
                literals.setdefault(i, set()).add(part)
    shared = set()
    for index, path, _ in routes:
        for sample in _samples(path, literals):
            for other_index, other_path, regex in routes:
                if other_index != index and regex.match(sample):
                    first, second = sorted([(index, path), (other_index, other_path)])
                    shared.add((first[0], second[0], first[1]))
    assert shared  # the check finds what it is there for
    pair = (_index(app, captains.router), _index(app, tournaments.router))
    assert {(first, second) for first, second, _ in shared} == {pair}
    # The captains' literal paths come first: "captain-calls" is no tournament's id.
    assert all(path.startswith("/api/tournaments/captain-calls") for _, _, path in shared)


def test_the_health_check_comes_first_and_what_pages_poll_before_the_rest() -> None:
    for docs in (False, True):
        app = _app(docs)
        paths = [getattr(route, "path", None) for route in app.router.routes]
        first = paths.index("/api/health")
        assert set(paths[:first]) <= {"/openapi.json"}  # FastAPI's own schema, when the docs are on
        routers = sum(1 for top in app.router.routes if hasattr(top, "original_router"))
        polled = [lobby.router, ratings.router, tournaments.router, broadcast.router]
        assert routers > 10 and max(_index(app, r) for r in polled) < routers / 2
