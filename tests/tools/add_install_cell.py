"""Give every chapter notebook a first cell that installs heldout in a hosted notebook.

A chapter opened from its launch button on Colab (or any Jupyter without the package) has
no ``heldout`` to import.  Its first cell installs it there from the book's repository; in
the book's own build, in ``make lab`` and under nbmake, ``heldout`` is importable, so the
cell does nothing, and its ``remove-cell`` tag keeps it off the pages and out of the PDF.
It also names where the book lives (``BOOK_REPOSITORY``, ``BOOK_BRANCH``), for the cells
that fetch a file of the repository (the lab's example files).

Usage (from the repository root)::

    python tests/tools/add_install_cell.py           # add or refresh the cell everywhere
    python tests/tools/add_install_cell.py --check   # exit 1 if a notebook lacks it

The cell is found again by its id (``install-heldout``), so rerunning the script after a
merge refreshes it instead of adding a second one.  The repository URL and branch are read
from ``_config.yml`` (``repository.url`` and ``repository.branch``, the book's one setting
for where it lives, through ``book/_ext/heldout_course.py``'s ``location``).  Notebooks are rewritten with one-space indentation,
as Jupyter writes them, and nothing else in them changes.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CELL_ID = "install-heldout"
TAGS = ["remove-cell", "heldout-install"]


def _course_module():
    path = ROOT / "book" / "_ext" / "heldout_course.py"
    spec = importlib.util.spec_from_file_location("heldout_course", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("heldout_course", module)
    spec.loader.exec_module(module)
    return module


def book_location(root: Path = ROOT):
    """Where the book lives: the ``Location`` of ``_config.yml``'s repository setting."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    return _course_module().location(config)


def repository_url(root: Path = ROOT) -> str:
    """The repository URL of ``_config.yml``."""
    return book_location(root).repository


def install_source(url: str, branch: str = "main") -> str:
    """The cell's code: install heldout with the book extra only when it is missing."""
    loc = _course_module().Location(url, branch)
    return (
        "# On Colab or Binder without the package: install it from the book's repository, once\n"
        "# that is published (the book's own build skips this).  Written from _config.yml.\n"
        f'BOOK_REPOSITORY = "{loc.repository}"\n'
        f'BOOK_BRANCH = "{loc.branch}"\n'
        "try:\n"
        "    import heldout  # noqa: F401\n"
        "except ImportError:\n"
        f'    %pip install --quiet "{loc.pip_source}"'
    )


def install_cell(url: str, branch: str = "main") -> dict:
    """The cell as notebook JSON."""
    lines = install_source(url, branch).splitlines(keepends=True)
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": CELL_ID,
        "metadata": {"tags": list(TAGS)},
        "outputs": [],
        "source": lines,
    }


def has_cell(nb: dict, url: str, branch: str = "main") -> bool:
    """Does the notebook start with the current install cell?"""
    cells = nb.get("cells", [])
    return bool(cells) and cells[0] == install_cell(url, branch)


def add(nb: dict, url: str, branch: str = "main") -> bool:
    """Put the install cell first (replacing an older copy); True if the notebook changed."""
    if has_cell(nb, url, branch):
        return False
    cells = [c for c in nb["cells"] if c.get("id") != CELL_ID]
    nb["cells"] = [install_cell(url, branch), *cells]
    nb["nbformat"], nb["nbformat_minor"] = 4, max(nb.get("nbformat_minor", 5), 5)
    return True


def notebooks(root: Path = ROOT) -> list[Path]:
    """Every chapter notebook."""
    return sorted((root / "notebooks").glob("*.ipynb"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report notebooks lacking it")
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root")
    args = parser.parse_args(argv)
    loc = book_location(args.root)
    url, branch = loc.repository, loc.branch
    missing = []
    for path in notebooks(args.root):
        nb = json.loads(path.read_text(encoding="utf-8"))
        if args.check:
            if not has_cell(nb, url, branch):
                missing.append(path.name)
            continue
        if add(nb, url, branch):
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"added the install cell to {path.relative_to(args.root)}")
    if missing:
        print("no install cell in: " + ", ".join(missing), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
