"""The offline link check and the student edition's solution search, on small folders."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("check_links", ROOT / "tests/browser/check_links.py")
check_links = importlib.util.module_from_spec(spec)
sys.modules.setdefault("check_links", check_links)
spec.loader.exec_module(check_links)

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
LOC = check_links._course().location(CONFIG)


def _site(tmp_path: Path, links: list[str]) -> Path:
    root = tmp_path / "html"
    (root / "notebooks").mkdir(parents=True)
    (root / "index.html").write_text('<a href="notebooks/a.html#top">a</a>')
    body = "".join(f'<a href="{h}">x</a>' for h in links)
    (root / "notebooks" / "a.html").write_text(f'<h1 id="top">A</h1>{body}<img src="../i.png">')
    (root / "i.png").write_bytes(b"png")
    return root


def test_relative_links_images_and_anchors_resolve(tmp_path):
    root = _site(tmp_path, ["#top", "../index.html", "a.html#top", "../heldout.pdf"])
    assert check_links.check_links(root) == []
    problems = check_links.check_links(root, want_pdf=True)
    assert problems == ["notebooks/a.html: broken link ../heldout.pdf"]


def test_broken_files_and_anchors_are_reported(tmp_path):
    root = _site(tmp_path, ["b.html", "a.html#nowhere", "../../outside.html"])
    problems = check_links.check_links(root)
    assert any("broken link b.html" in p for p in problems)
    assert any("broken anchor a.html#nowhere" in p for p in problems)
    assert any("outside.html" in p for p in problems)
    assert len(problems) == 3


def test_links_to_the_book_repository_must_come_from_the_setting(tmp_path):
    good = [LOC.binder("notebooks/a.ipynb"), LOC.colab("notebooks/a.ipynb", "student"),
            LOC.repository + "/blob/main/x", LOC.site + "heldout.pdf",
            "https://github.com/someone/else"]  # fmt: skip
    assert check_links.check_links(_site(tmp_path / "g", good)) == []
    bad = [f"https://github.com/a-fork/{LOC.name}", f"https://a-fork.github.io/{LOC.name}/",
           LOC.binder("notebooks/a.ipynb", "dev")]  # fmt: skip
    problems = check_links.check_links(_site(tmp_path / "b", bad))
    assert len(problems) == 3 and all("not derived" in p for p in problems)


def _notebooks(tmp_path: Path) -> Path:
    folder = tmp_path / "notebooks"
    folder.mkdir()
    cells = [
        {"cell_type": "markdown", "metadata": {}, "id": "m",
         "source": "```{exercise} Concept · easy: q\n:label: a-ex1\nWhy is the sky blue at noon?\n```\n"
                   "```{solution} a-ex1\n:class: dropdown\nBecause short wavelengths scatter more "
                   "strongly in the air than long ones do\n```\n"},
        {"cell_type": "code", "metadata": {"tags": ["remove-cell", "solution"]}, "id": "c",
         "source": "# the hidden answer computed with a rather distinctive comment line\nx = 1",
         "outputs": [], "execution_count": None},
    ]  # fmt: skip
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (folder / "a.ipynb").write_text(json.dumps(nb))
    return folder


def test_solution_phrases_are_the_solutions_own_text(tmp_path):
    nb = json.loads((_notebooks(tmp_path) / "a.ipynb").read_text())
    phrases = check_links.solution_phrases(nb)
    assert "Because short wavelengths scatter more strongly in the air than long ones do" in phrases
    assert any(
        p.startswith("the hidden answer computed with a rather distinctive") for p in phrases
    )
    assert not any("sky blue" in p for p in phrases)  # the statement is no solution


def test_student_check_finds_leaks_in_pages_and_notebooks(tmp_path):
    notebooks = _notebooks(tmp_path)
    course = check_links._course()
    root = _site(tmp_path, [])
    (root / "notebooks" / "a.html").write_text("<p>Why is the sky blue at noon?</p>")
    student = root / course.STUDENT_DIR
    student.mkdir()
    nb = json.loads((notebooks / "a.ipynb").read_text())
    (student / "a.ipynb").write_text(json.dumps(course.student_notebook(nb)))
    assert check_links.check_student(root, notebooks) == []
    # a leak in a page, split by markup as highlighting splits code
    (root / "notebooks" / "a.html").write_text(
        "<p>Because short wavelengths <em>scatter</em> more\nstrongly in the air than long ones do</p>"
    )
    (root / "_sources").mkdir()
    check_links.read_page.cache_clear()  # the page changed on disk
    problems = check_links.check_student(root, notebooks)
    assert any("solution text of a" in p and "a.html" in p for p in problems)
    assert any("_sources" in p for p in problems)
    (student / "a.ipynb").write_text(json.dumps(nb))  # the full notebook
    assert any(course.STUDENT_DIR in p for p in check_links.check_student(root, notebooks))
