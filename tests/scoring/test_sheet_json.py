"""The score sheet as JSON, as the server persists it (RULES.md §5, §11: the record and its audit trail)."""

from __future__ import annotations

import json

import pytest

from app.engine.conventions import Conventions
from app.engine.scoring import ScoreSheet, ScoringError
from app.engine.scoring.violations import Role, apply_sanction
from tests.scoring.helpers import HALF, PASS, WHIST, allpass, game, sheet_after


def _sheet() -> ScoreSheet:
    sheet = sheet_after(
        allpass(0, {0: 3, 1: 3, 2: 4}),
        game(1, 2, "7s", [(0, PASS), (1, HALF)]),
        game(2, 0, "8h", [(1, WHIST), (2, WHIST)], {0: 6, 1: 2, 2: 2}),
        conventions=Conventions(pool_size=20),
    )
    return apply_sanction(sheet.timeout(2), "signals", Role.WHISTER, 1, deal=2, judge="J", note="nod")


def test_round_trip_keeps_columns_history_and_series() -> None:
    """The stored sheet rebuilds to an equal value, through text JSON, including the series counter."""
    sheet = _sheet()
    assert ScoreSheet.from_json(json.loads(json.dumps(sheet.to_json()))) == sheet
    assert sheet.to_json()["history"][-1]["kind"] == "sanction"


def test_tampered_columns_are_detected() -> None:
    """The columns must equal the sum of the history's writes."""
    data = _sheet().to_json()
    data["mountains"][0] += 1
    with pytest.raises(ScoringError, match="history"):
        ScoreSheet.from_json(data)
