"""Double-dummy solving of positions: `solve`, `analyse`, `declarer_makes`, and the `Solver` session.

Values count the declarer's tricks from the position to the end of the deal, the current trick included,
under optimal play by all sides (RULES.md §10): in a trick contract the declarer maximises them and the
defenders minimise them; in misère the other way round.

The solver reads no clock. ``node_budget`` counts search nodes, deterministically: the same position
always stops at the same node in either kernel, on any machine; exceeding it raises
`SolverBudgetExceeded` and decides nothing. A session may carry a `CancelToken` that another thread
raises to stop a search (`SolverCancelled`): that is the server's wall-time guard, kept out of here.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.cards import DECK, Card
from app.solver import _impl
from app.solver._pure import MODE_ANALYSE, MODE_BEST, MODE_TEST, MODE_VALUE
from app.solver.cancel import CancelToken
from app.solver.errors import InvalidPosition, SolverBudgetExceeded
from app.solver.position import Position


@dataclass(frozen=True, slots=True)
class Solution:
    """The value of a position and the optimal cards of the player to move.

    ``best`` is ordered by card index (suit-major). The robot that finishes a deal plays `lowest`: the
    optimal card of lowest rank, ties broken by suit order ♠ ♣ ♦ ♥ (RULES.md §8.4 "lowest optimal card").
    """

    declarer_tricks: int
    best: tuple[Card, ...]
    nodes: int

    @property
    def lowest(self) -> Card:
        if not self.best:
            raise InvalidPosition("no card to play: the deal is over")
        return min(self.best, key=lambda c: (c.rank, c.suit))


def _masks(position: Position) -> tuple[int, int, int]:
    h0, h1, h2 = (sum(1 << c.index for c in hand) for hand in position.hands)
    return h0, h1, h2


def _run_cards(position: Position, head: Card) -> list[Card]:
    """``head`` and the cards of the same hand it is interchangeable with (no other live card between)."""
    hand = position.hands[position.mover]
    live = {c.index for h in position.hands for c in h} | {c.index for c in position.trick}
    mine = {c.index for c in hand}
    out = [head]
    index = head.index + 1
    while index < (head.suit + 1) * 8:
        if index in live:
            if index not in mine:
                break
            out.append(DECK[index])
        index += 1
    return out


def _run_heads(position: Position) -> list[Card]:
    """The lowest card of each run of interchangeable legal cards (an optimal run's head is optimal)."""
    live = {c.index for h in position.hands for c in h} | {c.index for c in position.trick}
    mine = {c.index for c in position.hands[position.mover]}
    heads = []
    for card in position.legal_cards():
        below = card.index - 1
        while below >= card.suit * 8 and below not in live:
            below -= 1
        if below < card.suit * 8 or below not in mine:
            heads.append(card)
    return heads


class Solver:
    """A solving session: keeps one transposition table warm across the positions it is given.

    Results never depend on the table's contents, only node counts (and so budgets) do; the robot
    therefore empties it (`clear`) before each decision, so that whether a decision fits its budget
    depends on the position alone (`app.autoplay.robot.SolverRobot`). The compiled search releases
    the GIL, so sessions in different threads run in parallel; one session must not be shared between
    threads. ``cancel``: a token watched by every search of the session (see `app.solver.cancel`).
    """

    def __init__(
        self,
        implementation: str | None = None,
        *,
        table_limit: int | None = None,
        cancel: CancelToken | None = None,
    ) -> None:
        name = implementation or _impl.IMPLEMENTATION
        try:
            factory = _impl.KERNELS[name]
        except KeyError:
            raise ValueError(f"solver implementation {name!r} is not available here") from None
        self.implementation = name
        # table_limit caps the positions kept (12 bytes a slot compiled, at most 2 slots per position);
        # past it the table is emptied and refilled, which costs time, never correctness.
        self._kernel = factory() if table_limit is None else factory(table_limit)
        self.cancel = cancel
        self._nodes = 0

    def _run(
        self, position: Position, mode: int, beta: int, node_budget: int | None
    ) -> tuple[int, list[tuple[int, int]]]:
        try:
            return self._kernel.run(
                _masks(position),
                -1 if position.trump is None else int(position.trump),
                position.misere,
                position.declarer,
                position.leader,
                tuple(c.index for c in position.trick),
                mode,
                beta,
                node_budget or 0,
                self.cancel,
            )
        finally:
            self._nodes = int(self._kernel.nodes)

    @property
    def nodes(self) -> int:
        """Search nodes of the last call (all its searches for `lowest_optimal`)."""
        return self._nodes

    def solve(self, position: Position, *, node_budget: int | None = None) -> Solution:
        if position.tricks_left == 0:
            return Solution(0, (), 0)
        value, heads = self._run(position, MODE_BEST, 0, node_budget)
        best = [card for c, ok in heads if ok for card in _run_cards(position, DECK[c])]
        return Solution(value, tuple(sorted(best, key=lambda c: c.index)), self.nodes)

    def analyse(self, position: Position, *, node_budget: int | None = None) -> dict[Card, int]:
        if position.tricks_left == 0:
            return {}
        _, heads = self._run(position, MODE_ANALYSE, 0, node_budget)
        out = {card: v for c, v in heads for card in _run_cards(position, DECK[c])}
        return dict(sorted(out.items(), key=lambda kv: kv[0].index))

    def declarer_makes(self, position: Position, tricks: int, *, node_budget: int | None = None) -> bool:
        """Whether the declarer takes at least ``tricks`` from here (a single null-window search)."""
        value, _ = self._run(position, MODE_TEST, tricks, node_budget)
        return value == 1

    def lowest_optimal(self, position: Position, *, node_budget: int | None = None) -> tuple[Card, int]:
        """The card the robot plays (`Solution.lowest`) and the position's value, found faster than `solve`.

        Only as many cards are tested as it takes to find the first optimal one in (rank, suit) order.
        ``node_budget`` applies to the whole call (`nodes` then counts all its searches).
        """
        if position.tricks_left == 0:
            raise InvalidPosition("no card to play: the deal is over")
        spent = 0

        def run(at: Position, mode: int, beta: int) -> int:
            nonlocal spent
            left = None if node_budget is None else node_budget - spent
            if left is not None and left <= 0:
                raise SolverBudgetExceeded(f"solver stopped after {spent} nodes: node budget exceeded", spent)
            try:
                return self._run(at, mode, beta, left)[0]
            finally:
                spent += self._nodes
                self._nodes = spent

        value = run(position, MODE_VALUE, 0)
        maximiser = (position.mover == position.declarer) != position.misere
        for card in sorted(_run_heads(position), key=lambda c: (c.rank, c.suit)):
            child, taker = position.play(card)
            won = 1 if taker == position.declarer else 0
            if child.tricks_left == 0:
                optimal = won == value
            elif maximiser:
                optimal = run(child, MODE_TEST, value - won) == 1
            else:
                optimal = run(child, MODE_TEST, value + 1 - won) == 0
            if optimal:
                return card, value
        raise AssertionError("a position always has an optimal card")  # pragma: no cover

    def clear(self) -> None:
        self._kernel.clear()


def solve(
    position: Position,
    *,
    node_budget: int | None = None,
    implementation: str | None = None,
) -> Solution:
    """The declarer's tricks from here under optimal play, and the optimal cards of the player to move."""
    return Solver(implementation).solve(position, node_budget=node_budget)


def analyse(
    position: Position,
    *,
    node_budget: int | None = None,
    implementation: str | None = None,
) -> dict[Card, int]:
    """For every legal card: the declarer's tricks from here (this trick included) if it is played."""
    return Solver(implementation).analyse(position, node_budget=node_budget)


def declarer_makes(
    position: Position,
    tricks: int,
    *,
    node_budget: int | None = None,
    implementation: str | None = None,
) -> bool:
    """Whether the declarer takes at least ``tricks`` from here under optimal play."""
    return Solver(implementation).declarer_makes(position, tricks, node_budget=node_budget)


def play_out(
    position: Position,
    *,
    node_budget: int | None = None,
    implementation: str | None = None,
) -> list[tuple[int, Card]]:
    """The robot's play from ``position`` to the end: (seat, card) per card, each the lowest optimal card.

    RULES.md §8.4: every side plays optimally with all cards open, card by card, so each seat's tricks are
    real. ``node_budget`` applies to each card's decision; one session keeps the table warm across the deal.
    """
    session = Solver(implementation)
    played: list[tuple[int, Card]] = []
    while position.tricks_left:
        card, _ = session.lowest_optimal(position, node_budget=node_budget)
        played.append((position.mover, card))
        position, _ = position.play(card)
    return played
