"""The analysis of played deals (issue 21 §2) against the project's own solver re-run position by position.

200 deals played by the engine's random play, 50 of each kind (3 and 4 seats, trick contract and misère),
read from their stored form (`app.analysis.records`). For every card the figures must equal a fresh
solver's (a new session per position, so nothing carries over from the analysis' own session), and
``loss`` must be 0 exactly on the best cards.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.analysis import PlayedDeal, analyse_deal
from app.analysis.deal import positions_of
from app.analysis.records import played_deal
from app.engine.ending import deal_record
from app.engine.randomplay import play_deal
from app.engine.state import new_table
from app.engine.views import view
from app.solver import Solver

ROOT = Path(__file__).resolve().parents[2]
PER_KIND = 50


def _deals(
    seats: int, misere: bool, count: int, seed: int
) -> Iterator[tuple[PlayedDeal, tuple[int, int, int]]]:
    rng = random.Random(seed)
    state = new_table(seats, None, first_dealer=0)
    found = 0
    while found < count:
        state = play_deal(state, rng)
        assert state.last_result is not None and state.deal is not None
        played = played_deal(state.last_result.to_json(), deal_record(state.deal))
        if played is not None and played[0].misere == misere:
            found += 1
            yield played


KINDS = [(3, False), (3, True), (4, False), (4, True)]


@pytest.mark.parametrize(
    ("seats", "misere"), KINDS, ids=[f"{s}seats-{'misere' if m else 'contract'}" for s, m in KINDS]
)
def test_every_card_equals_the_solver_re_run_position_by_position(seats: int, misere: bool) -> None:
    for deal, _ in _deals(seats, misere, PER_KIND, seed=seats * 10 + misere):
        analysis = analyse_deal(deal)
        positions = positions_of(deal)
        assert len(analysis.cards) == len(deal.play) == len(positions)
        for verdict, (position, won) in zip(analysis.cards, positions, strict=True):
            fresh = Solver().solve(position)
            assert verdict.seat == position.mover
            assert verdict.before == won + fresh.declarer_tricks
            assert set(verdict.best) == set(fresh.best)
            child, taker = position.play(verdict.card)
            taken = won + (taker == deal.declarer)
            after = taken + (Solver().solve(child).declarer_tricks if child.tricks_left else 0)
            assert verdict.after == after
            assert verdict.loss >= 0
            assert (verdict.loss == 0) == (verdict.card in fresh.best)
        assert analysis.start == analysis.cards[0].before
        # The last card's "after" is what the declarer took: nothing is left to play.
        assert analysis.cards[-1].after == analysis.taken


def test_the_deal_analysed_is_the_deal_played() -> None:
    """The records' reading: the declarer's trick count from the analysis equals the scored result."""
    for seats in (3, 4):
        rng = random.Random(seats)
        state = new_table(seats, None, first_dealer=1)
        checked = 0
        while checked < 20:
            state = play_deal(state, rng)
            assert state.last_result is not None and state.deal is not None
            result = state.last_result.to_json()
            played = played_deal(result, deal_record(state.deal))
            # The server stores the table's view at the deal's end: it reads the same.
            assert played_deal(result, view(state, None)) == played
            if played is None:
                continue
            deal, active = played
            assert analyse_deal(deal).taken == result["tricks"][str(active[deal.declarer])]
            checked += 1


def _cli(data: dict[str, object]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.analysis"], input=json.dumps(data), capture_output=True, text=True,
        cwd=ROOT, timeout=300, check=False,
    )  # fmt: skip


def _as_input(deal: PlayedDeal) -> dict[str, object]:
    return {
        "hands": [[c.text for c in hand] for hand in deal.hands],
        "trump": None if deal.trump is None else deal.trump.letter,
        "mode": "misere" if deal.misere else "contract",
        "declarer": deal.declarer,
        "leader": deal.leader,
        "play": [c.text for c in deal.play],
    }


def _burn() -> None:  # pragma: no cover - runs in the load processes
    while True:
        pass


def test_command_line_prints_one_line_and_the_same_under_cpu_load() -> None:
    deals = [d for d, _ in _deals(3, False, 2, seed=77)] + [d for d, _ in _deals(4, True, 1, seed=78)]
    idle = []
    for deal in deals:
        result = _cli(_as_input(deal))
        assert result.returncode == 0, result.stderr
        assert result.stdout.count("\n") == 1
        out = json.loads(result.stdout)
        assert out == analyse_deal(deal).to_json()
        assert set(out) == {"start", "cards"}
        assert set(out["cards"][0]) == {"seat", "card", "before", "after", "best", "loss"}
        idle.append(out)
    load = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(max(2, (os.cpu_count() or 2) * 2))
    ]
    try:
        loaded = [json.loads(_cli(_as_input(deal)).stdout) for deal in deals]
    finally:
        for proc in load:
            proc.kill()
            proc.wait()
    assert loaded == idle


def test_command_line_refuses_a_card_that_could_not_be_played() -> None:
    deal = next(d for d, _ in _deals(3, False, 1, seed=5))
    data = _as_input(deal)
    play = list(data["play"])  # type: ignore[call-overload]
    play[1] = play[0]  # a card played twice
    data["play"] = play
    result = _cli(data)
    assert result.returncode == 2 and result.stdout == ""
    assert "invalid deal" in result.stderr
    assert _cli({"hands": [], "play": []}).returncode == 2
