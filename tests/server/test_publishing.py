"""An update is encoded once per kind of viewer (issue 14 §3): the text is exactly the protocol's
`UpdateMessage` for that viewer (RULES §12 is tested end to end in test_hidden_information)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from app.engine import conventions_from, shuffle_action
from app.engine.scoring import ScoreSheet
from app.engine.views import view
from app.protocol.messages import SeatInfo, SnapshotMessage, UpdateMessage
from app.server.connections.publishing import ViewCache, outcome_message, publish_update, send_snapshot
from app.table import ServerMoves, start_game
from tests.server.helpers import CollectingConnection


def test_the_encoded_update_is_the_protocol_message_for_each_viewer() -> None:
    rng = random.Random(3)
    started = start_game(3, conventions_from("fspr-leningrad", {}), 0, now_ms=0,
                         moves=ServerMoves(lambda: shuffle_action(rng)))  # fmt: skip
    game = started.game
    clock = game.clock.snapshot(10)
    conns = [CollectingConnection(seat) for seat in (0, 1, 2, None, 1)]
    publish_update(conns, table_id=7, version=3, status=game.status.value, game=game,  # type: ignore[arg-type]
                   events=started.events, sheet_changed=True, now_ms=10, actions=1)  # fmt: skip
    texts = set()
    for conn in conns:
        seat = conn.seat
        (text,) = conn.frames
        message = UpdateMessage.model_validate_json(text)
        expected = UpdateMessage(
            table=7, v=3, status=game.status.value,
            events=[{"kind": e.kind, "data": e.data} for e in started.events
                    if e.visible_to is None or (seat is not None and seat in e.visible_to)],
            view=view(game.state, seat), clock=clock,
            legal=[a.to_json() for a in game.legal(seat)],
            sheet=game.sheet.to_json(), outcome=outcome_message(game), actions=1,
        )  # fmt: skip
        assert message == expected
        assert json.loads(text) == json.loads(expected.model_dump_json())
        texts.add(text)
    assert len(texts) == 4  # each seat's view shows its own hand; the spectator's none
    assert conns[1].frames[0] is conns[4].frames[0]  # one text for the connections of one viewer


def test_a_snapshot_is_the_protocol_message_built_from_parts_encoded_once_per_version() -> None:
    """Issue 13 §1: a resync costs the clocks and the seats, not the view, legal actions and sheet again."""
    rng = random.Random(5)
    started = start_game(3, conventions_from("fspr-leningrad", {}), 0, now_ms=0,
                         moves=ServerMoves(lambda: shuffle_action(rng)))  # fmt: skip
    game = started.game
    cache = ViewCache()
    seats = [SeatInfo(seat=s, user=f"u{s}", connected=True) for s in range(3)]
    for seat in (0, 1, 2, None):
        conn = CollectingConnection(seat)
        for now in (10, 20):
            send_snapshot(conn, table_id=7, version=3, status="playing", seats=seats, game=game,  # type: ignore[arg-type]
                          last_seq=4, now_ms=now, actions=1, cache=cache)  # fmt: skip
        assert not conn.resync_pending
        first, second = (SnapshotMessage.model_validate_json(t) for t in conn.frames)
        expected = SnapshotMessage(
            table=7, v=3, status="playing", seat=seat, seats=seats, view=view(game.state, seat),
            clock=game.clock.snapshot(10), legal=[a.to_json() for a in game.legal(seat)],
            sheet=game.sheet.to_json(), outcome=None, last_seq=4, actions=1,
        )  # fmt: skip
        assert first == expected
        assert json.loads(conn.frames[0]) == json.loads(expected.model_dump_json())
        assert second.clock == game.clock.snapshot(20)  # the clocks are read at each snapshot
    parts = dict(cache.parts)
    sheet_json = cache.sheet_json
    assert set(parts) == {0, 1, 2, None}
    assert cache.view_and_legal(3, game, 0) is parts[0] and cache.sheet_of(game) is sheet_json
    # A new version builds the parts again; the sheet is encoded again only when it is another sheet.
    assert cache.view_and_legal(4, game, 0) is not parts[0] and cache.sheet_of(game) is sheet_json
    assert cache.sheet_of(replace(game, sheet=ScoreSheet.new(3, game.sheet.conventions))) is not sheet_json
