"""Guards of the project set-up: notebooks, table of contents, environments."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _toc_files(node) -> list[str]:
    found = []
    if isinstance(node, dict):
        for key in ("root", "file"):
            if key in node:
                found.append(node[key])
        for value in node.values():
            if isinstance(value, list | dict):
                found.extend(_toc_files(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_toc_files(item))
    return found


def test_there_are_chapter_notebooks():
    assert len(NOTEBOOKS) >= 7


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_committed_without_outputs(path):
    nb = json.loads(path.read_text())
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {i} carries outputs: strip them"
            assert cell.get("execution_count") is None, (
                f"{path.name} cell {i} has an execution count"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_imports_heldout(path):
    nb = json.loads(path.read_text())
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert re.search(r"^\s*(import heldout|from heldout)", code, re.M), (
        f"{path.name} does not use heldout"
    )


def test_every_notebook_and_page_is_in_the_toc():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    listed = set(_toc_files(toc))
    for path in NOTEBOOKS:
        assert f"notebooks/{path.stem}" in listed, f"{path.name} is missing from _toc.yml"
    for entry in listed:
        matches = [p for p in (ROOT / f"{entry}.md", ROOT / f"{entry}.ipynb") if p.exists()]
        assert len(matches) == 1, (
            f"_toc.yml lists {entry!r} but no single .md/.ipynb file has that name"
        )


_NAME = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$")


def _split(requirement: str) -> tuple[str, str]:
    name, spec = _NAME.match(requirement).groups()
    name = re.sub(r"[-_.]+", "-", name).lower()
    spec = ",".join(sorted(s.strip() for s in spec.replace(" ", "").split(",") if s.strip()))
    return name, spec


def _pyproject_requirements() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(data["dependencies"])
    for extra in data["optional-dependencies"].values():
        reqs.extend(extra)
    out: dict[str, str] = {}
    for req in reqs:
        name, spec = _split(req)
        assert out.get(name, spec) == spec, f"{name} pinned two ways in pyproject.toml"
        out[name] = spec
    return out


def _environment_requirements() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    out: dict[str, str] = {}
    for dep in env["dependencies"]:
        items = dep["pip"] if isinstance(dep, dict) else [dep]
        for item in items:
            if item.startswith("-e") or item.split(">")[0].split("=")[0] in {"python", "pip"}:
                continue
            name, spec = _split(item)
            out[name] = spec
    return out


def test_environment_yml_agrees_with_pyproject():
    assert _environment_requirements() == _pyproject_requirements()


def test_core_dependencies_are_light():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert {_split(r)[0] for r in data["dependencies"]} == {"numpy", "scipy", "matplotlib"}


def test_environment_pins_python_like_pyproject():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert f"python{data['requires-python']}" in env["dependencies"]
