"""The clock and the timeout procedure are pure: no wall clock, no I/O, no server (STYLE: pure core)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("time", "datetime", "asyncio", "fastapi", "sqlalchemy", "socket", "app.server", "app.db")


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("package", ["app/clock", "app/autoplay"])
def test_pure_layers_never_read_the_wall_clock_nor_do_io(package: str) -> None:
    """RULES.md §8 via STYLE: time comes in as an argument; the clock never reads it itself."""
    files = sorted((ROOT / package).glob("*.py"))
    assert files
    for path in files:
        for name in imported_modules(path):
            assert not any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN), (path.name, name)
