"""Tests of the PDF check itself (tests/pdf/check_pdf.py) on a tiny synthetic book.

The text checks run on strings.  The end-to-end test makes a three-page PDF with
matplotlib (no TeX needed) for a two-chapter book with one fault of each kind the check
must report; it needs poppler's tools and is skipped without them.  ``make test`` runs
the real check on the quick profile's PDF.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("check_pdf", HERE / "check_pdf.py")
check_pdf = importlib.util.module_from_spec(spec)
sys.modules["check_pdf"] = check_pdf  # dataclasses look their module up
spec.loader.exec_module(check_pdf)


def test_leftovers_finds_unrendered_markup_but_not_code():
    code = check_pdf.normalize('label = r"$k$ errors"  # a plot label')
    text = (
        "The bound is $k/m$ here ?? and {glue:text}`x` with {cite}`a`.\n"
        "| a | b |\n|---|---|\n```{exercise}\n"
        "$ heldout bound --errors 3   (a shell prompt)\n"
        'the label r"$k$ errors" is code\n'
    )
    found = check_pdf.leftovers(text, code)
    kinds = sorted(p.split(":")[0] for p in found)
    assert kinds == [
        "Markdown table rule",
        "MyST fence",
        "MyST role",
        "MyST role",
        "unrendered math",
        "unresolved reference",
    ], found
    assert "$k/m$" in next(p for p in found if p.startswith("unrendered math"))
    assert check_pdf.leftovers("Fine text, 5 % and a prompt $ ls.", "") == []


def test_headings_skip_fences_and_pick_the_level():
    md = "# Title\n\n```python\n# not a heading\n```\n\n## One\n:::{note}\n## inside\n:::\n## Two `x`\n"
    assert check_pdf.headings(md, 1) == ["Title"]
    assert check_pdf.headings(md, 2) == ["One", "Two x"]


def test_the_books_documents_follow_the_toc():
    docs = check_pdf.book_documents()
    assert docs[0].docname == "book/intro" and len(docs[0].chapters) >= 2
    assert all(len(d.chapters) == 1 for d in docs[1:])
    assert "How sure is one score? The test set bound" in [t for d in docs for t in d.chapters]


def _notebook(path: Path, title: str, folded: str, shown: str) -> None:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": [f"# {title}\n"]},
        {"cell_type": "code", "metadata": {"tags": ["hide-input"]}, "source": [folded]},
        {"cell_type": "code", "metadata": {}, "source": [shown]},
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": ["```{exercise}\n:label: e1\nQ\n```\n"],
        },
        {"cell_type": "markdown", "metadata": {}, "source": ["```{solution} e1\nA\n```\n"]},
    ]
    path.write_text(
        json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )


@pytest.fixture()
def book(tmp_path: Path) -> Path:
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nparts:\n  - caption: P\n    chapters:\n"
        "      - file: notebooks/alpha\n      - file: notebooks/beta\n"
    )
    (tmp_path / "book/intro.md").write_text("# Book\n\n## Welcome\n\nText.\n")
    folded = "fig, ax = plt.subplots(figsize=(6, 4))  # folded away"
    _notebook(
        tmp_path / "notebooks/alpha.ipynb",
        "Alpha",
        folded,
        "bound = exact_upper(errors=38, items=100, delta=0.05)",
    )
    _notebook(
        tmp_path / "notebooks/beta.ipynb",
        "Beta",
        folded + " too",
        "size = required_size_for_margin(required=0.8, margin=0.03)",
    )
    html = tmp_path / "html"
    for name, images in (("book/intro", 0), ("notebooks/alpha", 1), ("notebooks/beta", 2)):
        (html / name).parent.mkdir(parents=True, exist_ok=True)
        imgs = "".join(f'<img src="../_images/{name[-4:]}{i}.png">' for i in range(images))
        (html / f"{name}.html").write_text(f"<html><body><pre>code</pre>{imgs}</body></html>")
    return tmp_path


def _pdf(path: Path, pages: list[tuple[str, int]]) -> None:
    """A PDF with the given text (one line per row, top down) and number of images a page."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.backends.backend_pdf import PdfPages

    with PdfPages(path) as pdf:
        for seed, (text, images) in enumerate(pages):
            fig = plt.figure(figsize=(6, 8))
            for row, line in enumerate(text.splitlines()):
                fig.text(0.05, 0.95 - 0.04 * row, line, fontsize=9, va="top", parse_math=False)
            for i in range(images):
                ax = fig.add_axes((0.1 + 0.4 * i, 0.1, 0.35, 0.25))
                ax.imshow(np.random.default_rng(seed * 10 + i).random((8, 8)))
                ax.axis("off")
            pdf.savefig(fig)
            plt.close(fig)


@pytest.mark.skipif(
    not all(shutil.which(t) for t in ("pdftotext", "pdfinfo", "pdfimages")),
    reason="needs poppler-utils (make pdf installs it)",
)
def test_check_reports_each_fault_of_a_small_book(book, monkeypatch):
    monkeypatch.setattr(check_pdf, "PAGES_PER_CHAPTER", (1, 40))
    good = [
        ("CHAPTER\nONE\nWELCOME\nText.", 0),
        (
            "CHAPTER\nTWO\nALPHA\nbound = exact_upper(errors=38, items=100, delta=0.05)\nExercise 1\nQ\n"
            "Solution to Exercise 1\nA",
            1,
        ),
        (
            "CHAPTER\nTHREE\nBETA\nsize = required_size_for_margin(required=0.8, margin=0.03)\nExercise 1\nQ\n"
            "Solution to Exercise 1\nA",
            2,
        ),
    ]
    _pdf(book / "good.pdf", good)
    report = check_pdf.check(book / "good.pdf", book / "html", book)
    assert report.pages == 3 and report.problems == [], report.problems

    bad = [
        ("CHAPTER\nONE\nWELCOME\nSee equation (??).", 0),
        (
            "CHAPTER\nTWO\nALPHA\nfig, ax = plt.subplots(figsize=(6, 4))  # folded away\n"
            "Exercise 1\nQ",
            1,
        ),
        (
            "CHAPTER\nTHREE\nGAMMA\nsize = required_size_for_margin(required=0.8, margin=0.03)\nthe rate $k/m$\n"
            "Exercise 1\nQ\nSolution to Exercise 1\nA",
            1,
        ),
    ]
    _pdf(book / "bad.pdf", bad)
    problems = "\n".join(check_pdf.check(book / "bad.pdf", book / "html", book).problems)
    assert "unresolved reference" in problems
    assert "notebooks/alpha: folded code printed" in problems
    assert "notebooks/alpha: shown code missing" in problems
    assert "notebooks/alpha: 1 exercises and 0 solutions printed" in problems
    assert "chapter 'Beta' missing" in problems
    assert "notebooks/beta: 1 figures in the PDF, 2 in the HTML page" in problems
    assert "notebooks/beta: unrendered math" in problems


def test_appendix_chapters_count_as_chapters():
    pages = ["CHAPTER\nONE\nWELCOME\n", "text", "APPENDIX\nA\nTHE RULES ON ONE PAGE\n", "more"]
    assert check_pdf.chapter_starts(pages) == [0, 2]
    assert check_pdf.chapter_starts(["Appendix of a chapter\n", "CHAPTERS\n"]) == []
