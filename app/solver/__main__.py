"""``python -m app.solver``: solve a position given as JSON on stdin, print the answer as JSON.

Input: ``{"hands": [[...], [...], [...]], "trump": "s"|"c"|"d"|"h"|null, "mode": "contract"|"misere",
"declarer": 0, "leader": 1, "trick": ["hK"]}``. Output: ``declarer_tricks``, ``best`` (cards in index
order), ``lowest`` (the card the robot plays), ``values`` (each legal card's value, with ``--analyse``),
``implementation``, ``nodes``. Exit status 2 for an invalid position, 3 when a budget runs out.
"""

from __future__ import annotations

import argparse
import json
import sys

from app.solver import _impl
from app.solver.api import Solver
from app.solver.errors import InvalidPosition, SolverBudgetExceeded
from app.solver.position import Position


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.solver", description=__doc__.splitlines()[0])
    parser.add_argument("--analyse", action="store_true", help="also print the value of every legal card")
    parser.add_argument("--node-budget", type=int, default=None, help="stop (exit 3) after this many nodes")
    parser.add_argument(
        "--implementation", choices=sorted(_impl.KERNELS), default=None, help="kernel to use (default: best)"
    )
    args = parser.parse_args(argv)
    try:
        data = json.loads(sys.stdin.read())
    except json.JSONDecodeError as exc:
        print(f"error: input is not JSON: {exc}", file=sys.stderr)
        return 2
    try:
        position = Position.from_json(data)
    except InvalidPosition as exc:
        print(f"error: invalid position: {exc}", file=sys.stderr)
        return 2
    solver = Solver(args.implementation)
    try:
        solution = solver.solve(position, node_budget=args.node_budget)
        nodes = solution.nodes
        out: dict[str, object] = {
            "declarer_tricks": solution.declarer_tricks,
            "best": [c.text for c in solution.best],
            "lowest": solution.lowest.text if solution.best else None,
        }
        if args.analyse:
            values = solver.analyse(position, node_budget=args.node_budget)
            out["values"] = {c.text: v for c, v in values.items()}
            nodes += solver.nodes
    except SolverBudgetExceeded as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    out["implementation"] = solver.implementation
    out["nodes"] = nodes
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
