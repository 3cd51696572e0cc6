"""``python -m app.engine.scoring settle`` and the result-file format (issue 3, RULES.md §5–§7)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.engine.scoring.__main__ import main

ISSUE_EXAMPLE: dict[str, Any] = {
    "seats": 3,
    "pool_size": 10,
    "preset": "fspr-leningrad",
    "overrides": {},
    "deals": [
        {
            "dealer": 2,
            "type": "game",
            "declarer": 0,
            "contract": "7h",
            "calls": [[1, "whist"], [2, "whist"]],
            "play": "closed",
            "tricks": {"0": 6, "1": 3, "2": 1},
        },
        {
            "dealer": 0,
            "type": "game",
            "declarer": 1,
            "contract": "8d",
            "calls": [[2, "pass"], [0, "whist"]],
            "play": "open",
            "tricks": {"1": 8, "2": 0, "0": 2},
        },
        {
            "dealer": 1,
            "type": "game",
            "declarer": 2,
            "contract": "misere",
            "tricks": {"2": 0, "0": 5, "1": 5},
        },
        {"dealer": 1, "type": "allpass", "tricks": {"0": 3, "1": 5, "2": 2}, "talon_tricks": 0},
        {"dealer": 2, "type": "zastrel", "declarer": 0, "contract": "6s"},
        {"type": "timeout", "seat": 1},
    ],
}


def run(
    data: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    text = data if isinstance(data, str) else json.dumps(data)
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    status = main(["settle", "-"])
    out, err = capsys.readouterr()
    return status, out, err


def test_issue_example(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's example file, by hand (§5–§7):
    7♥ down 1 (P=4): A mountain 8; B writes 24 + 8, C 8 + 8. 8♦ made: B pool 6, A writes 2·6·2 = 24.
    Misère clean: C pool 10. All-pass step 1 (price 2): A 3·2 = 6, B 5·2 = 10, C 2·2 = 4. Zastrel 6♠: A +12.
    Timeout of B: A and C write 50 on B. Pools 0, 6, 10; mountains 26, 10, 4; whists A→B 74, B→A 32,
    C→A 16, C→B 50; not finished (16 < 30).
    Settlement: mountains + 2·(10 − pool): 46, 18, 4. Variant 1: amnesty → 42, 14, 0; 42: 140 from B and C;
    14 → 15 (B writes 3 on A and C), 50 from A and C. A: 124 − 175 − 156 = −207; B: 178 − 224 = −46;
    C: 256 − 3 = 253. Variant 2: sum 68 → A 47 (A writes 3 on B, C), average 23: A −240 + 32 = −208,
    B 50 − 95 = −45, C 190 + 63 = 253. Exact A: 680/3 − 460 + 26 = −622/3.
    """
    status, out, err = run(ISSUE_EXAMPLE, capsys, monkeypatch)
    assert status == 0, err
    assert json.loads(out) == {
        "pools": [0, 6, 10],
        "mountains": [26, 10, 4],
        "whists": [[0, 74, 0], [32, 0, 0], [16, 50, 0]],
        "finished": False,
        "settlement": {
            "variant1": [-207, -46, 253],
            "variant2": [-208, -45, 253],
            "exact": ["-622/3", "-136/3", "758/3"],
        },
    }


def test_four_seats_with_dealer_names(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """§4.8 and §3.3 with the seat name "dealer": a dealer whist after pass–pass on 8♠ (P=6), declarer 7:
    the dealer writes 2·6·3 + 3·12 = 72, the declarer mountain 12; then a misère for two, clean: 5 + 5."""
    data = {
        "seats": 4,
        "deals": [
            {
                "dealer": 3,
                "type": "game",
                "declarer": 0,
                "contract": "8s",
                "calls": [[1, "pass"], [2, "pass"], ["dealer", "whist"]],
                "play": "open",
                "tricks": {"0": 7, "1": 2, "2": 1},
            },
            {
                "dealer": 0,
                "type": "misere",
                "declarer": 1,
                "contract": "misere",
                "partner": "dealer",
                "tricks": {"1": 0, "2": 5, "3": 5},
            },
        ],
    }
    status, out, err = run(data, capsys, monkeypatch)
    assert status == 0, err
    printed = json.loads(out)
    assert printed["pools"] == [5, 5, 0, 0]
    assert printed["mountains"] == [12, 0, 0, 0]
    assert printed["whists"][3] == [72, 0, 0, 0]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d["deals"][1].pop("tricks"), "deals[1].tricks"),
        (lambda d: d["deals"][0].update(contract="6x"), "deals[0].contract"),
        (lambda d: d["deals"][3].update(type="raspasy"), "deals[3].type"),
        (lambda d: d["deals"][0].update(calls=[[0, "whist"]]), "deals[0].calls"),
        (lambda d: d["deals"][3].update(tricks={"0": 3, "1": 5, "2": 1}), "deals[3].tricks"),
        (lambda d: d["deals"][4].update(contract="8s"), "deals[4].contract"),
        (lambda d: d["deals"][5].update(seat=7), "deals[5].seat"),
        (lambda d: d["deals"][2].update(partner="dealer"), "deals[2].partner"),
        (lambda d: d["deals"][0].update(colour="red"), "deals[0].colour"),
        (lambda d: d.update(seats=5), "file.seats"),
        (lambda d: d["overrides"].update(pool_size=0), "pool_size"),
    ],
)
def test_bad_files_name_the_deal_and_field(
    change: Any, expected: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 3: a bad file gets a one-line error naming the deal and field, and exit status 2."""
    data = json.loads(json.dumps(ISSUE_EXAMPLE))
    change(data)
    status, out, err = run(data, capsys, monkeypatch)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert expected in err


def test_not_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    status, _, err = run("{nope", capsys, monkeypatch)
    assert status == 2
    assert err.startswith("error: file: not JSON")


def test_runs_as_a_module_on_a_file(tmp_path: Path) -> None:
    """The command line itself, reading a file path."""
    path = tmp_path / "pulya.json"
    path.write_text(json.dumps(ISSUE_EXAMPLE), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "app.engine.scoring", "settle", str(path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["settlement"]["variant1"] == [-207, -46, 253]
