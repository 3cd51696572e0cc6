"""No frame sent to a seat or a spectator ever holds a card that viewer may not see (RULES.md §12).

Every frame of whole bot games is recorded for every seat and for a spectator. What each viewer may know
after each action is computed here from the action log (the shuffle records the deck), independently of
`app.engine.view`, and every card text found anywhere in a frame must be in that set.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.engine import (
    DECK,
    Action,
    CallWhist,
    ChoosePlay,
    Claim,
    DealerLook,
    InviteDealer,
    Phase,
    PlayMode,
    Shuffle,
    TableState,
    WhistCall,
    action_from_json,
    apply,
    new_table,
)
from app.engine.conventions import Conventions
from tests.server.conftest import ADMIN, ServerProcess, login
from tests.server.helpers import open_table, play_out

CARD = re.compile(r"^[scdh][789TJQKA]$")
ALL_CARDS = frozenset(c.text for c in DECK)


def card_texts_in(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, str):
        if CARD.match(value):
            found.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= card_texts_in(key) | card_texts_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= card_texts_in(item)
    return found


def knowledge(state: TableState, deal_actions: list[Action], viewer: int | None) -> frozenset[str]:
    """The cards ``viewer`` may know in this state, from the rules of §12 alone."""
    deal = state.deal
    if deal is None:
        return frozenset()
    if state.phase is Phase.DEAL_OVER:
        return ALL_CARDS  # the full record is shown to the table after the deal
    known: set[str] = set()

    def hand(seat: int) -> set[str]:
        return {c.text for c in deal.dealt[seat]}

    if viewer is not None and viewer in deal.active:
        known |= hand(viewer)
    # Played cards are public (talon cards led in an all-pass deal among them).
    known |= {c.text for trick in (*deal.tricks, deal.trick) for _, c in trick}
    auction_over = state.phase not in (Phase.BIDDING, Phase.DEALER_INVITATION)
    with_talon = deal.bid is not None and not deal.bid.no_talon
    if auction_over and with_talon and not deal.allpass:
        known |= {c.text for c in deal.talon}  # revealed by the declarer (§12)
    defenders = [s for s in deal.active if s != deal.declarer]
    opened = any(isinstance(a, ChoosePlay) and a.mode is PlayMode.OPEN for a in deal_actions)
    dealer_whist = state.seats == 4 and any(
        isinstance(a, CallWhist) and a.seat == state.dealer and a.call is WhistCall.WHIST
        for a in deal_actions
    )
    playing = state.phase in (Phase.PLAY, Phase.CLAIM)  # a claim (§4.10) stops play, hands stay down
    misere_down = deal.contract is not None and deal.contract.is_misere and playing
    if opened or dealer_whist or misere_down:
        for seat in defenders:
            known |= hand(seat)
    if deal.declarer is not None and any(isinstance(a, Claim) for a in deal_actions):
        known |= {c.text for c in deal.hands[deal.declarer]}  # §4.10, §12: shown to all once claimed
    if viewer is not None and state.seats == 4 and viewer == state.dealer:
        for action in deal_actions:
            if isinstance(action, DealerLook):
                known |= hand(action.target)
            elif isinstance(action, InviteDealer):
                known |= hand(action.seat)
    return frozenset(known)


def states_after_each_action(
    log: list[Action], seats: int, conventions: Conventions, first_dealer: int
) -> list[tuple[TableState, list[Action]]]:
    """(state, actions of its deal so far) after 0, 1, 2, … actions."""
    state = new_table(seats, conventions, first_dealer)
    out: list[tuple[TableState, list[Action]]] = [(state, [])]
    deal_actions: list[Action] = []
    for action in log:
        state, _ = apply(state, action)
        deal_actions = [action] if isinstance(action, Shuffle) else [*deal_actions, action]
        out.append((state, deal_actions))
    return out


@pytest.mark.parametrize("seats", [3, 4])
async def test_no_frame_leaks_a_card_its_viewer_may_not_see(sqlite_server: ServerProcess, seats: int) -> None:
    """§12: own hand; the talon once revealed or led; open/misère hands once shown; the declarer's hand
    once he claimed (§4.10: the bots claim now and then); the 4-seat dealer only the hand it was shown;
    spectators only the public part; everything once the deal is over."""
    pool = 4 if seats == 3 else 3
    table = await open_table(sqlite_server, seats, {"pool_size": pool}, record=True, spectator=True)
    try:
        finals = await play_out(table, seed=100 + seats, claims=True)
        assert finals[0]["status"] == "finished"
        admin = await login(sqlite_server, ADMIN)
        log_json = await admin.call("GET", f"/api/admin/tables/{table.id}/log")
        await admin.close()
        log = [action_from_json(row["action"]) for row in log_json["actions"]]
        conventions = Conventions.model_validate(log_json["conventions"])
        states = states_after_each_action(log, seats, conventions, log_json["first_dealer"])
        # A step may hold several actions (a card, then the next shuffle): a frame may show what any state
        # within its step lets the viewer know, and nothing else. ``actions`` is the log length after it.
        assert finals[0]["actions"] == len(log)

        viewers: list[tuple[int | None, Any]] = [(seat, c) for seat, c in enumerate(table.clients)]
        assert table.spectator is not None
        viewers.append((None, table.spectator))
        checked = 0
        own_cards_seen = 0
        for viewer, client in viewers:
            applied = 0
            for frame in client.frames:
                before = applied
                if frame["type"] in ("snapshot", "update"):
                    applied = int(frame["actions"])
                    assert before <= applied <= len(log)
                allowed: set[str] = set()
                for index in range(before if frame["type"] == "update" else applied, applied + 1):
                    allowed |= knowledge(*states[index], viewer)
                state, deal_actions = states[applied]
                leaked = card_texts_in(frame) - allowed
                assert not leaked, f"viewer {viewer} at {applied} ({state.phase.value}) saw {sorted(leaked)}"
                checked += 1
                if viewer is not None and state.deal is not None and viewer in state.deal.active:
                    own_cards_seen += bool(card_texts_in(frame) & knowledge(state, deal_actions, viewer))
        assert checked > 100
        assert any(isinstance(a, Claim) for a in log)  # claims were made, so their frames were audited
        assert own_cards_seen > 10  # the check is not vacuous: players do get their cards
    finally:
        await table.close()
