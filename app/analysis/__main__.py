"""``python -m app.analysis``: analyse one played deal given as JSON on stdin; print one JSON line.

Input: ``{"hands": [[cards] x3], "trump": "s"|"c"|"d"|"h"|null, "mode": "contract"|"misere",
"declarer": SEAT, "leader": SEAT, "play": [cards in play order]}`` (seats 0..2 are the hands' order).
Output: ``{"start": T, "cards": [{"seat", "card", "before", "after", "best", "loss"}, ...]}`` (see
`app.analysis.deal`). Exit status 2 for an invalid deal, 3 when a position needs more than the node budget.
"""

from __future__ import annotations

import argparse
import json
import sys

from app.analysis.deal import DEFAULT_NODE_BUDGET, PlayedDeal, analyse_deal
from app.solver import InvalidPosition, SolverBudgetExceeded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.analysis", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--node-budget", type=int, default=DEFAULT_NODE_BUDGET, help="solver nodes allowed per position"
    )
    args = parser.parse_args(argv)
    try:
        data = json.loads(sys.stdin.read())
    except json.JSONDecodeError as exc:
        print(f"error: input is not JSON: {exc}", file=sys.stderr)
        return 2
    try:
        analysis = analyse_deal(PlayedDeal.from_json(data), node_budget=args.node_budget)
    except InvalidPosition as exc:
        print(f"error: invalid deal: {exc}", file=sys.stderr)
        return 2
    except SolverBudgetExceeded as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    print(json.dumps(analysis.to_json(), separators=(",", ":")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
