"""A fourth player joins three between deals (RULES §7.7, [K 3.1.2], convention `fourth_may_join`).

The table grows from three seats to four: the newcomer sits to the left of the player who has just dealt
(seat ``dealer + 1``), every later seat moves up by one, and the next deal is his (`TableState.next_dealer`).
The deal just over is left behind: its record was the table's when it ended (§12), and its seats are the
old numbering, so the state keeps no deal — only the result the all-pass series reads (§6.5).
"""

from __future__ import annotations

from app.engine.actions import JoinFourth
from app.engine.errors import IllegalAction
from app.engine.events import Event, public
from app.engine.state import Phase, TableState
from app.engine.state import evolve as replace


def join_fourth(state: TableState, action: JoinFourth) -> tuple[TableState, list[Event]]:
    if not state.conventions.fourth_may_join:
        raise IllegalAction("join: the table's conventions let no fourth player join (fourth_may_join)")
    if state.seats != 3:
        raise IllegalAction(f"join: a fourth joins a table of three, not of {state.seats}")
    if state.phase not in (Phase.DEAL_OVER, Phase.INTERRUPTED) or state.deal_number == 0:
        raise IllegalAction(f"join: a fourth joins at the end of a deal, not during {state.phase.value}")
    if action.seat != state.dealer + 1:
        raise IllegalAction(f"join: the newcomer sits left of the last dealer (seat {state.dealer + 1})")
    # The dealer's own seat number does not move (only later seats do): the next deal is the newcomer's.
    joined = replace(state, seats=4, phase=Phase.AWAITING_DEAL, deal=None, interrupt_reason=None)
    return joined, [public("seat_joined", seat=action.seat, seats=4)]
