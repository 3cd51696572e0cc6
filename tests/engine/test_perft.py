"""Perft goldens: the exact number of legal-action sequences from fixed positions (STYLE: python-chess perft).

`perft.txt` (its format is documented at its top) names each position by its action log: a recorded
shuffle and the actions applied since. The log is replayed with `apply`, and the count at each depth is
computed with `legal_actions` and `apply` only, so an action that `legal_actions` adds or drops anywhere in
the tree changes a count. The numbers in the file came from the engine; each entry's depth-1 count is
checked by hand against RULES.md in the file's comments.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app.engine import (
    Action,
    TableState,
    action_from_json,
    apply,
    conventions_from,
    current_actor,
    legal_actions,
    new_table,
)

PERFT_FILE = Path(__file__).with_name("perft.txt")


@dataclass
class Entry:
    """One position of `perft.txt` and its pinned counts per depth."""

    name: str
    line: int  # where the entry starts in the file, for messages
    seats: int = 0
    dealer: int = 0
    preset: str = "fspr-leningrad"
    overrides: dict[str, Any] = field(default_factory=dict)
    actions: list[Action] = field(default_factory=list)
    counts: dict[int, int] = field(default_factory=dict)

    def position(self) -> TableState:
        """The table after the entry's action log; the seat to act must be a player."""
        state = new_table(self.seats, conventions_from(self.preset, self.overrides), self.dealer)
        for number, action in enumerate(self.actions, 1):
            try:
                state, _ = apply(state, action)
            except Exception as exc:
                raise AssertionError(f"{self.name}: action {number} of the log was refused: {exc}") from exc
        assert current_actor(state) is not None, f"{self.name}: no player acts at the end of the log"
        return state


def perft(state: TableState, depth: int) -> int:
    """Sequences of exactly ``depth`` legal actions from ``state`` (see perft.txt)."""
    actions = legal_actions(state)
    if depth == 1:
        return len(actions)
    return sum(perft(apply(state, action)[0], depth - 1) for action in actions)


def parse(text: str) -> list[Entry]:
    """The entries of a perft file; a malformed line raises ValueError naming the line."""
    entries: list[Entry] = []
    entry: Entry | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("#"):
            continue
        if not line:
            entry = None
            continue
        key, _, value = line.partition(" ")
        if key == "id":
            entry = Entry(value.strip(), number)
            entries.append(entry)
            continue
        if entry is None:
            raise ValueError(f"line {number}: {key!r} outside an entry (an entry starts with 'id')")
        if key == "seats":
            entry.seats = int(value)
        elif key == "dealer":
            entry.dealer = int(value)
        elif key == "preset":
            entry.preset = value.strip()
        elif key == "conventions":
            entry.overrides = json.loads(value)
        elif key == "action":
            entry.actions.append(action_from_json(json.loads(value)))
        elif key == "perft":
            depth, count = value.split()
            entry.counts[int(depth)] = int(count)
        else:
            raise ValueError(f"line {number}: unknown key {key!r}")
    for e in entries:
        if e.seats not in (3, 4) or not e.actions or set(e.counts) != {1, 2, 3}:
            raise ValueError(f"line {e.line}: entry {e.name!r} needs seats, actions and perft 1, 2 and 3")
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise ValueError("entry names must be unique")
    return entries


ENTRIES = parse(PERFT_FILE.read_text(encoding="utf-8"))
CASES = [(entry, depth) for entry in ENTRIES for depth in sorted(entry.counts)]


@pytest.mark.parametrize(("entry", "depth"), CASES, ids=[f"{e.name}-depth{d}" for e, d in CASES])
def test_perft(entry: Entry, depth: int) -> None:
    got = perft(entry.position(), depth)
    want = entry.counts[depth]
    where = f"perft entry {entry.name!r} (perft.txt line {entry.line}), depth {depth}"
    assert got == want, f"{where}: {got} sequences, the file says {want}"


def test_the_file_covers_both_table_sizes_and_every_phase_a_player_acts_in() -> None:
    """The goldens must pin each phase's generator, at 3 and at 4 seats."""
    phases = {entry.position().phase.value for entry in ENTRIES}
    assert {"bidding", "discard", "contract", "whisting", "play_mode", "play"} <= phases
    assert {entry.seats for entry in ENTRIES} == {3, 4} and len(ENTRIES) >= 12


def test_a_wrong_count_names_the_entry_and_the_depth() -> None:
    """The checker can fail: a count off by one is reported with the entry's name and the depth."""
    entry = ENTRIES[0]
    wrong = Entry(entry.name, entry.line, entry.seats, entry.dealer, entry.preset, entry.overrides,
                  entry.actions, {**entry.counts, 1: entry.counts[1] + 1})  # fmt: skip
    with pytest.raises(AssertionError, match=rf"{entry.name}.*depth 1"):
        test_perft(wrong, 1)
