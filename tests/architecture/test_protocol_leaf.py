"""The pure packages name their refusals with `app.protocol.codes.ErrorCode`; that is safe only while
`app.protocol` imports nothing else of the app (no cycle through the engine) and the codes module imports
nothing but the standard library's enum and typing (no I/O or framework reaches the pure core)."""

from __future__ import annotations

import ast
from pathlib import Path

PROTOCOL = Path(__file__).resolve().parents[2] / "app" / "protocol"


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_protocol_imports_nothing_else_of_the_app() -> None:
    for path in PROTOCOL.glob("*.py"):
        outside = {
            n for n in _imported(path) if n.split(".")[0] == "app" and not n.startswith("app.protocol")
        }
        assert not outside, f"{path.name} imports {sorted(outside)}"


def test_the_codes_import_only_enum_and_typing() -> None:
    assert _imported(PROTOCOL / "codes.py") <= {"__future__", "enum", "typing"}
