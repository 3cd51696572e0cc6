"""STYLE: the engine, clock, solver and robots are pure: no asyncio, web, database or wall-clock imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "app"
FORBIDDEN = {"asyncio", "fastapi", "starlette", "uvicorn", "websockets", "sqlalchemy", "asyncpg", "aiosqlite",
             "alembic", "socket", "app.server", "app.db", "app.auth", "app.bots"}  # fmt: skip


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("package", ["engine", "clock", "solver", "autoplay", "table", "robots"])
def test_pure_packages_import_no_io(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"app/{package} has no modules"
    for path in files:
        for name in _imports(path):
            root = name.split(".")[0]
            assert root not in FORBIDDEN and not any(
                name.startswith(f + ".") or name == f for f in FORBIDDEN
            ), f"{path.relative_to(ROOT.parent)} imports {name}"


def test_robots_read_no_clock() -> None:
    """Issue 12: a robot's decision never depends on how fast the machine is: no clock in app/robots."""
    clocks = {"time", "datetime"}
    for path in sorted((ROOT / "robots").rglob("*.py")):
        for name in _imports(path):
            assert name.split(".")[0] not in clocks, f"{path.relative_to(ROOT.parent)} imports {name}"
