"""Every route's endpoint and dependencies are coroutines (issue 24).

FastAPI runs a plain function (or a plain generator) given as an endpoint or a dependency in its thread
pool: a hand-over to a thread and back for every request that uses it, and a thread taking the
interpreter from the event loop that runs every table. Work that is really slow goes to the server's own
executors, explicitly. (Starlette still reads the static files through its thread pool.)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

from fastapi.dependencies.models import Dependant

from app.server.app import create_app
from app.server.settings import Settings


def _routes(routes: list[Any], included: tuple[Any, ...] = ()) -> Iterator[tuple[Any, tuple[Any, ...]]]:
    """Each route with the dependencies its routers were included with."""
    for route in routes:
        inner = getattr(route, "original_router", None)  # an included router, kept as it was included
        if inner is not None:
            context = route.include_context
            yield from _routes(inner.routes, included + tuple(context.dependencies or ()))
        else:
            yield route, included


def _dependencies(dependant: Dependant) -> Iterator[Callable[..., Any]]:
    for sub in dependant.dependencies:
        if sub.call is not None:
            yield sub.call
        yield from _dependencies(sub)


def _on_the_loop(call: Callable[..., Any]) -> bool:
    target = call if inspect.isfunction(call) or inspect.ismethod(call) else type(call).__call__
    return inspect.iscoroutinefunction(target) or inspect.isasyncgenfunction(target)


def test_every_endpoint_and_dependency_of_every_route_is_a_coroutine() -> None:
    app = create_app(Settings(database_url="sqlite+aiosqlite://", token_secret="s" * 40, api_docs=True))
    routes = [(r, inc) for r, inc in _routes(app.routes) if getattr(r, "dependant", None) is not None]
    assert len(routes) > 100  # the walk reached the included routers' routes
    calls = [
        (route, call)
        for route, included in routes
        for call in (
            route.endpoint,
            *(d.dependency for d in (*app.router.dependencies, *included) if d.dependency is not None),
            *_dependencies(route.dependant),
        )
    ]
    threaded = sorted(
        {
            f"{getattr(r, 'path', '?')}: {getattr(c, '__qualname__', c)}"
            for r, c in calls
            if not _on_the_loop(c)
        }
    )
    assert threaded == [], f"run in FastAPI's thread pool: {threaded}"
