"""Hidden information in the browser: every frame a page received and every card its DOM held, checked
against what RULES.md §12 lets that seat know at that version (the rules as tests/server computes them)."""

from __future__ import annotations

from app.engine import action_from_json
from app.engine.conventions import Conventions
from tests.server.conftest import ADMIN, ServerProcess, login
from tests.server.test_hidden_information import card_texts_in, knowledge, states_after_each_action
from tests.web.site import Player


async def assert_no_leak(
    server: ServerProcess, table_id: int, players: list[Player], *, dom_recorded: bool = True
) -> int:
    """Returns how many frames and DOM reads were checked; a spectator (seat None) sees only the public."""
    admin = await login(server, ADMIN)
    try:
        log_json = await admin.call("GET", f"/api/admin/tables/{table_id}/log")
    finally:
        await admin.close()
    log = [action_from_json(row["action"]) for row in log_json["actions"]]
    seats = int(log_json["seats"])
    states = states_after_each_action(
        log, seats, Conventions.model_validate(log_json["conventions"]), log_json["first_dealer"]
    )

    def allowed(applied: int, seat: int | None) -> frozenset[str]:
        return knowledge(*states[applied], seat)

    checked = 0
    own_seen = 0
    for player in players:
        applied = 0
        for frame in player.frames:
            before = applied
            if frame.get("type") in ("snapshot", "update"):
                applied = int(frame["actions"])
                assert before <= applied <= len(log)
            # An update is one step, which may hold several actions (a card, then the next shuffle): it may
            # show what any state within the step lets the seat know, and nothing else.
            first = before if frame.get("type") == "update" else applied
            may_know = frozenset().union(*(allowed(i, player.seat) for i in range(first, applied + 1)))
            leaked = card_texts_in(frame) - may_know
            assert not leaked, f"seat {player.seat} received {sorted(leaked)} at action {applied}: {frame}"
            checked += 1
        for applied, cards in player.dom:
            # The page shows the state after its last step.
            leaked = set(cards) - allowed(applied, player.seat)
            assert not leaked, f"seat {player.seat}'s page showed {sorted(leaked)} after action {applied}"
            own_seen += bool(cards)
            checked += 1
    if dom_recorded:
        assert own_seen > 10, "the DOM check is vacuous: pages never showed cards"
    return checked
