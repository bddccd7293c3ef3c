"""The package's architecture, read from its own import statements.

Every ``import`` and ``from ... import`` of every module (at module level or inside a
function) is an edge of the module graph.  The wings are ranked; a module may import its
own wing and wings of lower rank only, the graph has no cycle, no module imports a flat
path of version 0.1, and the command line imports ``heldout.book`` only in ``rerun`` and
``mnist``.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "heldout"

#: Rank of each top-level part of the package; a module may import ranks below its own.
RANK = {
    "core": 0,
    "accuracy": 1,
    "comparison": 2,
    "dependent": 2,
    "sequential": 2,
    "judged": 2.5,  # scores graded by a model: above comparison/dependent/sequential
    "metrics": 3,
    "resampling": 3,
    "book": 4,
    "cli": 5,
}
CLI_MAY_IMPORT_BOOK = {"heldout.cli.rerun", "heldout.cli.mnist", "heldout.cli.check"}
#: Wings that only the book and the command line may import (not metrics or resampling).
LEAF_WINGS = {"judged"}


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                # ``from heldout.x import y``: y may itself be a module
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for t in targets:
                if t.startswith("heldout") and t in modules and t != name:
                    edges.add(t)
                elif t.startswith("heldout.") and t.count(".") == 1 and t not in modules:
                    edges.add(t)  # an unknown top-level path: kept to be reported
        graph[name] = edges
    return graph


GRAPH = _graph()


def wing(name: str) -> str:
    parts = name.split(".")
    if len(parts) == 1 or parts[1].startswith("_") or parts[1] in ("config", "__main__"):
        return "cli" if name == "heldout.__main__" else "core"
    return parts[1]


def test_the_graph_is_read():
    assert "heldout.metrics.auc" in GRAPH and "heldout.accuracy.bounds" in GRAPH
    assert "heldout._checks" in GRAPH["heldout.metrics.auc"]
    assert set(map(wing, GRAPH)) == set(RANK)


@pytest.mark.parametrize("name", sorted(GRAPH))
def test_imports_point_down(name):
    here = wing(name)
    bad = []
    for target in sorted(GRAPH[name]):
        there = wing(target)
        if target.removeprefix("heldout.") in _old_names():
            bad.append(f"{target} (a deprecated 0.1 path)")
        elif there != here and RANK[there] >= RANK[here]:
            bad.append(f"{target} ({there} is not below {here})")
        elif there in LEAF_WINGS and here != there and here not in ("book", "cli"):
            bad.append(f"{target} (only the book and the command line import {there})")
        elif here == "cli" and there == "book" and name not in CLI_MAY_IMPORT_BOOK:
            bad.append(f"{target} (the command line uses the book only in rerun and mnist)")
    assert not bad, f"{name} imports " + "; ".join(bad)


def _old_names() -> set[str]:
    tree = ast.parse((SRC / "_legacy.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0]
            if getattr(target, "id", None) == "MOVED":
                return set(ast.literal_eval(node.value))
    raise AssertionError("MOVED not found in _legacy.py")


def test_no_cycle():
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in sorted(GRAPH.get(n, ())):
            if m.rpartition(".")[0] == n or n.startswith(m + "."):
                continue  # a package and its own modules (lazy faces)
            if state.get(m) == 1:
                cycle = stack[stack.index(m) :] + [m]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(GRAPH):
        if n not in state:
            visit(n)


def test_a_planted_cycle_is_found(monkeypatch):
    monkeypatch.setitem(
        GRAPH,
        "heldout.accuracy.bounds",
        GRAPH["heldout.accuracy.bounds"] | {"heldout.accuracy.deviation"},
    )
    with pytest.raises(AssertionError, match="import cycle"):
        test_no_cycle()


@pytest.mark.parametrize(
    "face",
    [
        "accuracy",
        "comparison",
        "dependent",
        "judged",
        "metrics",
        "resampling",
        "book",
        "book.mnist",
        "book.course",
    ],
)
def test_each_wing_names_its_public_functions(face):
    """Every name of a wing's face resolves to what its module defines, and no name hides a module."""
    import importlib

    package = importlib.import_module(f"heldout.{face}")
    folder = SRC.joinpath(*face.split("."))
    modules = {p.stem for p in folder.glob("*.py")} | {
        p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").exists()
    }
    assert package.WHERE, face
    for name, module in package.WHERE.items():
        assert name not in modules, f"heldout.{face}.{name} would hide the module of that name"
        assert module in modules
        defined = importlib.import_module(f"heldout.{face}.{module}")
        assert getattr(package, name) is getattr(defined, name)
