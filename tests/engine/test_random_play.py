"""Random legal play: the invariants of issue 2 over 20,000 seeded deals per seat count.

Each chunk runs `python -m app.engine random`'s checker in-process: 32 cards conserved after every action,
10 tricks a played deal, every card legal (checked from the hand, not from `legal_actions`), replay equal
to the live state, and no view of any seat or spectator ever naming a card that viewer may not know
(RULES.md §12, judged by `audit.Knowledge` from the action log).
"""

from __future__ import annotations

import pytest

from app.engine.__main__ import run_random

CHUNKS = 4
DEALS_PER_CHUNK = 5000


@pytest.mark.slow  # minutes in all: CI runs it; `pytest -m "not slow"` leaves it out of a quick local run
@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_deals_keep_every_invariant(seats: int, chunk: int) -> None:
    stats = run_random(seats, DEALS_PER_CHUNK, seed=1000 * seats + chunk)
    assert stats["errors"] == 0, stats.get("error_samples")
    assert stats["deals"] == DEALS_PER_CHUNK
    # The random policy reaches every kind of deal, so the checks above cover them all.
    assert stats["allpass"] > 0 and stats["misere"] > 0 and stats["contracts"] > 0 and stats["zastrel"] > 0
