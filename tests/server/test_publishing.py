"""An update is encoded once per kind of viewer (issue 14 §3): the text is exactly the protocol's
`UpdateMessage` for that viewer (RULES §12 is tested end to end in test_hidden_information)."""

from __future__ import annotations

import json
import random

from app.engine import conventions_from, shuffle_action
from app.engine.views import view
from app.protocol.messages import UpdateMessage
from app.server.publishing import outcome_message, update_text
from app.table import ServerMoves, start_game


def test_the_encoded_update_is_the_protocol_message_for_each_viewer() -> None:
    rng = random.Random(3)
    started = start_game(3, conventions_from("fspr-leningrad", {}), 0, now_ms=0,
                         moves=ServerMoves(lambda: shuffle_action(rng)))  # fmt: skip
    game = started.game
    clock = game.clock.snapshot(10)
    texts = set()
    for seat in (0, 1, 2, None):
        text = update_text(table_id=7, version=3, status=game.status.value, game=game,
                           events=list(started.events), seat=seat, clock=clock,
                           sheet=game.sheet.to_json(), outcome=None, actions=1)  # fmt: skip
        message = UpdateMessage.model_validate_json(text)
        expected = UpdateMessage(
            table=7, v=3, status=game.status.value,
            events=[{"kind": e.kind, "data": e.data} for e in started.events
                    if e.visible_to is None or (seat is not None and seat in e.visible_to)],  # type: ignore[misc]
            view=view(game.state, seat), clock=clock,
            legal=[a.to_json() for a in game.legal(seat)],
            sheet=game.sheet.to_json(), outcome=outcome_message(game), actions=1,
        )  # fmt: skip
        assert message == expected
        assert json.loads(text) == json.loads(expected.model_dump_json())
        texts.add(text)
    assert len(texts) == 4  # each seat's view shows its own hand; the spectator's none
