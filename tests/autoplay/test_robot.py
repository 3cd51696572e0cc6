"""The robots of RULES.md §8.4 and §10 finishing deals for a timed-out player, driven through the engine."""

from __future__ import annotations

from app.autoplay import REASON_SOLVER, close_after_timeout, timeout_actions
from app.autoplay.robot import SolverRobot, position_of
from app.engine import (
    Action,
    CallWhist,
    DealKind,
    Discard,
    Interrupt,
    MakeBid,
    NameContract,
    PassBid,
    Phase,
    PlayCard,
    TableState,
    TimeOut,
    WhistCall,
    apply,
    current_actor,
)
from app.engine.scoring.settlement import settle
from app.solver import Solver, misere_discard
from tests.autoplay.helpers import bid, dealt, drive, first_legal, play, sheet_for

WHIST = WhistCall.WHIST


def whisted_six(seed: int = 3, reserve_on: bool = True) -> TableState:
    """Seat 2 plays 6♠ with talon, both defenders whist: closed play, first hand (seat 1) to lead."""
    state = play(dealt(seed=seed, reserve_on=reserve_on), PassBid(1), MakeBid(2, bid("6s")), PassBid(0))
    assert state.deal is not None
    hand = state.deal.hands[2]
    state = play(state, Discard(2, (hand[0], hand[1])), NameContract(2, bid("6s")))
    state = play(state, CallWhist(0, WHIST), CallWhist(1, WHIST))
    assert state.phase is Phase.PLAY and current_actor(state) == 1
    return state


def replay_checking_each_card_is_lowest_optimal(state: TableState, actions: tuple[Action, ...]) -> None:
    solver = Solver()
    for action in actions:
        if isinstance(action, PlayCard):
            assert action.card is solver.solve(position_of(state)).lowest
        state, _ = apply(state, action)


def test_position_of_maps_the_active_seats_onto_solver_seats() -> None:
    """§10: three open hands in play order from first hand; declarer and leader mapped accordingly."""
    state = whisted_six()
    deal = state.deal
    assert deal is not None
    position = position_of(state)
    assert position.hands == tuple(deal.hands[s] for s in deal.active)
    assert deal.active == (1, 2, 0)
    assert (position.declarer, position.leader, position.trick, position.misere) == (1, 0, (), False)
    assert position.trump is not None and position.trump.letter == "s"
    state = play(state, first_legal(state))  # mid-trick: seat 1 led, seat 2 to play
    mid = position_of(state)
    assert mid.leader == 0 and mid.mover == 1 and len(mid.trick) == 1


def test_card_play_timeout_is_finished_by_the_solver_robot_card_by_card() -> None:
    """§8.4: a timeout in card play: the robot plays every side's lowest optimal card to the end (§10),
    each seat's tricks are real; then the penalty and the settlement (§8.5)."""
    state = whisted_six()
    value = Solver().solve(position_of(state)).declarer_tricks
    out = timeout_actions(state, 1, reserve_on=True, robot=SolverRobot())
    assert out.actions[0] == TimeOut(1)
    assert len(out.actions) == 31 and all(isinstance(a, PlayCard) for a in out.actions[1:])
    assert {a.seat for a in out.actions[1:] if isinstance(a, PlayCard)} == {0, 1, 2}
    result = out.state.last_result
    assert out.state.phase is Phase.DEAL_OVER and result is not None and result.tricks is not None
    assert result.kind is DealKind.GAME and sum(result.tricks.values()) == 10
    assert result.tricks[2] == value  # optimal play by all sides keeps the double-dummy value
    replay_checking_each_card_is_lowest_optimal(state, out.actions)
    start = sheet_for(state)
    close = close_after_timeout(start, out.state)
    deal_only = start.apply(result)
    assert [line.kind for line in close.sheet.history] == ["game", "timeout"]
    assert close.sheet.whists[0][1] - deal_only.whists[0][1] == 50
    assert close.sheet.whists[2][1] - deal_only.whists[2][1] == 50
    diff = [a - b for a, b in zip(settle(close.sheet).variant1, settle(deal_only).variant1, strict=True)]
    assert diff == [50, -100, 50]


def test_live_players_play_on_until_the_timed_out_seat_is_to_play() -> None:
    """§8.4: the other players go on with their own clocks; the robot takes over at the timed-out seat's
    turn in card play and then finishes the deal."""
    state = whisted_six(seed=4)
    for _ in range(7):  # two tricks and a bit, played live
        state = play(state, first_legal(state))
    state, outcomes = drive(state, {0}, reserve_on=True, robot=SolverRobot())
    assert state.phase is Phase.DEAL_OVER and len(outcomes) == 1
    assert outcomes[0].actions[0] == TimeOut(0)
    assert state.last_result is not None and state.last_result.timed_out == (0,)


def test_misere_declarer_timeout_before_the_discard_uses_the_discard_robot() -> None:
    """§8.4: a missing misère discard is made by the robot from the declarer's hand only; the misère is
    then finished by the solver robot."""
    state = play(dealt(seed=7), PassBid(1), MakeBid(2, bid("misere")), PassBid(0))
    assert state.phase is Phase.DISCARD and state.deal is not None
    twelve = state.deal.hands[2]
    out = timeout_actions(state, 2, reserve_on=True, robot=SolverRobot())
    assert out.actions[0] == TimeOut(2)
    discard = out.actions[1]
    assert isinstance(discard, Discard)
    # Declarer is solver seat 0 for the discard robot; first hand (seat 1) is the second seat after it.
    seed = sum(1 << c.index for c in twelve)
    assert discard.cards == misere_discard(twelve, seed=seed, leader=2)
    # §8.4 [ours]: from the takeover the robot plays every card, the live first hand's lead included.
    assert (
        out.state.phase is Phase.DEAL_OVER
        and all(isinstance(a, PlayCard) for a in out.actions[2:])
        and len(out.actions) == 2 + 30
    )
    state = out.state
    result = state.last_result
    assert result is not None and result.kind is DealKind.MISERE and result.tricks is not None
    assert sum(result.tricks.values()) == 10 and result.timed_out == (2,)
    close = close_after_timeout(sheet_for(state), state)
    assert close.penalised == (2,) and not close.provisional


def test_solver_over_budget_interrupts_the_deal_with_the_tricks_so_far() -> None:
    """§8.4: when the solver exceeds its budget the deal is archived as interrupted, with the tricks so far;
    the settlement is provisional."""
    state = whisted_six(seed=5)
    for _ in range(10):  # three tricks and one card, played live
        state = play(state, first_legal(state))
    seat = current_actor(state)
    assert seat is not None
    out = timeout_actions(state, seat, reserve_on=True, robot=SolverRobot(node_budget=1))
    assert out.actions == (TimeOut(seat), Interrupt(REASON_SOLVER))
    record = out.interrupted
    assert record is not None and out.state.phase is Phase.INTERRUPTED
    assert len(record.tricks) == 3 and len(record.trick) == 1
    assert sum(record.taken.values()) == 3 and record.contract == bid("6s")
    assert record.calls == ((0, WHIST), (1, WHIST))
    close = close_after_timeout(sheet_for(state), out.state)
    assert close.provisional and close.penalised == (seat,)


def test_reserve_off_card_play_is_finished_by_the_robot_without_penalty() -> None:
    """§8.2: reserve off — the robot acts by §8.4 until the deal ends; nothing marks a penalty."""
    state = whisted_six(reserve_on=False)
    out = timeout_actions(state, 1, reserve_on=False, robot=SolverRobot())
    assert not out.ends_game and TimeOut(1) not in out.actions
    result = out.state.last_result
    assert result is not None and result.timed_out == () and result.kind is DealKind.GAME
    sheet = sheet_for(state).apply(result)
    assert [line.kind for line in sheet.history] == ["game"]


def test_finish_or_interrupt_depends_on_the_position_not_on_where_the_robot_started() -> None:
    """A card decision's cost, and so whether it fits the node budget, is the position's alone: a robot
    that reaches a position after playing the cards before it decides there as one started at it.
    In this deal (seed 9) the fifth card costs more than the first on an empty table; with a budget
    between the two, a robot started at the deal's first card and one started at the fifth both
    interrupt the deal at the fifth card (a warm table would have let the first robot through)."""
    start = whisted_six(seed=9)
    state, costs = start, []
    while state.phase is Phase.PLAY:
        session = Solver()
        card, _ = session.lowest_optimal(position_of(state))
        costs.append(session.nodes)
        mover = current_actor(state)
        assert mover is not None
        state = play(state, PlayCard(mover, card))
    j = max(range(len(costs)), key=costs.__getitem__)
    assert j > 0 and costs[j] > costs[0]
    budget = costs[j] - 1
    seat = current_actor(start)
    assert seat is not None
    from_start = timeout_actions(start, seat, reserve_on=True, robot=SolverRobot(node_budget=budget))
    assert from_start.actions[-1] == Interrupt(REASON_SOLVER)
    played = [a for a in from_start.actions if isinstance(a, PlayCard)]
    assert len(played) == j  # the first j cards fitted; the costliest did not
    later = play(start, *played)
    seat = current_actor(later)
    assert seat is not None
    from_later = timeout_actions(later, seat, reserve_on=True, robot=SolverRobot(node_budget=budget))
    assert [a for a in from_later.actions if not isinstance(a, TimeOut)] == [Interrupt(REASON_SOLVER)]
    assert from_later.interrupted is not None and from_start.interrupted is not None
    assert from_later.interrupted.tricks == from_start.interrupted.tricks
