"""Admission (issue 26 §1.2, issue 24): at most ``slots`` API requests in progress, the next refused at once
with 503 ``busy``; of those at most ``running`` run at once, the others waiting their turn in order; a
request that waits for a table actor, holding no pooled connection, gives its place back
(`waiting_off_the_pool`) and keeps its turn; one that waits for the solver gives its turn back
(`step_aside`) and keeps its place."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.types import Receive, Scope, Send

from app.server.http.admission import Admission, Places, step_aside, waiting_off_the_pool


async def _give_back_both() -> None:
    step_aside()
    waiting_off_the_pool()


class Inner:
    """An ASGI app whose ``/api/wait`` requests wait for ``go`` (after giving their place back, if
    ``give_back``); every other request answers 200 at once."""

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.waiting = 0
        self.entered: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.entered.append(scope["path"])
        if scope["path"].startswith("/api/wait"):
            if scope["path"].endswith("give_back"):
                waiting_off_the_pool()
                waiting_off_the_pool()  # a second call changes nothing: the place was given back once
            elif scope["path"].endswith("give_turn"):
                step_aside()
                step_aside()
            elif scope["path"].endswith("other_task"):
                # A task started by the request inherits its context, not its place or turn.
                await asyncio.create_task(_give_back_both())
            self.waiting += 1
            await self.go.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


async def _get(app: Admission, path: str) -> tuple[int, dict[bytes, bytes], Any]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    await app({"type": "http", "path": path, "method": "GET", "headers": []}, receive, send)
    start, body = sent
    return start["status"], dict(start["headers"]), json.loads(body["body"])


async def _until_waiting(inner: Inner, count: int) -> None:
    for _ in range(1000):
        if inner.waiting >= count:
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the request never reached the app")


async def test_a_request_holding_its_place_turns_the_next_away() -> None:
    inner = Inner()
    admission = Admission(inner, slots=1)
    held = asyncio.create_task(_get(admission, "/api/wait"))
    await _until_waiting(inner, 1)
    status, headers, body = await _get(admission, "/api/tables")
    assert status == 503 and body["error"] == "busy" and headers[b"retry-after"] == b"1"
    assert admission.places.refused == 1
    assert (await _get(admission, "/api/health"))[0] == 200  # the health check is never refused
    inner.go.set()
    assert (await held)[0] == 200
    assert admission.places.active == 0
    assert (await _get(admission, "/api/tables"))[0] == 200


async def test_the_tables_sockets_lane_counts_in_the_same_places_as_the_app() -> None:
    """The app's tables' sockets skip its middleware stack for a lane of their own (`ServerApp`), with
    its own `Admission` over the same places: a handshake there is turned away while API requests hold
    every place, and the other way round."""
    inner = Inner()
    places = Places(1)
    app = Admission(inner, places=places)
    handshakes: list[dict[str, Any]] = []

    async def accept(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "websocket.accept"})

    async def record(message: Any) -> None:
        handshakes.append(message)

    lane = Admission(accept, places=places)
    socket_scope = {"type": "websocket", "path": "/ws/tables/1", "headers": [],
                    "extensions": {"websocket.http.response": {}}}  # fmt: skip
    held = asyncio.create_task(_get(app, "/api/wait"))
    await _until_waiting(inner, 1)
    await lane(socket_scope, _no_message, record)
    assert handshakes[0]["type"] == "websocket.http.response.start" and handshakes[0]["status"] == 503
    assert places.refused == 1
    inner.go.set()
    await held
    handshakes.clear()
    await lane(socket_scope, _no_message, record)
    assert [m["type"] for m in handshakes] == ["websocket.accept"] and places.active == 0

    # The other way round: a handshake not yet answered holds the one place from the API's requests.
    answer = asyncio.Event()

    async def slow_accept(scope: Scope, receive: Receive, send: Send) -> None:
        await answer.wait()
        await send({"type": "websocket.accept"})

    waiting = asyncio.create_task(Admission(slow_accept, places=places)(socket_scope, _no_message, record))
    await _until(lambda: places.active == 1)
    assert (await _get(app, "/api/tables"))[0] == 503
    answer.set()
    await waiting
    assert (await _get(app, "/api/tables"))[0] == 200


async def _no_message() -> dict[str, Any]:
    raise AssertionError("nothing is read")


async def test_a_request_waiting_for_a_table_gives_its_place_to_the_next() -> None:
    inner = Inner()
    admission = Admission(inner, slots=1, running=2)
    waiting = asyncio.create_task(_get(admission, "/api/wait/give_back"))
    await _until_waiting(inner, 1)
    assert admission.places.active == 0
    second = asyncio.create_task(_get(admission, "/api/wait"))  # admitted: the place was given back
    await _until_waiting(inner, 2)
    assert admission.places.active == 1 and admission.places.refused == 0
    assert (await _get(admission, "/api/tables"))[0] == 503  # the second holds the one place
    inner.go.set()
    assert [(await waiting)[0], (await second)[0]] == [200, 200]
    assert admission.places.active == 0  # each place counted back once


async def _until(condition: Any) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the condition never held")


async def _one_waiting(path: str, *, slots: int, running: int) -> tuple[Inner, Admission, asyncio.Task[Any]]:
    """An admission over `Inner` and a request to ``path`` that has reached the app and waits there."""
    inner = Inner()
    admission = Admission(inner, slots=slots, running=running)
    task = asyncio.create_task(_get(admission, path))
    await _until(lambda: inner.waiting == 1)
    return inner, admission, task


async def test_admitted_requests_run_a_few_at_a_time_in_order() -> None:
    inner, admission, first = await _one_waiting("/api/wait/first", slots=4, running=1)
    second = asyncio.create_task(_get(admission, "/api/wait/second"))
    third = asyncio.create_task(_get(admission, "/api/tables"))
    await _until(lambda: admission.places.active == 3)
    assert inner.entered == ["/api/wait/first"]  # admitted, waiting their turn
    fourth = asyncio.create_task(_get(admission, "/api/tables"))
    await _until(lambda: admission.places.active == 4)
    assert (await _get(admission, "/api/tables"))[0] == 503  # no place left
    inner.go.set()
    results = await asyncio.gather(first, second, third, fourth)
    assert [status for status, _, _ in results] == [200, 200, 200, 200]
    assert inner.entered == ["/api/wait/first", "/api/wait/second", "/api/tables", "/api/tables"]
    assert admission.places.active == 0


async def test_a_request_off_the_pool_keeps_its_turn() -> None:
    """`waiting_off_the_pool` gives the place back, not the turn (`step_aside` does that)."""
    inner, admission, waiting = await _one_waiting("/api/wait/give_back", slots=2, running=1)
    assert admission.places.active == 0
    second = asyncio.create_task(_get(admission, "/api/tables"))
    await _until(lambda: admission.places.active == 1)  # admitted into the place given back ...
    assert inner.entered == ["/api/wait/give_back"]  # ... but waiting for the turn
    inner.go.set()
    assert [(await waiting)[0], (await second)[0]] == [200, 200]
    assert inner.entered == ["/api/wait/give_back", "/api/tables"]
    assert admission.places.active == 0


async def test_a_request_step_aside_gives_its_turn_but_keeps_its_place() -> None:
    inner, admission, solving = await _one_waiting("/api/wait/give_turn", slots=2, running=1)
    assert admission.places.active == 1  # its place is still its own (it may read the database afterwards)
    assert (await _get(admission, "/api/tables"))[0] == 200  # the turn was free
    held = asyncio.create_task(_get(admission, "/api/wait"))
    await _until(lambda: inner.waiting == 2)
    assert (await _get(admission, "/api/tables"))[0] == 503  # both places taken
    inner.go.set()
    assert [(await solving)[0], (await held)[0]] == [200, 200]
    assert admission.places.active == 0


async def test_a_request_cancelled_while_waiting_for_its_turn_gives_its_place_back() -> None:
    inner, admission, held = await _one_waiting("/api/wait", slots=3, running=1)
    queued = asyncio.create_task(_get(admission, "/api/tables"))
    await _until(lambda: admission.places.active == 2)
    queued.cancel()  # its client went away
    await asyncio.gather(queued, return_exceptions=True)
    assert admission.places.active == 1
    inner.go.set()
    assert (await held)[0] == 200
    assert (await _get(admission, "/api/tables"))[0] == 200  # the turn was not lost with it
    assert admission.places.active == 0


async def test_a_task_started_by_a_request_gives_back_nothing_of_it() -> None:
    inner, admission, held = await _one_waiting("/api/wait/other_task", slots=2, running=1)
    assert admission.places.active == 1  # its place is its own still
    queued = asyncio.create_task(_get(admission, "/api/tables"))
    await _until(lambda: admission.places.active == 2)
    assert "/api/tables" not in inner.entered  # and so is its turn
    inner.go.set()
    assert [(await held)[0], (await queued)[0]] == [200, 200]


class SlowReader:
    """An app whose answer starts at once and whose body goes out when ``go`` is set."""

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.started = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        self.started += 1
        if scope["path"] == "/api/slow":
            await self.go.wait()
        await send({"type": "http.response.body", "body": b"{}"})


async def test_an_answer_being_sent_holds_no_turn() -> None:
    inner = SlowReader()
    admission = Admission(inner, slots=2, running=1)
    slow = asyncio.create_task(_get(admission, "/api/slow"))
    await _until(lambda: inner.started == 1)
    # It runs while the first answer is going out (bounded: without that it would wait for ever).
    assert (await asyncio.wait_for(_get(admission, "/api/tables"), 30))[0] == 200
    inner.go.set()
    assert (await slow)[0] == 200
    assert admission.places.active == 0
