"""What a move leaves for the cycle collector to scan (issue 24).

A step's write lives until its batch commits and a table's view cache as long as its version: both are
met by the collector's young passes, every move of every table. What they hold beyond the game
itself is kept to a few tracked objects: the JSON columns encoded at once, the rare rows empty tuples, and
no public view kept for a snapshot that may never come. A snapshot built after the update is still the
protocol's message."""

from __future__ import annotations

import gc
import random

import orjson

from app.engine import conventions_from, shuffle_action
from app.engine.views import view
from app.protocol.messages import SeatInfo, SnapshotMessage
from app.server.connections.publishing import ViewCache, publish_update, send_snapshot
from app.server.storage import StepWrite
from app.table import Game, SeatAction, ServerMoves, Step, start_game, step
from tests.server.helpers import CollectingConnection


def _tracked_beyond(root: object, known: object) -> list[object]:
    """Tracked objects reachable from ``root`` (itself left out) and not from ``known`` (the game)."""
    shared: set[int] = set()
    todo = [known]
    while todo:
        item = todo.pop()
        if id(item) in shared or not gc.is_tracked(item):
            continue
        shared.add(id(item))
        todo.extend(gc.get_referents(item))
    found: dict[int, object] = {id(root): root}
    todo = list(gc.get_referents(root))
    while todo:
        item = todo.pop()
        if id(item) in shared or id(item) in found or not gc.is_tracked(item) or isinstance(item, type):
            continue
        found[id(item)] = item
        todo.extend(gc.get_referents(item))
    del found[id(root)]
    return list(found.values())


def _played(seed: int, moves: int) -> tuple[Game, Step]:
    """A game ``moves`` random legal actions into its first deal, and its last step."""
    rng = random.Random(seed)
    server = ServerMoves(lambda: shuffle_action(rng))
    result = start_game(3, conventions_from("fspr-leningrad", {}), 0, now_ms=0, moves=server)
    for n in range(moves):
        game = result.game
        seat = next(s for s in range(3) if game.legal(s))
        result = step(game, SeatAction(seat, rng.choice(game.legal(seat))), now_ms=10 * (n + 1), moves=server)
    return result.game, result


def test_a_steps_write_holds_its_json_columns_encoded() -> None:
    before, _ = _played(1, 3)
    seat = next(s for s in range(3) if before.legal(s))
    rng = random.Random(2)
    server = ServerMoves(lambda: shuffle_action(rng))
    result = step(before, SeatAction(seat, before.legal(seat)[0]), now_ms=100, moves=server)
    write = StepWrite()
    stored = write.add_step(
        7, before, result, first_seq=4, users=[1, 2, 3], clock=result.game.clock.to_json()
    )
    assert stored == len(result.applied) >= 1
    extra = _tracked_beyond(write, result)
    # Its list of action rows, and nothing else: a row's JSON (the action, its clocks) is encoded.
    assert len(extra) == 1 and extra[0] is write.actions, [type(o).__name__ for o in extra]
    for row, applied in zip(write.actions, result.applied, strict=True):
        assert orjson.loads(orjson.dumps(row["action"])) == applied.action.to_json()
        assert orjson.loads(orjson.dumps(row["clock"])) == applied.clock.to_json()
    assert orjson.loads(orjson.dumps(write.table["clock"])) == result.game.clock.to_json()


def test_the_view_cache_keeps_no_view_tree_and_its_snapshot_is_still_the_protocols() -> None:
    game, result = _played(3, 5)
    cache = ViewCache()
    conns = [CollectingConnection(seat) for seat in (0, 1, 2, None)]
    publish_update(conns, table_id=7, version=9, status=game.status.value, game=game,  # type: ignore[arg-type]
                   events=result.events, sheet_changed=False, now_ms=50, actions=9, cache=cache)  # fmt: skip
    assert all(len(c.frames) == 1 for c in conns)
    assert _tracked_beyond(cache, game) == []
    seats = [SeatInfo(seat=s, user=f"u{s}", connected=True) for s in range(3)]
    for conn in conns:
        send_snapshot(conn, table_id=7, version=9, status="playing", seats=seats, game=game,  # type: ignore[arg-type]
                      last_seq=2, now_ms=60, actions=9, cache=cache)  # fmt: skip
        snapshot = SnapshotMessage.model_validate_json(conn.frames[-1])
        assert snapshot.view == view(game.state, conn.seat)
        assert snapshot.legal == [a.to_json() for a in game.legal(conn.seat)]
