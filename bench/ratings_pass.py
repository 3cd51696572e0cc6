"""The ratings' background pass: CPU per settled game taken in (SQLite), beside the model's own work.

A database of ``--games`` settled games (three seats, six players in turn, a deal played each, a rated
room) is taken in as the server's background loop does it (`ladder._take_in_pass`, `GAMES_PER_PASS` games
a transaction, until none is left); the baseline in the same invocation is the model alone
(`app.ratings.rate_pulya` on the same games, both ladders), what a pass cannot do without. Prints one JSON
line: the CPU of each run per game, the model's, and their ratio.

Run: ``.venv/bin/python bench/ratings_pass.py [--games 200] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import create_engine

from app.db.migrate import upgrade
from app.ratings import GameForRating, Rating, rate_pulya
from app.server.ratings import ladder

PLAYERS = 6
INDICES = (("40", "-10", "-30"), ("-5", "25", "-20"), ("0", "0", "0"))


def _seats(game: int) -> list[int]:
    return [1 + (game + s) % PLAYERS for s in range(3)]


def populate(path: Path, games: int) -> None:
    conn = sqlite3.connect(path)
    conn.executemany(
        "INSERT INTO users (id, name, name_key, password_hash, role, created_at) "
        "VALUES (?, ?, ?, '-', 'player', 0)",
        [(u, f"p{u}", f"p{u}") for u in range(1, PLAYERS + 1)],
    )
    conn.execute("INSERT INTO rooms (id, name, operator_id, preset, overrides, conventions, created_at) "
                 "VALUES (1, 'r', 1, 'p', '{}', '{}', 0)")  # fmt: skip
    for game in range(1, games + 1):
        exact = json.dumps({"exact": list(INDICES[game % len(INDICES)])})
        conn.execute(
            "INSERT INTO game_tables (id, room_id, seats, conventions, first_dealer, status, version, "
            "created_at, finished_at, finish_reason, settlement) "
            "VALUES (?, 1, 3, '{\"pool_size\": 10}', 0, 'finished', 1, 0, ?, 'pool', ?)",
            (game, float(game), exact),
        )
        conn.executemany(
            "INSERT INTO table_seats (table_id, seat, user_id) VALUES (?, ?, ?)",
            [(game, seat, user) for seat, user in enumerate(_seats(game))],
        )
        conn.execute(
            "INSERT INTO deals (table_id, deal_number, record, at) VALUES (?, 1, '{}', ?)", (game, 0.0)
        )
    conn.commit()
    conn.close()


def one_run(games: int) -> float:
    """CPU ms per game of taking every game in, as the background loop's passes do."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ratings.db"
        upgrade(f"sqlite+aiosqlite:///{path}")
        populate(path, games)
        engine = create_engine(f"sqlite:///{path}")
        started = time.thread_time()
        taken = 0
        while True:
            done = ladder._take_in_pass(engine, ladder.GAMES_PER_PASS)
            if not done:
                break
            taken += done
        cpu = time.thread_time() - started
        engine.dispose()
    assert taken == games, taken
    return 1000 * cpu / games


def model_only(games: int) -> float:
    """CPU ms per game of the model alone on the same games, both ladders."""
    ladders: list[dict[object, Rating]] = [{}, {}]
    started = time.thread_time()
    for game in range(1, games + 1):
        indices = tuple(Fraction(v) for v in INDICES[game % len(INDICES)])
        rated = GameForRating(tuple(_seats(game)), indices, 10)
        for ratings in ladders:
            ratings.update(rate_pulya(ratings, rated))
    return 1000 * (time.thread_time() - started) / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    passes, models = [], []
    for _ in range(args.runs):
        passes.append(one_run(args.games))
        models.append(model_only(args.games))
    print(json.dumps({
        "bench": "ratings_pass", "games": args.games, "games_per_pass": ladder.GAMES_PER_PASS,
        "cpu_ms_per_game": [round(p, 2) for p in passes], "model_ms_per_game": [round(m, 2) for m in models],
        "x_model": [round(p / m, 1) for p, m in zip(passes, models, strict=True)],
        "median_x_model": round(statistics.median(p / m for p, m in zip(passes, models, strict=True)), 1),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
