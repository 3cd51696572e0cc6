"""STYLE: the engine, clock, autoplay, solver, table step and robots are pure: no asyncio, I/O or clock.

Every module of those packages is scanned, the Cython kernel (``.pyx``) included: a robot decision or a
table step that read the clock would change with the machine's load (issue 9). Python modules are read
through their syntax tree (``import``/``from`` anywhere, and ``importlib.import_module``/``__import__``
of a literal name); ``.pyx`` sources line by line (``import``, ``from … (c)import``, ``cimport``,
``cdef extern from "<header>"``) and for the C clock functions by name. The checker itself is tested on
planted modules, so it is known to be able to fail.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "app"
PURE = ("engine", "clock", "autoplay", "solver", "table", "robots", "tournament")
FORBIDDEN = {"asyncio", "time", "datetime", "zoneinfo", "socket", "socketserver", "ssl", "select",
             "selectors", "http", "urllib", "sqlite3", "fastapi", "starlette", "uvicorn", "websockets",
             "sqlalchemy", "asyncpg", "aiosqlite", "alembic", "psycopg", "psycopg2", "posix.time",
             "libc.time", "sys.time", "app.server", "app.db", "app.auth", "app.bots"}  # fmt: skip
# C clock functions and headers a kernel could reach without a Python import.
CLOCK_NAMES = re.compile(
    r"\b(clock_gettime|gettimeofday|perf_counter|monotonic|time_ns|CLOCK_MONOTONIC|CLOCK_REALTIME|"
    r"timespec|timeval|rdtsc|__rdtsc)\b|<(sys/)?time\.h>|\"(sys/)?time\.h\""
)
PYX_IMPORT = re.compile(
    r"^\s*(?:from\s+([\w.]+)\s+c?import\b|c?import\s+([\w.]+(?:\s*,\s*[\w.]+)*)|"
    r"cdef\s+extern\s+from\s+[\"<]([^\">]+)[\">])"
)


def _module_name(name: str) -> str:
    """A module name, or a C header's as one (``<sys/time.h>`` is ``sys.time``)."""
    return name.strip('<>" ').removesuffix(".h").replace("/", ".")


def _forbidden(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FORBIDDEN)


def _python_imports(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                names.add(node.args[0].value)
    return names


def violations(path: Path) -> list[str]:
    """What in the module at ``path`` breaks purity; empty when nothing does."""
    source = path.read_text(encoding="utf-8")
    found: list[str] = []
    if path.suffix == ".py":
        found += [f"imports {name}" for name in sorted(_python_imports(source)) if _forbidden(name)]
        return found
    for number, line in enumerate(source.splitlines(), 1):
        code = line.split("#", 1)[0]
        match = PYX_IMPORT.match(code)
        if match:
            names = match.group(1) or match.group(3) or ""
            for raw in [names] if names else (match.group(2) or "").split(","):
                name = _module_name(raw)
                if _forbidden(name):
                    found.append(f"line {number} imports {name}")
        clock = CLOCK_NAMES.search(code)
        if clock:
            found.append(f"line {number} uses {clock.group(0)}")
    return found


def _modules(package: Path) -> list[Path]:
    return sorted(p for p in package.rglob("*") if p.suffix in (".py", ".pyx"))


@pytest.mark.parametrize("package", PURE)
def test_pure_packages_use_no_io_and_no_clock(package: str) -> None:
    files = _modules(ROOT / package)
    assert any(p.suffix == ".py" for p in files), f"app/{package} has no modules"
    bad = {str(p.relative_to(ROOT.parent)): v for p in files if (v := violations(p))}
    assert not bad, bad


def test_the_compiled_kernel_is_scanned() -> None:
    assert ROOT / "solver" / "_kernel.pyx" in _modules(ROOT / "solver")


PLANTED_PY = {
    "import time\n": "imports time",
    "from time import perf_counter\n": "imports time",
    "from datetime import datetime as now\n": "imports datetime",
    "import asyncio.events\n": "imports asyncio.events",
    "from app.server import settings\n": "imports app.server",
    "import importlib\nclock = importlib.import_module('time')\n": "imports time",
    "def f():\n    import socket\n": "imports socket",
}
PLANTED_PYX = {
    "from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec\n": "imports posix.time",
    "cimport posix.time\n": "imports posix.time",
    "import os, time\n": "imports time",
    'cdef extern from "<time.h>":\n    pass\n': "imports time",
    'cdef extern from "sys/time.h":\n    pass\n': "imports sys.time",
    "cdef double t = now(clock_gettime)\n": "uses clock_gettime",
    "t = perf_counter()\n": "uses perf_counter",
}


@pytest.mark.parametrize(("suffix", "source", "expected"),
                         [(".py", s, e) for s, e in PLANTED_PY.items()]
                         + [(".pyx", s, e) for s, e in PLANTED_PYX.items()])  # fmt: skip
def test_the_checker_catches_planted_impurities(
    tmp_path: Path, suffix: str, source: str, expected: str
) -> None:
    planted = tmp_path / f"planted{suffix}"
    planted.write_text(source, encoding="utf-8")
    found = violations(planted)
    assert any(expected in v for v in found), found


@pytest.mark.parametrize(("suffix", "source"), [
    (".py", "import random\nfrom app.engine.cards import Card\n# import time\n"),
    (".pyx", "from libc.stdint cimport uint32_t\nfrom app.solver.cancel import CANCEL_EVERY  # time\n"),
])  # fmt: skip
def test_the_checker_passes_clean_modules(tmp_path: Path, suffix: str, source: str) -> None:
    planted = tmp_path / f"clean{suffix}"
    planted.write_text(source, encoding="utf-8")
    assert violations(planted) == []
