"""`decide`: a robot's action from its own seat's view, the legal actions, a seed and a strength level.

Pure and deterministic: no I/O, no clock; randomness only from ``rng_seed``; the work is bounded by the
level's layouts and solver nodes. It reads nothing but ``view`` (exactly `app.engine.view(state, seat)`)
and the tricks it remembers of the deal (`Memory`, built from its own earlier views by `remember`), so it
can never use a card its seat may not see. The server may run it in a worker (thread or process): every
argument is a plain value.

`Robot` is the convenience for drivers that hold one seat's robot: it keeps the memory between calls.

What the robot does, per phase (layouts: the unseen cards dealt consistently with the seat's knowledge,
`app.robots.layouts`; values: mean whist balance by the scoring engine, `app.robots.value`):

- bidding: per strain, double-dummy tricks after taking the talon; the highest contract worth more than
  nothing is the ceiling; bid the lowest legal step (a hold first) within it, else pass. Misère when its
  value beats every game and nothing; invite the 4-seat dealer to a misère for two when it is clean in
  about half the layouts or more but not worth bidding alone.
- dealer invitation: the dealer, shown the inviter's hand, joins when the shared misère is worth it.
- discard: candidates (static count per likely strain, or least misère danger) solved on layouts.
- contract: every legal contract valued on layouts (both defenders whisting); zastrel when it costs less.
- whisting: each call valued by the outcome it leads to, the rest of the dialogue played out by the
  engine's own rules, the others passing; the 4-seat dealer first looks at a defender's hand.
- play mode: open (the lone whister plays both defender hands, as the judgement assumed).
- play: every legal card solved on layouts; the best for the role (`app.robots.cardplay`); a strong
  declarer first claims the rest when every layout proves it (`app.robots.claims`).
- claim (§4.10): accept when every layout of the unseen cards proves the claim, else reject.

`easy` judges the auction, discard and contract statically (`app.robots.handeval`) with noise, and plays
cards on 3 layouts with a 15% chance of a random card; `strong` samples everything (`app.robots.levels`).
"""

from __future__ import annotations

import random
from typing import Any

from app.engine.actions import Action, AnswerClaim, AnswerInvitation, ChoosePlay, Claim, Discard, PlayCard
from app.engine.conventions import Conventions
from app.robots.auction import answer_invitation, choose_bid, choose_contract, choose_discard
from app.robots.cardplay import choose_card
from app.robots.claims import answer, claim_to_make
from app.robots.handeval import plausible_hand
from app.robots.knowledge import Knowledge, Memory, read, remember
from app.robots.layouts import Layout, Plausible
from app.robots.levels import Level, level_named
from app.robots.whist import choose_call, choose_mode

_DEFAULT_CONVENTIONS = Conventions()


class RobotError(ValueError):
    """The robot was asked to act where it cannot: no legal action, or a view of another seat."""


def auction_model(know: Knowledge) -> Plausible:
    """Layouts whose hidden 10-card hands fit each seat's bids (see `handeval.plausible_hand`)."""
    bids = {s: [b for who, b in know.auction if who == s] for s in know.active}

    def plausible(layout: Layout) -> bool:
        for seat in know.hidden():
            hand = layout.get(seat, ())
            if len(hand) == 10 and not plausible_hand(hand, bids[seat]):
                return False
        return True

    return plausible


def decide(
    view: dict[str, Any],
    legal: list[Action],
    rng_seed: int,
    level: str | Level = "strong",
    *,
    memory: Memory | None = None,
    conventions: Conventions | None = None,
) -> Action:
    """The robot's action for the seat ``view["viewer"]``; always one of ``legal``."""
    if not legal:
        raise RobotError("no legal action to choose from")
    seat = view.get("viewer")
    if seat is None or view.get("to_act") != seat or any(getattr(a, "seat", seat) != seat for a in legal):
        raise RobotError(f"the view is not of the seat to act (viewer {seat}, to act {view.get('to_act')})")
    lvl = level_named(level)
    rng = random.Random(rng_seed)
    phase = view["phase"]
    if phase == "claim" and not lvl.random:  # §4.10: every level but random answers from what it sees
        return answer(read(view, remember(memory, view)), view)
    if lvl.name == "strong" and view.get("claims"):
        claim = claim_to_make(read(view, remember(memory, view)), list(view["claims"]))
        if claim is not None:
            return claim
    if lvl.random or len(legal) == 1:
        return rng.choice(legal) if lvl.random else legal[0]
    conv = conventions or _DEFAULT_CONVENTIONS
    know = read(view, remember(memory, view))
    action: Action
    if phase == "bidding":
        action = choose_bid(know, legal, lvl, rng, conv, plausible=auction_model(know))
    elif phase == "dealer_invitation":
        action = answer_invitation(know, lvl, rng, conv)
    elif phase == "discard":
        assert know.bid is not None
        action = choose_discard(know, know.bid, lvl, rng, conv)
    elif phase == "contract":
        action = choose_contract(know, legal, lvl, rng, conv)
    elif phase == "whisting":
        action = choose_call(know, legal, lvl, rng, conv)
    elif phase == "play_mode":
        action = choose_mode(know)
    elif phase == "play":
        cards = [a.card for a in legal if isinstance(a, PlayCard)]
        action = PlayCard(seat, choose_card(know, cards, lvl, rng, auction_model(know)))
    else:
        raise RobotError(f"nothing for a robot to decide in phase {phase!r}")
    if isinstance(action, Discard):
        return _as_listed(action, legal)
    if action not in legal and not isinstance(action, AnswerInvitation | ChoosePlay | AnswerClaim | Claim):
        raise AssertionError(f"robot chose {action}, which is not legal")  # pragma: no cover
    return action


def _as_listed(action: Discard, legal: list[Action]) -> Action:
    """A discard in the order `legal_actions` lists it (the engine accepts either order)."""
    for a in legal:
        if isinstance(a, Discard) and set(a.cards) == set(action.cards):
            return a
    return action


class Robot:
    """One seat's robot: a level and the memory of the deal, for drivers that keep a robot per seat."""

    def __init__(self, level: str | Level = "strong", conventions: Conventions | None = None) -> None:
        self.level = level_named(level)
        self.conventions = conventions
        self.memory: Memory | None = None

    def observe(self, view: dict[str, Any]) -> None:
        """Take in a view of this seat (every view the server sends it, or only those it decides on)."""
        if view.get("deal") is not None:
            self.memory = remember(self.memory, view)

    def act(self, view: dict[str, Any], legal: list[Action], rng_seed: int) -> Action:
        self.observe(view)
        return decide(view, legal, rng_seed, self.level, memory=self.memory, conventions=self.conventions)
