"""``python -m app.tournament simulate --players N --rounds R --seed S [--teams K] [--robots LEVEL]``.

Plays a whole tournament with robot players away from the server and prints one JSON line (see
`app.tournament.simulate`); exit status 0 only if every table's indices summed to 0 and every player
played every round (or had the one bye a round of five allows).
"""

from __future__ import annotations

import argparse
import json
import sys

from app.robots.levels import LEVELS
from app.tournament.draw import MAX_PLAYERS, DrawError
from app.tournament.simulate import simulate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.tournament")
    commands = parser.add_subparsers(dest="command", required=True)
    sim = commands.add_parser("simulate", help="play a whole tournament with robots; one JSON line")
    sim.add_argument("--players", type=int, required=True)
    sim.add_argument("--rounds", type=int, required=True)
    sim.add_argument("--seed", type=int, required=True)
    sim.add_argument("--teams", type=int, default=0, help="players form K teams (0: individual)")
    sim.add_argument("--robots", default="easy", choices=sorted(LEVELS), help="the robot players' level")
    sim.add_argument("--round-minutes", type=float, default=40.0, help="round length (simulated minutes)")
    sim.add_argument("--robot-seats", action="store_true", help="robots fill a seat instead of a bye")
    args = parser.parse_args(argv)
    if not 1 <= args.players <= MAX_PLAYERS or args.rounds < 1 or args.teams < 0 or args.round_minutes <= 0:
        parser.error(f"--players 1..{MAX_PLAYERS}, --rounds ≥ 1, --teams ≥ 0, --round-minutes > 0")
    try:
        result = simulate(
            args.players,
            args.rounds,
            args.seed,
            teams=args.teams,
            level=args.robots,
            round_minutes=args.round_minutes,
            robots_fill=args.robot_seats,
        )
    except DrawError as exc:
        parser.error(str(exc))
    out = result.to_json()
    print(json.dumps(out, ensure_ascii=False, separators=(",", ":")))
    ok = out["zero_sum_tables"] == out["tables_total"] and result.everyone_played(args.robot_seats)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
