"""Command line: ``python -m app.engine random …`` and ``python -m app.engine replay FILE``."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from typing import Any

from app.engine.actions import CLAIM_VERDICTS, Action, Claim, ClaimVerdict, PlayCard, shuffle_action
from app.engine.audit import Knowledge, cards_in, conserved, play_is_legal
from app.engine.claims import awaits_verdict, claim_options
from app.engine.errors import EngineError
from app.engine.machine import apply, legal_actions
from app.engine.replay import replay_json, state_to_json
from app.engine.result import DealKind
from app.engine.state import Phase, TableState, new_table
from app.engine.views import view


def choose(actions: list[Action], rng: random.Random) -> Action:
    """Uniform, except that bidders pass half the time so all-pass deals and low contracts occur too."""
    if actions and actions[0].type == "pass" and len(actions) > 1 and rng.random() < 0.5:
        return actions[0]
    return rng.choice(actions)


def next_action(state: TableState, rng: random.Random) -> Action:
    """A random next action; the declarer claims a fifth of the times he may (§4.10). A rejected claim gets
    a random verdict: the audit checks what the views show, the solver's verdicts are tested elsewhere."""
    if awaits_verdict(state):
        return ClaimVerdict(rng.choice(CLAIM_VERDICTS))
    claims = claim_options(state)
    if claims and rng.random() < 0.2:
        assert state.deal is not None and state.deal.declarer is not None
        return Claim(state.deal.declarer, rng.choice(claims))
    return choose(legal_actions(state), rng)


def run_random(seats: int, deals: int, seed: int, check_views: bool = True) -> dict[str, Any]:
    rng = random.Random(seed)
    state = new_table(seats, first_dealer=rng.randrange(seats))
    viewers: list[int | None] = [*range(seats), None]
    stats: dict[str, Any] = {"seats": seats, "seed": seed, "deals": 0, "allpass": 0, "misere": 0,
                             "contracts": 0, "zastrel": 0, "no_play": 0, "claims": 0, "errors": 0,
                             "error_samples": []}  # fmt: skip

    def fail(message: str) -> None:
        stats["errors"] += 1
        if len(stats["error_samples"]) < 5:
            stats["error_samples"].append(f"deal {stats['deals'] + 1}: {message}")

    for _ in range(deals):
        log: list[Action] = []
        start = state
        knowledge = Knowledge(seats)
        action: Action = shuffle_action(rng)
        while True:
            if isinstance(action, PlayCard) and not play_is_legal(state, action):
                fail(f"illegal card {action.card}")
            if check_views:
                knowledge.before(state, action)
            log.append(action)
            state, _ = apply(state, action)
            if check_views:
                knowledge.after(state, action)
                for viewer in viewers:
                    leaked = cards_in(view(state, viewer)) - knowledge.allowed(viewer)
                    if leaked:
                        fail(
                            f"view of {viewer} shows {sorted(c.text for c in leaked)} in {state.phase.value}"
                        )
            if not conserved(state):
                fail("cards not conserved")
            if state.phase is Phase.DEAL_OVER:
                break
            action = next_action(state, rng)
        result = state.last_result
        assert result is not None and state.deal is not None
        stats["deals"] += 1
        if result.kind is DealKind.ALLPASS:
            stats["allpass"] += 1
        elif result.kind is DealKind.MISERE:
            stats["misere"] += 1
        elif result.kind is DealKind.ZASTREL:
            stats["zastrel"] += 1
        else:
            stats["contracts"] += 1
        claim = state.deal.claim
        stats["claims"] += claim is not None
        # A claim that ends the deal (§4.10) leaves its remaining tricks unplayed.
        unplayed = claim.remaining if claim is not None and not claim.void else 0
        if result.tricks is None:
            stats["no_play"] += 1
        elif (
            len(state.deal.tricks) + unplayed != 10 or sum(result.tricks.values()) + result.talon_tricks != 10
        ):
            fail(f"{len(state.deal.tricks)} tricks played, {result.tricks} taken")
        replayed = start
        for logged in log:
            replayed, _ = apply(replayed, logged)
        if replayed != state:
            fail("replay differs from the live state")
    if not stats["error_samples"]:
        del stats["error_samples"]
    return stats


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.engine", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    rand = commands.add_parser("random", help="play random legal deals and check every invariant")
    rand.add_argument("--seats", type=int, choices=(3, 4), default=3)
    rand.add_argument("--deals", type=int, default=1000)
    rand.add_argument("--seed", type=int, default=0)
    rand.add_argument("--no-views", action="store_true", help="skip the per-action view audit (faster)")
    rep = commands.add_parser("replay", help="replay an action-log file and print the final state")
    rep.add_argument("file")
    args = parser.parse_args(argv)
    if args.command == "random":
        stats = run_random(args.seats, args.deals, args.seed, check_views=not args.no_views)
        print(json.dumps(stats))
        return 0 if stats["errors"] == 0 else 1
    try:
        with sys.stdin if args.file == "-" else open(args.file, encoding="utf-8") as handle:
            data = json.load(handle)
        state = replay_json(data)
    except (OSError, ValueError, KeyError, TypeError, EngineError) as exc:
        print(f"error: {args.file}: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(state_to_json(state)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
