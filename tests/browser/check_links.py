"""Check a built book's links offline, and that a student edition holds no solution.

Usage (from the repository root)::

    python tests/browser/check_links.py --html _build/quick/_build/html
    python tests/browser/check_links.py --html _build/quick-student/_build/html --student

Without a browser (``check_book.py`` opens the pages in Chromium; this reads the files):

* every ``href`` and ``src`` of every page (links, images, scripts, style sheets,
  downloads, the PDF link of the footer) that is relative resolves to a file of the
  build, and its ``#anchor`` to an id in that file.  ``heldout.pdf`` is resolved once
  ``make pdf`` (or ``make quickpdf``) has put it beside the HTML; before that it is
  reported as missing only with ``--pdf``;
* every external link to the book's own repository, its published site, Binder or Colab
  (any link naming the repository's name on those hosts) is built from
  ``_config.yml``'s ``repository`` setting: the same owner and name, and the branch of the
  setting or the student branch;
* with ``--student``: no ``_sources`` folder, no answer key, a student notebook for every
  notebook page, and no solution text anywhere: the distinctive phrases of every
  solution of ``notebooks/*.ipynb`` (:func:`solution_phrases`) are searched for in the text
  of every page, in every file of ``_downloads`` and in the student notebooks.

Exit status 0 when every check passes, 1 otherwise (each problem printed on one line).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[2]
VERBOSE = False


def _course():
    if "heldout_course" in sys.modules:
        return sys.modules["heldout_course"]
    spec = importlib.util.spec_from_file_location(
        "heldout_course", ROOT / "book" / "_ext" / "heldout_course.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["heldout_course"] = module
    spec.loader.exec_module(module)
    return module


class _Page(HTMLParser):
    """The links (href, src) and ids of a page, and its text outside scripts and styles."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in {"href", "src"}:
                self.links.append(value)
            elif name in {"id", "name"} and (name == "id" or tag == "a"):
                self.ids.add(value)
        if tag in {"script", "style"}:
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in {"script", "style"} and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


@functools.cache
def read_page(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def page_text(path: Path) -> str:
    """A page's text as a reader sees it, whitespace squashed."""
    return _squash("".join(read_page(path).text))


# ---------------------------------------------------------------- links
def _pages(root: Path) -> list[Path]:
    """The book's pages (``_static`` holds the theme's template fragments, not pages)."""
    return [p for p in sorted(root.rglob("*.html")) if "_static" not in p.relative_to(root).parts]


def check_relative(root: Path, page: Path, href: str, want_pdf: bool) -> str | None:
    """None when a relative ``href`` of ``page`` resolves in the build, else the problem."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:", "data:")):
        return None
    path = unquote(parts.path)
    target = page if path == "" else (page.parent / path).resolve()
    if target.is_dir():
        target = target / "index.html"
    where = page.relative_to(root)
    if not target.is_file():
        if target.name == "heldout.pdf" and not want_pdf:
            return None  # beside the HTML once make pdf has run
        return f"{where}: broken link {href}"
    try:
        target.relative_to(root.resolve())
    except ValueError:
        return f"{where}: link {href} leaves the build"
    if parts.fragment and target.suffix == ".html":
        if unquote(parts.fragment) not in read_page(target).ids:
            return f"{where}: broken anchor {href}"
    return None


_HOSTS = ("github.com", "github.io", "mybinder.org", "colab.research.google.com",
          "raw.githubusercontent.com")  # fmt: skip


def check_own_repository(href: str, loc, branches: set[str]) -> str | None:
    """None unless ``href`` names the book's repository in a way the setting does not give."""
    parts = urlsplit(href)
    if not parts.netloc.endswith(_HOSTS):
        return None
    segments = [s for s in parts.path.split("/") if s]
    if parts.netloc.endswith(".github.io"):
        owner, names = parts.netloc.split(".")[0], segments[:1]
    else:
        owner, names = None, segments
    if loc.name not in names:
        return None
    if href.startswith(loc.site) or href.startswith(loc.repository + "/"):
        return None
    for branch in branches:
        for made in (loc.binder("", branch), loc.colab("", branch), loc.raw("", branch)):
            if href.startswith(made.rstrip("/")):
                return None
    if owner == loc.owner and href.startswith(loc.site.rstrip("/")):
        return None
    return f"link to the book's repository not derived from _config.yml: {href}"


def check_links(root: Path, want_pdf: bool = False) -> list[str]:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    course = _course()
    loc = course.location(config)
    branch = (config.get("sphinx", {}).get("config", {}) or {}).get("heldout_student_branch")
    branches = {loc.branch} | ({branch} if branch else set())
    problems = []
    for page in _pages(root):
        for href in sorted(set(read_page(page).links)):
            issue = check_relative(root, page, href, want_pdf) or check_own_repository(
                href, loc, branches
            )
            if issue:
                problems.append(issue)
    return problems


# ---------------------------------------------------------------- solutions
_PLAIN = re.compile(r"[A-Za-z][A-Za-z ,;]{38,}[A-Za-z]")


def _solution_texts(nb: dict) -> list[str]:
    """The text of every solution of a notebook: blocks, gated spans and tagged cells."""
    course = _course()
    out = []
    gated: list[str] | None = None
    for cell in nb["cells"]:
        source = "".join(cell.get("source", ""))
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "code":
            if gated is not None or course.SOLUTION_TAG in tags:
                out.append(source)
            continue
        lines = source.splitlines()
        i = 0
        while i < len(lines):
            match = course._FENCE.match(lines[i])
            if match:
                fence, kind = match.group(2), match.group(3)
                end = i + 1
                while end < len(lines) and lines[end].strip() != fence:
                    end += 1
                body = [ln for ln in lines[i + 1 : end] if not ln.lstrip().startswith(":")]
                if kind == "solution-start":
                    gated = body
                elif kind == "solution-end":
                    if gated is not None:
                        out.append("\n".join(gated))
                    gated = None
                else:
                    out.append("\n".join(body))
                i = end + 1
                continue
            if gated is not None:
                gated.append(lines[i])
            i += 1
    return out


def _looks_like_code(text: str) -> bool:
    return bool(re.search(r"^\s*(#|import |from |\w+ = |print\()", text, re.M))


def solution_phrases(nb: dict) -> list[str]:
    """Distinctive phrases of a notebook's solutions: runs of at least 40 plain characters
    (letters, spaces, commas) that the notebook without its solutions does not contain."""
    course = _course()
    kept = course.student_notebook(nb)["cells"]
    rest = _squash(" ".join("".join(c.get("source", "")) for c in kept))
    phrases = []
    for text in _solution_texts(nb):
        # prose wraps across lines; a line of code ends its phrase
        lines = text.splitlines() if _looks_like_code(text) else [_squash(text)]
        for run in (r for line in lines for r in _PLAIN.findall(line)):
            run = run.strip(" ,;")
            if len(run) >= 40 and run not in rest and run not in phrases:
                phrases.append(run)
    return phrases


def notebook_phrases(folder: Path = ROOT / "notebooks") -> dict[str, list[str]]:
    return {
        p.stem: solution_phrases(json.loads(p.read_text(encoding="utf-8")))
        for p in sorted(folder.glob("*.ipynb"))
    }


def check_student(root: Path, notebooks: Path = ROOT / "notebooks") -> list[str]:
    course = _course()
    problems = []
    if (root / "_sources").exists():
        problems.append("the student edition has _sources (the pages' sources hold solutions)")
    if (root / f"{course.ANSWER_KEY}.html").exists():
        problems.append("the student edition has the answer key")
    student_dir = root / course.STUDENT_DIR
    for page in sorted((root / "notebooks").glob("*.html")):
        if (notebooks / f"{page.stem}.ipynb").exists() and not (
            student_dir / f"{page.stem}.ipynb"
        ).exists():
            problems.append(f"no student notebook for {page.stem}")
    haystacks: dict[str, str] = {}
    for page in _pages(root):
        haystacks[str(page.relative_to(root))] = page_text(page)
    for path in sorted(root.rglob("*")):
        if path.is_file() and (course.STUDENT_DIR in path.parts or "_downloads" in path.parts):
            if path.suffix in {".ipynb", ".md", ".py", ".txt", ".csv", ".json"}:
                text = path.read_text(encoding="utf-8", errors="replace")
                haystacks[str(path.relative_to(root))] = _squash(text.replace("\\n", " "))
    for stem, phrases in notebook_phrases(notebooks).items():
        for phrase in phrases:
            for where, text in haystacks.items():
                if phrase in text:
                    problems.append(f"{where}: solution text of {stem}: {phrase!r}")
    return problems


def found_in_instructor(root: Path, notebooks: Path = ROOT / "notebooks") -> tuple[int, int]:
    """(phrases found in the instructor edition's pages, phrases): checks the phrases."""
    found = total = 0
    for stem, phrases in notebook_phrases(notebooks).items():
        page = root / "notebooks" / f"{stem}.html"
        if not page.exists():
            continue
        text = page_text(page)
        total += len(phrases)
        found += sum(phrase in text for phrase in phrases)
        for phrase in phrases:
            if phrase not in text and VERBOSE:
                print(f"not found in {stem}: {phrase!r}")
    return found, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=Path("_build/quick/_build/html"))
    parser.add_argument("--student", action="store_true", help="the student edition's checks")
    parser.add_argument("--pdf", action="store_true", help="heldout.pdf must be beside the HTML")
    args = parser.parse_args(argv)
    root = args.html.resolve()
    if not (root / "index.html").is_file():
        print(f"no built book at {args.html}", file=sys.stderr)
        return 1
    problems = check_links(root, args.pdf)
    if args.student:
        problems += check_student(root)
    else:
        found, total = found_in_instructor(root)
        print(f"solution phrases found in the instructor edition: {found} of {total}")
        if total and found < 0.9 * total:
            problems.append(f"only {found} of {total} solution phrases found in the pages")
    for problem in problems:
        print(problem)
    pages = len(_pages(root))
    print(f"{pages} pages checked: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
