"""The defence before play: whist, pass or half-whist (gentleman and return included), the dealer's look and
whist, and the lone whister's open or closed play.

Each call is priced by where it leads: the rest of the dialogue is played out with the engine's own
whisting rules (`app.engine.whisting.next_step`), the other players assumed to pass (the cautious
reading: nobody rescues a bad call), and the outcome is scored by the scoring engine on the declarer's
double-dummy tricks of sampled layouts (the declarer's hand drawn to fit his contract). The robot makes
the call of highest mean balance. A lone whister always plays open: the two defender hands are then
played together, as the double-dummy judgement assumed.
"""

from __future__ import annotations

import random
from fractions import Fraction

from app.engine.actions import Action, CallWhist, ChoosePlay, DealerLook
from app.engine.bids import Bid
from app.engine.cards import Card
from app.engine.conventions import Conventions
from app.engine.result import DealKind, DealResult, PlayMode, WhistCall
from app.engine.whisting import Outcome, next_step
from app.robots.handeval import quick_tricks
from app.robots.knowledge import Knowledge
from app.robots.layouts import Layout, full_hands, layouts
from app.robots.levels import Level
from app.robots.search import declarer_tricks, position
from app.robots.value import deal_balance
from app.solver import Solver

Calls = tuple[tuple[int, WhistCall], ...]
_MIN_LAYOUTS = 3


def defenders(know: Knowledge) -> tuple[int, int]:
    assert know.declarer is not None
    i = know.active.index(know.declarer)
    return know.active[(i + 1) % 3], know.active[(i + 2) % 3]


def _sitting_out_dealer(know: Knowledge) -> int | None:
    return know.dealer if know.seats == 4 else None


def play_dialogue(know: Knowledge, contract: Bid, calls: Calls, conv: Conventions) -> tuple[Calls, Outcome]:
    """Finish the whist dialogue from ``calls``: this seat repeats a whist, everybody else passes."""
    while True:
        step = next_step(calls, defenders(know), contract, conv, _sitting_out_dealer(know))
        if isinstance(step, Outcome):
            return calls, step
        if step.seat == know.seat and WhistCall.WHIST in step.calls:
            call = WhistCall.WHIST
        else:
            call = WhistCall.PASS if WhistCall.PASS in step.calls else step.calls[0]
        calls = (*calls, (step.seat, call))


def outcome_result(
    know: Knowledge, contract: Bid, calls: Calls, outcome: Outcome, tricks: int, *, mine_first: bool
) -> DealResult:
    """The deal's result for this dialogue and the declarer's ``tricks`` (as `machine._result` records it)."""
    assert know.declarer is not None
    recorded: list[tuple[int, WhistCall]] = []
    for seat, call in calls:
        if call is WhistCall.WHIST and (seat, WhistCall.WHIST) in recorded:
            continue
        recorded.append((seat, call))
    if not outcome.played:
        return DealResult(seats=know.seats, dealer=know.dealer, kind=DealKind.GAME, declarer=know.declarer,
                          contract=contract, calls=tuple(recorded))  # fmt: skip
    d1, d2 = defenders(know)
    left = 10 - tricks
    if len(outcome.whisters) == 2:
        # Both whist: the defence's tricks split as evenly as they can, the odd one to ``me`` or not.
        me_gets = (left + 1) // 2 if mine_first else left // 2
        first = me_gets if d1 == know.seat else left - me_gets
        split = {know.declarer: tricks, d1: first, d2: left - first}
        mode = PlayMode.CLOSED
    else:
        split = {know.declarer: tricks, d1: left, d2: 0}
        mode = PlayMode.OPEN
    return DealResult(seats=know.seats, dealer=know.dealer, kind=DealKind.GAME, declarer=know.declarer,
                      contract=contract, calls=tuple(recorded), play=mode, tricks=split)  # fmt: skip


def call_value(
    know: Knowledge, contract: Bid, call: WhistCall, counts: list[int], conv: Conventions
) -> float:
    calls, outcome = play_dialogue(
        know, contract, (*((s, c) for s, c in know.calls), (know.seat, call)), conv
    )
    total = Fraction(0)
    for t in counts:
        for odd in (True, False):
            result = outcome_result(know, contract, calls, outcome, t, mine_first=odd)
            total += deal_balance(result, conv)[know.seat]
    return float(total / (2 * len(counts))) if counts else 0.0


def _fits_contract(know: Knowledge, contract: Bid) -> object:
    declarer = know.declarer

    def plausible(layout: Layout) -> bool:
        if declarer is None or declarer not in layout:
            return True
        return quick_tricks(layout[declarer], contract.trump) >= contract.level - 2.5

    return plausible


def declarer_counts(know: Knowledge, level: Level, rng: random.Random) -> list[int]:
    assert know.contract is not None and know.declarer is not None
    contract = know.contract
    fits = _fits_contract(know, contract)
    session = Solver()
    counts = []
    for layout in layouts(know, max(_MIN_LAYOUTS, level.bid_layouts), rng, fits):  # type: ignore[arg-type]
        hands: dict[int, tuple[Card, ...]] = full_hands(know, layout)
        pos = position(know.active, hands, trump=contract.trump, misere=False, declarer=know.declarer,
                       leader=know.active[0])  # fmt: skip
        tricks = declarer_tricks(session, pos, level.node_budget)
        if tricks is not None:
            counts.append(tricks)
    return counts


def choose_call(
    know: Knowledge, legal: list[Action], level: Level, rng: random.Random, conv: Conventions
) -> Action:
    me = know.seat
    looks = [a for a in legal if isinstance(a, DealerLook)]
    if looks:
        return looks[0]  # a look costs nothing and shows a defender's hand
    assert know.contract is not None
    calls = [a.call for a in legal if isinstance(a, CallWhist)]
    counts = declarer_counts(know, level, rng)
    if not counts:
        return CallWhist(me, WhistCall.PASS if WhistCall.PASS in calls else calls[0])
    order = {WhistCall.PASS: 0, WhistCall.HALF_WHIST: 1, WhistCall.WHIST: 2}
    noise = level.noise
    values = {c: call_value(know, know.contract, c, counts, conv) + (rng.gauss(0, 4) if noise else 0.0)
              for c in calls}  # fmt: skip
    best = max(calls, key=lambda c: (values[c], -order[c]))
    return CallWhist(me, best)


def choose_mode(know: Knowledge) -> Action:
    return ChoosePlay(know.seat, PlayMode.OPEN)
