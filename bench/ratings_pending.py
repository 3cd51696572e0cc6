"""The ratings pass's look for games to take in, as the finished games pile up (SQLite).

The pass runs every second. It used to read every game ever finished (each probed against its
`RatedGame` row); it now reads the partial index of the games not taken in (`GameTable.in_ratings`,
`app.server.ratings.ladder.pending_sql`). For each ``--games`` count, a database with that many finished
games, all taken in, and both queries alternating, ``--runs`` times each: the milliseconds of each and
the ratio old/new of each round.

Run: ``.venv/bin/python bench/ratings_pending.py [--games 10000,100000] [--runs 3]``. Prints one JSON line
per count.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import create_engine, exists, not_
from sqlalchemy.orm import Session

from app.db.migrate import upgrade
from app.db.models import GameTable, RatedGame
from app.server.ratings import ladder

SHEET = '{"lines": "' + "x" * 3000 + '"}'  # a finished game's sheet, roughly: the rows are that wide
SETTLEMENT = '{"exact": ["1", "-1", "0"], "result": ["1", "-1", "0"]}'


def populate(path: Path, games: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO users (id, name, name_key, password_hash, role, created_at) "
                 "VALUES (1, 'a', 'a', '-', 'player', 0)")  # fmt: skip
    conn.execute("INSERT INTO rooms (id, name, operator_id, preset, overrides, conventions, created_at) "
                 "VALUES (1, 'r', 1, 'p', '{}', '{}', 0)")  # fmt: skip
    conn.executemany(
        "INSERT INTO game_tables (id, room_id, seats, conventions, first_dealer, status, version, "
        "created_at, "
        "finished_at, finish_reason, sheet, settlement, in_ratings) "
        "VALUES (?, 1, 3, '{}', 0, 'finished', 1, 0, ?, 'pool', ?, ?, 1)",
        [(i, float(i), SHEET, SETTLEMENT) for i in range(1, games + 1)],
    )
    conn.executemany(
        "INSERT INTO rated_games (table_id, finished_at, counted, rated_at) VALUES (?, ?, 1, 0)",
        [(i, float(i)) for i in range(1, games + 1)],
    )
    conn.commit()
    conn.close()


def old_pending(session: Session) -> list[int]:
    """The query the pass ran before the index: every settled game without its `RatedGame` row."""
    query = (
        ladder._settled_query()
        .where(not_(exists().where(RatedGame.table_id == GameTable.id)))
        .order_by(GameTable.finished_at, GameTable.id)
        .limit(ladder.GAMES_PER_PASS)
    )
    return [int(r[0]) for r in session.execute(query).all()]


def timed(session: Session, look: object) -> float:
    started = time.perf_counter()
    found = look(session)  # type: ignore[operator]
    assert found == [], found  # every game is taken in: both find none
    return 1000 * (time.perf_counter() - started)


def measure(games: int, runs: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ratings.db"
        upgrade(f"sqlite+aiosqlite:///{path}")
        populate(path, games)
        engine = create_engine(f"sqlite:///{path}")
        old: list[float] = []
        new: list[float] = []
        with Session(engine) as session:
            timed(session, old_pending)  # the pages into the cache, for both
            for _ in range(runs):
                old.append(timed(session, old_pending))
                new.append(timed(session, lambda s: ladder._pending(s, ladder.GAMES_PER_PASS)))
        engine.dispose()
    return {
        "bench": "ratings_pending", "finished_games": games,
        "old_ms": [round(x, 2) for x in old], "new_ms": [round(x, 3) for x in new],
        "ratio_old_over_new": [round(o / n) for o, n in zip(old, new, strict=True)],
        "median_ratio": round(statistics.median(o / n for o, n in zip(old, new, strict=True))),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", default="10000,100000", help="comma-separated counts of finished games")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for games in (int(g) for g in args.games.split(",")):
        print(json.dumps(measure(games, args.runs)), flush=True)


if __name__ == "__main__":
    main()
