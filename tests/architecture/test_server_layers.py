"""The server's rooms (issue 23 §1): packages by job, imported in one direction, no cycle dodged.

Each part of `app.server` may import at run time only parts below it in `LAYERS` (or its own package);
an import made for types only (under ``if TYPE_CHECKING:``) is free, since it never runs. No module
imports inside a function to dodge a cycle; the few lazy imports allowed are named with their reasons.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "app" / "server"

# Lowest first. Modules at the top of `app/server` are layers of their own.
LAYERS = [
    "timebase",
    "collector",
    "settings",
    "logs",
    "errors",
    "metrics",
    "context",
    "storage",
    "connections",
    "tables",
    "accounts",
    "ratings",
    "analysis",
    "cluster",
    "tournaments",
    "http",
    "app",
]

# Imports deliberately made inside a function, and why (anything else found there fails the test).
LAZY = {
    # The solver's compiled kernels are loaded only when a table first needs the robot.
    ("app.server.tables.robot", "app.autoplay.robot"),
    # The migration scripts are read only when an operator asks for the schema's revision.
    ("app.server.http.routes.ops", "alembic.config"),
    ("app.server.http.routes.ops", "alembic.script"),
    ("app.server.http.routes.ops", "app.db.migrate"),
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in SERVER.rglob("*.py"):
        parts = path.relative_to(SERVER.parent.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(names imported when the module runs, at its top level; names imported inside functions)."""
    top: set[str] = set()
    inner: set[str] = set()

    def names(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        base = node.module or ""
        return [base] + [f"{base}.{a.name}" for a in node.names]

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                (inner if in_function else top).update(names(child))
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    visit(tree, False)
    return top, inner


def _layer(module: str) -> int:
    part = module.split(".")[2] if module.count(".") >= 2 else ""
    return LAYERS.index(part)


MODULES = _modules()
GRAPH = {name: _imports(ast.parse(path.read_text())) for name, path in MODULES.items()}


def _server_targets(imported: set[str]) -> set[str]:
    return {name for name in imported if name in MODULES and name != "app.server"}


def test_every_part_of_the_server_has_a_layer() -> None:
    for module in MODULES:
        if module != "app.server":
            assert module.split(".")[2] in LAYERS, f"{module} is in no layer of the server"


def test_every_package_says_what_it_offers() -> None:
    for path in SERVER.rglob("__init__.py"):
        tree = ast.parse(path.read_text())
        doc = ast.get_docstring(tree)
        assert doc and len(doc) > 40, f"{path} has no docstring saying what the package offers"


def _upward(module: str, imported: set[str]) -> list[str]:
    """What ``module`` imports from a layer above its own (or beside it, outside its own package)."""
    mine = _layer(module)
    return [
        f"{module} (layer {LAYERS[mine]}) imports {target} (layer {LAYERS[_layer(target)]}) when it runs"
        for target in sorted(imported)
        if _layer(target) >= mine and target.split(".")[2] != module.split(".")[2]
    ]


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of the graph ``edges``, or None."""
    state: dict[str, int] = {}

    def walk(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := walk(nxt, [*path, nxt])):
                return found
        state[node] = 2
        return None

    for module in sorted(edges):
        if module not in state and (found := walk(module, [module])):
            return found
    return None


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != "app.server"))
def test_imports_only_go_down(module: str) -> None:
    assert not _upward(module, _server_targets(GRAPH[module][0]))


def test_no_import_cycle_between_modules() -> None:
    cycle = _cycle({m: _server_targets(GRAPH[m][0]) for m in MODULES})
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_import_inside_a_function_but_the_named_lazy_ones() -> None:
    found = set()
    for module, (_, inner) in GRAPH.items():
        for name in inner:
            if any(name == lazy or name.startswith(lazy + ".") for m, lazy in LAZY if m == module):
                continue
            found.add((module, name))
    assert not found, f"imports inside functions: {sorted(found)}"


def test_the_checks_can_fail() -> None:
    """Planted: a table module importing the HTTP layer, an import inside a function, and a cycle."""
    tree = ast.parse(
        "from app.server.http.deps import X\ndef f():\n    from app.server.tables import actor\n"
    )
    top, inner = _imports(tree)
    assert _upward("app.server.tables.actor", {"app.server.http.deps"} & top)
    assert not _upward("app.server.http.deps", {"app.server.tables.actor"})
    assert "app.server.tables" in inner
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
