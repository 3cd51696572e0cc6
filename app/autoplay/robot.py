"""The robots of §8.4 over the table state: the solver robot (§10) and the misère discard robot.

`position_of` maps a deal in card play onto the solver's three seats (the active seats in play order from
first hand; a 4-seat dealer takes no part in play).

Every decision is a function of the table state only: the budgets are node counts (the same on every
machine, in both kernels) and nothing here reads a clock, so a loaded machine plays the same cards, makes
the same discard and finishes or interrupts the same deals as an idle one. A card decision past
`DEFAULT_NODE_BUDGET` raises `SolverBudgetExceeded` and the procedure interrupts the deal — on every
machine alike. The wall time is the server's business (`app.server.tables.robot`): it may raise the robot's
`CancelToken` as a last resort, which stops the search with `SolverCancelled`.

Sizing (bench/solver.py "robot decisions", compiled kernel, the shared 2-core dev machine). Node counts
are the machine's no more than the decisions are: over 54 000 card decisions of 1800 deals played out by
the robot, the costliest took 112 k nodes (contracts) and 761 k (misère), a whole deal at most 1.6 M; the
discard robot's costliest playable misère hand took 13 M nodes (median 3 M). `DEFAULT_NODE_BUDGET`
(20 M, 26× the costliest card) and `DISCARD_NODE_BUDGET` (60 M, 4.8× the costliest discard) therefore
cut in only on positions far beyond anything measured, and the same ones on every machine. In seconds:
the kernel searched 11–19 M nodes/s on the quiet machine and 2.4–2.9 M with the machine ten times
oversubscribed, so both whole budgets together take about 4–7 s quiet and 33 s at worst: inside the
server's default guard of 60 s (``PREFERANS_ROBOT_GUARD_SECONDS``) even then.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.engine.actions import ClaimVerdict
from app.engine.cards import Card, Suit
from app.engine.state import TALON, Phase, TableState
from app.solver import CancelToken, Position, Solver, misere_discard
from app.solver.errors import InvalidPosition
from app.solver.misere import DISCARD_NODE_BUDGET

# Nodes for one card's decision (`Solver.lowest_optimal`, all its searches): see the module's sizing.
DEFAULT_NODE_BUDGET = 20_000_000


def position_of(state: TableState) -> Position:
    """The solver position of a deal in contract play (a game or misère), mid-trick included."""
    deal = state.deal
    if state.phase is not Phase.PLAY or deal is None or deal.allpass or deal.contract is None:
        raise InvalidPosition(f"no contract play in progress ({state.phase.value})")
    if deal.declarer is None or deal.turn is None or any(hand == TALON for hand, _ in deal.trick):
        raise InvalidPosition("the deal has no declarer or no hand to move")
    active = deal.active
    hands = tuple(deal.hands[seat] for seat in active)
    leader = deal.trick[0][0] if deal.trick else deal.turn
    return Position(
        hands=(hands[0], hands[1], hands[2]),
        trump=None if deal.trump is None else Suit(deal.trump),
        misere=deal.contract.is_misere,
        declarer=active.index(deal.declarer),
        leader=active.index(leader),
        trick=tuple(card for _, card in deal.trick),
    )


@dataclass
class SolverRobot:
    """Plays the lowest optimal card with all cards open (§10), and makes the misère discard (§8.4).

    Each card decision starts on an empty table: a warm one would be faster, but its node counts would
    then depend on the decisions made before in this run, and so whether a decision fits the budget
    would depend on where the run started (a player's live cards, a whister's choice in between), not
    on the position alone. ``cancel``: raised by the server's wall-time guard; every search watches it.
    """

    node_budget: int | None = DEFAULT_NODE_BUDGET
    discard_node_budget: int = DISCARD_NODE_BUDGET
    implementation: str | None = None
    cancel: CancelToken | None = None
    _session: Solver | None = field(default=None, init=False, repr=False)

    def play(self, state: TableState) -> Card:
        if self._session is None:
            self._session = Solver(self.implementation, cancel=self.cancel)
        self._session.clear()  # keeps the table's memory, not its contents: see the class docstring
        position = position_of(state)
        # Stops at the first optimal card in (rank, suit) order: the same card as `solve(...).lowest`.
        card, _ = self._session.lowest_optimal(position, node_budget=self.node_budget)
        return card

    def judge_claim(self, state: TableState) -> ClaimVerdict:
        """§4.10: the verdict on a rejected claim, from the true position, within the card budget."""
        from app.autoplay.claims import judge_claim

        return judge_claim(state, node_budget=self.node_budget, implementation=self.implementation,
                           cancel=self.cancel)  # fmt: skip

    def misere_discard(self, state: TableState) -> tuple[Card, Card]:
        """§8.4: from the declarer's twelve cards only; the other hands are not looked at."""
        deal = state.deal
        if state.phase is not Phase.DISCARD or deal is None or deal.declarer is None:
            raise InvalidPosition(f"no discard is due ({state.phase.value})")
        cards = deal.hands[deal.declarer]
        # The first lead is first hand's; the discard robot counts seats from the declarer, clockwise.
        leader = -deal.active.index(deal.declarer) % 3
        # A seed fixed by the hand: the same hand always gets the same discard (the action is recorded
        # anyway, so replays never call the robot again).
        seed = sum(1 << card.index for card in cards)
        return misere_discard(
            cards,
            seed=seed,
            leader=leader,
            node_budget=self.discard_node_budget,
            implementation=self.implementation,
            cancel=self.cancel,
        )
