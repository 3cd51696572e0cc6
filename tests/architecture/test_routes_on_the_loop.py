"""Every route's endpoint and dependencies are coroutines (issue 24).

FastAPI runs a plain function (or a plain generator) given as an endpoint or a dependency in its thread
pool: a hand-over to a thread and back for every request that uses it (for a dependency that only read
``request.app.state``, 0.44 ms of CPU a request against 0.23 as a coroutine, through httpx's ASGI
transport on 2026-12-04), and a thread taking the interpreter from the event loop that runs every table.
Work that is really slow goes to the server's own executors, explicitly, never to FastAPI's implicit pool.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.dependencies.models import Dependant

from app.server.analysis import policy
from app.server.app import create_app


def _routes(routes: list[Any]) -> Iterator[Any]:
    for route in routes:
        inner = getattr(route, "original_router", None)  # an included router, kept as it was included
        if inner is not None:
            yield from _routes(inner.routes)
        else:
            yield route


def _dependencies(dependant: Dependant) -> Iterator[Callable[..., Any]]:
    for sub in dependant.dependencies:
        if sub.call is not None:
            yield sub.call
        yield from _dependencies(sub)


def _on_the_loop(call: Callable[..., Any]) -> bool:
    target = call if inspect.isfunction(call) or inspect.ismethod(call) else type(call).__call__
    return inspect.iscoroutinefunction(target) or inspect.isasyncgenfunction(target)


def test_every_endpoint_and_dependency_of_every_route_is_a_coroutine(monkeypatch: pytest.MonkeyPatch) -> None:
    # Building the app registers the tournaments' analysis gate in the process: kept to this test.
    monkeypatch.setattr(policy, "_ROUND_GATES", [])
    app = create_app()
    routes = [route for route in _routes(app.routes) if getattr(route, "dependant", None) is not None]
    assert len(routes) > 100  # the walk reached the included routers' routes
    threaded = sorted(
        {
            f"{getattr(route, 'path', '?')}: {getattr(call, '__qualname__', call)}"
            for route in routes
            for call in (route.endpoint, *_dependencies(route.dependant))
            if not _on_the_loop(call)
        }
    )
    assert threaded == [], f"run in FastAPI's thread pool: {threaded}"
