"""Docstrings are reStructuredText: a citation there is ``:cite:`key` ``, never MyST's ``{cite}``.

autodoc reads the package's docstrings as reStructuredText, where the MyST role
``{cite}`key` `` is not a role at all: the API page then shows it raw, braces and
backticks included.  This test fails on any ``{cite}`` in ``src/`` and names every
offending line.
"""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
MYST_CITE = re.compile(r"\{cite(?::[a-z]+)?\}`")


def myst_cites(root: Path) -> list[str]:
    """Every ``path:line: text`` under ``root`` that uses a MyST cite role."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if MYST_CITE.search(line):
                found.append(f"{path.relative_to(root.parent)}:{number}: {line.strip()}")
    return found


def test_the_detector_finds_myst_roles_and_not_rst_roles(tmp_path: Path):
    pkg = tmp_path / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "a.py").write_text('"""Bound {cite}`langford2005` and {cite:p}`x`."""\n')
    (pkg / "b.py").write_text('"""Bound :cite:`langford2005`; a dict {"cite": 1}."""\n')
    found = myst_cites(tmp_path / "src")
    assert found == ['src/pkg/a.py:1: """Bound {cite}`langford2005` and {cite:p}`x`."""']


def test_no_myst_cite_role_in_the_package():
    found = myst_cites(SRC)
    assert not found, (
        "docstrings are reStructuredText: write :cite:`key`, not {cite}`key`:\n" + "\n".join(found)
    )
