"""``python -m app.robots duel --deals N --seed S --seats 3 A B C``: robots play each other, one JSON line.

Levels: random (today's random bot), easy, normal, strong. Output: ``{"deals": N, "whists": [mean whist
balance per deal of each robot, in the order named], "ci95": [[lo, hi] per robot]}`` (see `app.robots.duel`).
"""

from __future__ import annotations

import argparse
import json
import sys

from app.robots.duel import duel
from app.robots.levels import LEVELS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.robots")
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("duel", help="robots play each other; prints one JSON line")
    d.add_argument("--deals", type=int, default=300)
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--seats", type=int, choices=(3, 4), default=3)
    d.add_argument("robots", nargs="+", choices=sorted(LEVELS), metavar="LEVEL")
    args = parser.parse_args(argv)
    if len(args.robots) != args.seats:
        parser.error(f"--seats {args.seats} needs {args.seats} robot levels, got {len(args.robots)}")
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    print(json.dumps(duel(args.robots, args.deals, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
