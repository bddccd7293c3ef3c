"""Check the printed book: the PDF that ``make pdf`` (or the quick step of ``make test``) built.

Reads the PDF with poppler's ``pdftotext``, ``pdfinfo`` and ``pdfimages`` and compares it
with the sources (``_toc.yml``, the notebooks and pages) and with the HTML build of the
same profile:

* the page count lies in a plausible range for the number of chapters;
* every chapter opens a page of its own, in the order of ``_toc.yml``, under its title
  (the first heading of its notebook or page; the root page's sections are chapters too);
* every chapter has as many figures as its HTML page, and every exercise its solution
  (sphinx-exercise prints a folded solution in full after its exercise);
* the source of the code cells the pages fold away (``hide-input``) is not printed, and
  the shown code is;
* nothing is left unresolved or unrendered: no ``??``, no MyST role or fence
  (``{glue``, ``{cite}``, ```` ``` ````), no Markdown table rule, no ``$...$`` outside
  code, and LaTeX's log reports no undefined reference and no missing glyph.

``python tests/pdf/check_pdf.py --pdf _build/quick/_build/latex/heldout.pdf
--html _build/quick/_build/html`` prints one line per chapter and the problems found;
it exits with status 1 when there are any.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("check_book", ROOT / "tests/browser/check_book.py")
check_book = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_book)

#: a chapter prints on at least this many pages and at most this many on average
PAGES_PER_CHAPTER = (2, 40)
FOLDING_TAGS = {"hide-input", "hide-cell"}
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})")
_SOLUTION = re.compile(r"^Solution to Exercise \d+", re.M)
# an exercise's heading (its number, chapter.place, at the start of a line); on a page
# without exercises such lines are references to other pages' exercises (the teaching
# page's plans), which are not counted
_EXERCISE = re.compile(r"^Exercise \d+(?:\.\d+)?\b", re.M)
_DIRECTIVE = {
    "exercise": re.compile(r"^\s*[`:]{3,}\{exercise(?:-start)?\}", re.M),
    "solution": re.compile(r"^\s*[`:]{3,}\{solution(?:-start)?\}", re.M),
}
#: markup that must not survive into the printed text (outside code)
LEFTOVERS = {
    "unresolved reference": re.compile(r"\?\?"),
    "MyST role": re.compile(r"\{(?:glue|cite|doc|eq|ref|numref|term|py:\w+)[:}]"),
    "MyST fence": re.compile(r"```|^:::", re.M),
    "Markdown table rule": re.compile(r"\|\s*:?-{3,}:?\s*\|"),
    "unrendered math": re.compile(r"\$\$|\$[^\s$](?:[^$]{0,200}?[^\s\\$])?\$"),
}


@dataclass
class Document:
    """One page of the book (a notebook or a Markdown page) and the chapters it prints as."""

    docname: str
    path: Path
    chapters: list[str]
    text: str = ""
    cells: list[dict] = field(default_factory=list)


def normalize(text: str) -> str:
    """Case-folded text with one space between words, typographic quotes and dashes plain."""
    table = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-"})
    text = text.translate(table).replace("\u00ad", "").replace("-\n", "-")
    return " ".join(text.split()).casefold()


def _plain_title(markdown: str) -> str:
    return re.sub(r"[`*_]|\\", "", markdown).strip()


def headings(markdown: str, level: int) -> list[str]:
    """The headings of one level in Markdown text, skipping fenced blocks."""
    found, fence = [], None
    for line in markdown.splitlines():
        opened = _FENCE.match(line)
        if opened:
            mark = opened.group(1)[0]
            if fence is None:
                fence = mark
            elif fence == mark:
                fence = None
            continue
        m = _HEADING.match(line)
        if fence is None and m and len(m.group(1)) == level:
            found.append(_plain_title(m.group(2)))
    return found


def _read(path: Path) -> tuple[str, list[dict]]:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            cell["source"] = "".join(cell["source"])
        text = "\n\n".join(c["source"] for c in cells if c["cell_type"] == "markdown")
        return text, cells
    return path.read_text(encoding="utf-8"), []


def book_documents(root: Path = ROOT) -> list[Document]:
    """The book's documents in ``_toc.yml`` order, each with the chapter titles it prints.

    The root page's title is the book's title; its second-level sections print as the
    first chapters.  Every other document prints as one chapter under its first heading.
    """
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]]
    for part in toc.get("parts", [{"chapters": toc.get("chapters", [])}]):
        names += [entry["file"] for entry in part.get("chapters", [])]
    docs = []
    for i, name in enumerate(names):
        path = next(root.glob(f"{name}.*"), None) if not Path(name).suffix else root / name
        if path is None:
            raise FileNotFoundError(f"_toc.yml names {name!r}, which has no file")
        docname = str(Path(name).with_suffix(""))
        text, cells = _read(path)
        titles = headings(text, 2) if i == 0 else headings(text, 1)[:1]
        docs.append(Document(docname, path, titles, text, cells))
    return docs


# --- the PDF, through poppler ---------------------------------------------------------


def _poppler(*argv: str) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def pdf_pages(pdf: Path) -> list[str]:
    """The text of each page (``pdftotext`` separates pages with form feeds)."""
    pages = _poppler("pdftotext", "-enc", "UTF-8", str(pdf), "-").split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


def pdf_page_count(pdf: Path) -> int:
    return int(re.search(r"^Pages:\s+(\d+)", _poppler("pdfinfo", str(pdf)), re.M).group(1))


def pdf_images(pdf: Path) -> list[tuple[int, str]]:
    """``(page, object)`` of every image drawn (soft masks of transparent PNGs excluded)."""
    rows = _poppler("pdfimages", "-list", str(pdf)).splitlines()[2:]
    out = []
    for row in rows:
        cols = row.split()
        if len(cols) > 11 and cols[2] == "image":
            out.append((int(cols[0]), f"{cols[10]} {cols[11]}"))
    return out


def chapter_starts(pages: list[str]) -> list[int]:
    """Indices of the pages that open a numbered chapter (first line ``CHAPTER``, or
    ``APPENDIX`` for the chapters after ``\\appendix``, which book/_ext/heldout_rules.py
    writes before the Reference part)."""
    return [
        i for i, page in enumerate(pages) if page.lstrip().startswith(("CHAPTER\n", "APPENDIX\n"))
    ]


# --- the HTML build of the same profile -----------------------------------------------


def html_figures(html: Path, docname: str) -> int:
    """Distinct images a built HTML page shows."""
    page = (html / f"{docname}.html").read_text(encoding="utf-8")
    return len(set(re.findall(r"<img\b[^>]*\bsrc=\"([^\"]*_images/[^\"]+)\"", page)))


def html_code_text(html: Path, docnames: list[str]) -> str:
    """All code (``pre``, ``code``, cell sources and outputs) of the built pages, normalized."""
    runs = []
    for docname in docnames:
        page = (html / f"{docname}.html").read_text(encoding="utf-8")
        runs += [t for t, c in check_book._runs(page) if c & check_book._CODE]
    return normalize(" ".join(runs))


# --- comparisons ------------------------------------------------------------------------


def leftovers(text: str, code: str = "") -> list[str]:
    """Markup left in printed text; a match that is part of the book's code is allowed."""
    flat = " ".join(text.split())
    problems = []
    for what, pattern in LEFTOVERS.items():
        for m in pattern.finditer(text if what == "MyST fence" else flat):
            if normalize(m.group(0)) in code:
                continue
            start = max(m.start() - 40, 0)
            source = text if what == "MyST fence" else flat
            context = " ".join(source[start : m.end() + 40].split())
            problems.append(f"{what}: ...{context}...")
    return problems


def _code_cells(doc: Document, folded: bool) -> list[str]:
    return [
        c["source"]
        for c in doc.cells
        if c["cell_type"] == "code"
        and bool(FOLDING_TAGS & set(c.get("metadata", {}).get("tags", []))) == folded
        and "remove-cell" not in c.get("metadata", {}).get("tags", [])
        and "remove-input" not in c.get("metadata", {}).get("tags", [])
    ]


def code_probes(docs: list[Document], folded: bool, width: int = 40) -> dict[str, list[str]]:
    """Per document, the starts of code lines that only folded (or only shown) cells hold.

    A line of at least ``width`` characters that appears nowhere else in the book (no
    other cell, no prose) identifies its cell in the PDF text.
    """
    everywhere = []
    for doc in docs:
        everywhere.append(normalize(doc.text))
        everywhere += [normalize(s) for s in _code_cells(doc, not folded)]
    other = "\n".join(everywhere)
    probes = {}
    for doc in docs:
        found = []
        for source in _code_cells(doc, folded):
            for line in source.splitlines():
                probe = normalize(line)[:width]
                if len(probe) == width and probe not in other and not line.lstrip().startswith("#"):
                    found.append(probe)
                    break  # one line per cell
        if found:
            probes[doc.docname] = found
    return probes


def latex_log_problems(log: Path) -> list[str]:
    if not log.exists():
        return []
    text = log.read_text(encoding="utf-8", errors="replace")
    problems = [f"LaTeX: {line.strip()}" for line in re.findall(r".*Missing character.*", text)]
    if "There were undefined references" in text:
        problems.append("LaTeX: there were undefined references (see the .log)")
    return problems[:20]


@dataclass
class Report:
    pages: int = 0
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def check(pdf: Path, html: Path, root: Path = ROOT) -> Report:
    docs = book_documents(root)
    report = Report(pages=pdf_page_count(pdf))
    pages = pdf_pages(pdf)
    problems = report.problems
    expected = [title for doc in docs for title in doc.chapters]
    low, high = (n * len(expected) for n in PAGES_PER_CHAPTER)
    if not low <= report.pages <= high:
        problems.append(f"{report.pages} pages: outside {low}-{high} for {len(expected)} chapters")

    starts = chapter_starts(pages)
    if len(starts) != len(expected):
        problems.append(f"{len(starts)} chapters open in the PDF, _toc.yml gives {len(expected)}")
    for title, start in zip(expected, starts, strict=False):
        if normalize(title) not in normalize(pages[start][:400]):
            problems.append(f"chapter {title!r} missing: page {start + 1} opens another")

    # each document's page range runs from its first chapter to the next document's
    first_page, k = {}, 0
    for doc in docs:
        if doc.chapters and k < len(starts):
            first_page[doc.docname] = starts[k]
        k += len(doc.chapters)
    bounds = sorted(first_page.values()) + [len(pages)]
    images = pdf_images(pdf)
    code = html_code_text(html, [d.docname for d in docs])
    folded = code_probes(docs, folded=True)
    shown = code_probes(docs, folded=False)
    for doc in docs:
        if doc.docname not in first_page:
            continue
        a = first_page[doc.docname]
        b = next(x for x in bounds if x > a)
        text = "\n".join(pages[a:b])
        flat = normalize(text)
        figures = len({obj for page, obj in images if a < page <= b})
        want = html_figures(html, doc.docname)
        exercises = len(_DIRECTIVE["exercise"].findall(doc.text))
        solutions = len(_DIRECTIVE["solution"].findall(doc.text))
        got_ex, got_sol = len(_EXERCISE.findall(text)), len(_SOLUTION.findall(text))
        if exercises == 0:
            got_ex = 0  # references only (a printed solution is still caught below)
        report.lines.append(
            f"{doc.docname:32} pages {a + 1:>3}-{b:<3} figures {figures}/{want}"
            f"  exercises {got_ex}/{exercises}  solutions {got_sol}/{solutions}"
        )
        if figures != want:
            problems.append(f"{doc.docname}: {figures} figures in the PDF, {want} in the HTML page")
        if (got_ex, got_sol) != (exercises, solutions):
            problems.append(
                f"{doc.docname}: {got_ex} exercises and {got_sol} solutions printed, "
                f"the source has {exercises} and {solutions}"
            )
        problems += [
            f"{doc.docname}: folded code printed: {p!r}"
            for p in folded.get(doc.docname, [])
            if p in flat
        ]
        problems += [
            f"{doc.docname}: shown code missing: {p!r}"
            for p in shown.get(doc.docname, [])
            if p not in flat
        ]
        problems += [f"{doc.docname}: {p}" for p in leftovers(text, code)[:10]]
    problems += latex_log_problems(pdf.with_suffix(".log"))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pdf", type=Path, default=Path("_build/quick/_build/latex/heldout.pdf"))
    parser.add_argument("--html", type=Path, default=Path("_build/quick/_build/html"))
    parser.add_argument("--root", type=Path, default=ROOT, help="the book's sources")
    args = parser.parse_args(argv)
    report = check(args.pdf, args.html, args.root)
    print(f"{args.pdf}: {report.pages} pages")
    print("\n".join(report.lines))
    for problem in report.problems:
        print("PROBLEM", problem)
    print(f"PDF check: {len(report.problems)} problem(s)")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
