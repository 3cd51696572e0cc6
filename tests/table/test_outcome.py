"""`Outcome`: the end of a pulya as a typed value; its JSON (`settlement_json`) is made only where it is
published or stored, is the same to the byte as before it was typed, and reads back exactly."""

from __future__ import annotations

import json
from decimal import Decimal

from app.engine.conventions import Conventions
from app.engine.scoring import ScoreSheet
from app.engine.scoring.settlement import settle
from app.table import Outcome, Termination

# `settlement_json` before `Outcome.settlement` was typed, for the two sheets below (json.dumps).
EXACT_BEFORE = (
    '{"rounding": "exact", "result": ["-20/3", "10/3", "10/3"], "sum": "0", "variant1": [-6, 3, 3], '
    '"variant2": [-6, 3, 3], "exact": ["-20/3", "10/3", "10/3"], "money": ["-3.334", "1.667", "1.667"], '
    '"mountains": [1, 0, 0], "note": "stopped: venue closes"}'
)
KODEKS_BEFORE = (
    '{"rounding": "kodeks", "result": [96, -25, -71], "sum": 0, "variant1": [96, -25, -71], '
    '"variant2": [96, -25, -71], "exact": ["289/3", "-74/3", "-215/3"], "money": ["0", "0", "0"], '
    '"mountains": [-5, 4, 11]}'
)


def exact_sheet() -> ScoreSheet:
    """§7.5 exact rounding: mountains 1, 0, 0 settle to −20/3, +10/3, +10/3; at 0.5 a whist, money in
    thousandths that still sums to zero."""
    conventions = Conventions(settlement_rounding="exact", stake_per_whist=Decimal("0.5"))
    return ScoreSheet(3, conventions, (10, 10, 10), (1, 0, 0), ((0, 0, 0),) * 3)


def kodeks_sheet() -> ScoreSheet:
    conventions = Conventions(pool_size=50)
    return ScoreSheet(3, conventions, (54, 48, 48), (3, 0, 7), ((0, 12, 4), (3, 0, 0), (0, 9, 0)))


def test_the_published_settlement_is_the_same_to_the_byte_as_before() -> None:
    exact = Outcome(Termination.INTERRUPTED, settle(exact_sheet()), "stopped: venue closes")
    kodeks = Outcome(Termination.POOL_COMPLETE, settle(kodeks_sheet()))
    assert json.dumps(exact.settlement_json()) == EXACT_BEFORE
    assert json.dumps(kodeks.settlement_json()) == KODEKS_BEFORE


def test_a_stored_settlement_reads_back_exactly() -> None:
    for termination, stored in (
        (Termination.INTERRUPTED, EXACT_BEFORE),
        (Termination.TIMEOUT, KODEKS_BEFORE),
    ):
        outcome = Outcome.from_json(termination, json.loads(stored))
        assert json.dumps(outcome.settlement_json()) == stored
    exact = Outcome.from_json(Termination.INTERRUPTED, json.loads(EXACT_BEFORE))
    assert exact == Outcome(Termination.INTERRUPTED, settle(exact_sheet()), "stopped: venue closes")
    assert exact.settlement is not None and exact.settlement.money == (
        Decimal("-3.334"), Decimal("1.667"), Decimal("1.667"),
    )  # fmt: skip


def test_a_fault_that_left_no_settlement_keeps_its_note_only() -> None:
    outcome = Outcome.from_json(Termination.FAULT, {"note": "server fault: ZeroDivisionError"})
    assert outcome == Outcome(Termination.FAULT, None, "server fault: ZeroDivisionError")
    assert outcome.settlement_json() == {"note": "server fault: ZeroDivisionError"}


def test_the_early_end_is_named_by_its_wire_value() -> None:
    assert Termination.INTERRUPTED.value == "interrupted"
