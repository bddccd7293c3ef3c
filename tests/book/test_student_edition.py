"""The student edition and the exercises' references, in tiny Sphinx builds.

A two-part project (a start part without exercises, then two chapters with exercises,
one with a gated solution holding code, one with a cell tagged ``solution``) is built with
MyST-NB, sphinx-exercise, the book's theme and ``book/_ext/heldout_course.py``: once as
the instructor edition and once as the student edition.  Each solution's text must be in
the first and nowhere in the second (pages, sources, downloads, student notebooks).
"""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from file_modules import load as _load

ROOT = Path(__file__).resolve().parents[2]


course = _load("heldout_course", ROOT / "book" / "_ext" / "heldout_course.py")

SECRET = {
    "one": "The bound is four point two, written out.",
    "gated": "GATED_ANSWER_CODE = 17",
    "tagged": "TAGGED_ANSWER_CELL = 23",
    "two": "Two answers agree: seven.",
}


def _cell(kind: str, source: str, tags: list[str] | None = None, ident: str = "") -> dict:
    cell = {"cell_type": kind, "metadata": {"tags": tags or []}, "source": source,
            "id": ident or f"c{abs(hash(source)) % 10**8}"}  # fmt: skip
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


def _nb(cells: list[dict]) -> dict:
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}}}  # fmt: skip


def _project(src: Path) -> None:
    (src / "notebooks").mkdir(parents=True)
    (src / "index.md").write_text(
        "# Book\n\n```{toctree}\n:caption: Start\nplan\n```\n\n"
        "```{toctree}\n:caption: Lessons\nnotebooks/one\nnotebooks/two\n```\n"
    )
    (src / "plan.md").write_text(
        "# Plan\n\nAssign `one-ex-b` and `two-ex1`; `not-a-label` stays code.\n"
    )
    one = [
        _cell(
            "markdown",
            "# One\n\n## Exercises\n\n```{exercise} Concept · easy: first\n"
            ":label: one-ex-b\nWhat is the bound?\n```\n\n```{solution} one-ex-b\n"
            f":class: dropdown\n{SECRET['one']}\n```\n",
        ),  # fmt: skip
        _cell(
            "markdown",
            "```{exercise} Computation · easy: second\n:label: one-ex-a\n"
            "Compute it.\n```\n\n```{solution-start} one-ex-a\n:class: dropdown\n```\n"
            "By code:",
        ),  # fmt: skip
        _cell("code", f"{SECRET['gated']}\nprint(GATED_ANSWER_CODE)"),
        _cell("markdown", "```{solution-end}\n```\n\nAfter the exercises."),
    ]
    two = [
        _cell("markdown", "# Two\n\nText before."),
        _cell("code", f"{SECRET['tagged']}\nprint(TAGGED_ANSWER_CELL)", ["hide-input", "solution"]),
        _cell(
            "markdown",
            "```{exercise} Data · medium: only\n:label: two-ex1\nDo it.\n```\n\n"
            f"```{{solution}} two-ex1\n:class: dropdown\n{SECRET['two']}\n```\n",
        ),  # fmt: skip
    ]
    (src / "notebooks" / "one.ipynb").write_text(json.dumps(_nb(one)))
    (src / "notebooks" / "two.ipynb").write_text(json.dumps(_nb(two)))


def _build(tmp_path: Path, student: bool, monkeypatch, src: Path | None = None) -> tuple[Path, str]:
    """Build into ``tmp_path/out`` (doctrees in ``tmp_path/doctrees``); the project is
    written to ``tmp_path/src`` unless ``src`` is given, whose environment is then reused
    if ``tmp_path/doctrees`` holds one.  Returns the HTML folder and Sphinx's log."""
    from sphinx.application import Sphinx

    if student:
        monkeypatch.setenv(course.ENV, "hide")
    else:
        monkeypatch.delenv(course.ENV, raising=False)
    fresh = src is None
    if fresh:
        src = tmp_path / "src"
        _project(src)
        _conf(src)
    out = tmp_path / "out"
    status = io.StringIO()
    app = Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), "html",
                 status=status, warning=sys.stderr, freshenv=fresh)  # fmt: skip
    app.build()
    assert app.statuscode == 0
    return out, re.sub(r"\x1b\[[0-9;]*m", "", status.getvalue())


def _conf(src: Path) -> None:
    (src / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "extensions = ['myst_nb', 'sphinx_exercise', 'sphinx_book_theme', 'heldout_course']\n"
        "html_theme = 'sphinx_book_theme'\n"
        "html_theme_options = {'repository_url': 'https://github.com/o/r',"
        " 'repository_branch': 'main', 'launch_buttons': {'binderhub_url': 'https://mybinder.org',"
        " 'colab_url': 'https://colab.research.google.com'}}\n"
        "nb_execution_mode = 'off'\nnumfig = True\nexclude_patterns = ['_build']\n"
    )


def _text(html: str) -> str:
    """The text of a page as a reader sees it (highlighted code is split into spans)."""
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "html.parser").get_text()


def _all_text(folder: Path) -> str:
    out = []
    for p in folder.rglob("*"):
        if p.is_file() and p.suffix in {".html", ".ipynb", ".md", ".txt", ".js", ".json"}:
            raw = p.read_text(encoding="utf-8", errors="replace")
            out.append(raw + "\n" + _text(raw) if p.suffix == ".html" else raw)
    return "\n".join(out)


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """The instructor edition, then the student edition from a copy of its doctrees, as
    ``make quickstudent`` builds it (no page read again)."""
    mp = pytest.MonkeyPatch()
    try:
        first = tmp_path_factory.mktemp("teacher")
        teacher, _ = _build(first, False, mp)
        second = tmp_path_factory.mktemp("student")
        shutil.copytree(first / "doctrees", second / "doctrees")
        student, log = _build(second, True, mp, src=first / "src")
    finally:
        mp.undo()
    assert "updating environment: 0 added, 0 changed, 0 removed" in log, log
    return teacher, student


def test_student_edition_read_fresh_has_no_solution(tmp_path, monkeypatch):
    """The student edition built alone (every page read in student mode) leaks nothing."""
    student, log = _build(tmp_path, True, monkeypatch)
    assert "4 added" in log  # index, plan and the two notebooks: read, not reused
    text = _all_text(student)
    assert not [s for s in SECRET.values() if s in text]
    assert "What is the bound?" in text and "Do it." in text


def test_instructor_edition_has_every_solution_and_an_answer_key(builds):
    teacher, _ = builds
    text = _all_text(teacher)
    for secret in SECRET.values():
        assert secret in text
    key_html = (teacher / "notebooks" / "answer-key.html").read_text(encoding="utf-8")
    key = _text(key_html)
    for secret in (SECRET["one"], SECRET["gated"], SECRET["two"]):
        assert secret in key
    # in the order of the book, under the references the pages show
    assert key.index("Exercise 1.1") < key.index("Exercise 1.2") < key.index("Exercise 2.1")
    assert 'href="one.html#one-ex-b"' in key_html


def test_student_edition_has_no_solution_anywhere(builds):
    _, student = builds
    text = _all_text(student)
    leaked = [s for s in SECRET.values() if s in text]
    assert not leaked, f"solution text in the student edition: {leaked}"
    assert "What is the bound?" in text and "Do it." in text  # the exercises stay
    assert not (student / "notebooks" / "answer-key.html").exists()
    assert not (student / "_sources").exists()


def test_student_notebooks_keep_the_exercises_and_the_other_cells(builds):
    _, student = builds
    folder = student / course.STUDENT_DIR
    assert sorted(p.name for p in folder.glob("*.ipynb")) == ["one.ipynb", "two.ipynb"]
    one = json.loads((folder / "one.ipynb").read_text())
    text = json.dumps(one)
    assert "What is the bound?" in text and "After the exercises." in text
    assert "solution" not in text.replace("solution-", "")  # no directive left
    two = json.loads((folder / "two.ipynb").read_text())
    assert [c["cell_type"] for c in two["cells"]] == ["markdown", "markdown"]


def test_student_pages_download_the_student_notebook_and_launch_the_student_branch(builds):
    teacher, student = builds
    page = (student / "notebooks" / "one.html").read_text(encoding="utf-8")
    assert f'href="../{course.STUDENT_DIR}/one.ipynb"' in page
    assert "_sources" not in page
    assert course.PDF_TEXT not in page  # the PDF prints the solutions
    assert course.PDF_TEXT in (teacher / "notebooks" / "one.html").read_text()
    assert "mybinder.org/v2/gh/o/r/student?" in page
    assert "mybinder.org/v2/gh/o/r/main?" in (teacher / "notebooks" / "one.html").read_text()


def test_exercises_are_numbered_by_chapter_in_page_order(builds):
    teacher, _ = builds
    one = (teacher / "notebooks" / "one.html").read_text(encoding="utf-8")
    two = (teacher / "notebooks" / "two.html").read_text(encoding="utf-8")
    assert one.index("Exercise 1.1") < one.index("Exercise 1.2")
    assert "Exercise 2.1" in two and "Exercise 3" not in one + two


def test_plans_show_the_reference_of_a_label(builds):
    teacher, _ = builds
    plan = (teacher / "plan.html").read_text(encoding="utf-8")
    assert 'href="notebooks/one.html#one-ex-b"' in plan and "Exercise 1.1" in plan
    assert 'href="notebooks/two.html#two-ex1"' in plan and "Exercise 2.1" in plan
    assert "not-a-label" in plan


def test_exercise_numbers_skip_parts_without_exercises():
    parts = [["intro", "plan"], ["a", "b", "c"], ["ref"], ["d"]]
    found = {"a": ["x", "y"], "c": ["z"], "d": ["w"]}
    assert course.exercise_numbers(parts, found) == {
        "a": {"x": (1, 1), "y": (1, 2)},
        "c": {"z": (3, 1)},
        "d": {"w": (4, 1)},
    }


def test_location_derives_every_address():
    loc = course.Location("https://github.com/o/r", "main")
    assert loc.site == "https://o.github.io/r/"
    assert loc.raw("examples/a.csv") == "https://github.com/o/r/raw/main/examples/a.csv"
    assert loc.pip_source == "heldout[book] @ git+https://github.com/o/r@main"
    assert loc.binder("notebooks/a.ipynb", "student").startswith(
        "https://mybinder.org/v2/gh/o/r/student?"
    )
    with pytest.raises(Exception, match="OWNER/NAME"):
        course.Location("https://gitlab.com/o/r")


# ---------------------------------------------------------------- the book's own notebooks
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
_LABEL = re.compile(
    r"^[ \t]*(?:`{3,}|:{3,})\{exercise(?:-start)?\}([^\n]*)\n(?::[^\n]*\n)*?:label: (\S+)", re.M
)
_GLUE = re.compile(r"\{glue(?::\w+)?\}`([^`]+)`")
_PUBLISH = re.compile(r"""publish\(\s*["']([^"'{}]+)["']""")


def _markdown(nb: dict) -> str:
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def _exercises(nb: dict) -> list[tuple[str, str]]:
    """(label, title) of each exercise of a notebook, in page order."""
    return [(m.group(2), m.group(1).strip()) for m in _LABEL.finditer(_markdown(nb))]


def _nb_of(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_student_notebook_keeps_exercises_and_drops_every_solution(path):
    nb = _nb_of(path)
    student = course.student_notebook(nb)
    text = json.dumps(student)
    assert "{solution" not in text
    assert not [c for c in student["cells"] if course.SOLUTION_TAG in c["metadata"].get("tags", [])]
    assert _exercises(student) == _exercises(nb)
    assert student["cells"][0]["id"] == "install-heldout"  # a hosted notebook still installs
    import nbformat

    nbformat.validate(nbformat.from_dict(student))


def _uses(nb: dict) -> tuple[set[str], set[str]]:
    """Glue names read inside solutions, and outside them."""
    check_links = _load("check_links", ROOT / "tests" / "browser" / "check_links.py")
    inside = {n.split("::")[-1] for t in check_links._solution_texts(nb) for n in _GLUE.findall(t)}
    outside = {n.split("::")[-1] for n in _GLUE.findall(_markdown(course.student_notebook(nb)))}
    return inside, outside


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_cells_that_compute_only_answers_are_tagged_solution(path):
    """A code cell whose glued numbers are read only by solutions carries the tag (so the
    student edition drops it); a tagged cell glues nothing the rest of the page reads and
    defines no name a later cell uses (so the student notebook still runs)."""
    import ast

    nb = _nb_of(path)
    inside, outside = _uses(nb)
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        names = set(_PUBLISH.findall(source))
        tagged = course.SOLUTION_TAG in cell["metadata"].get("tags", [])
        if names and names <= inside and not names & outside:
            assert tagged, (
                f"{path.stem} cell {i} computes only answers: tag it {course.SOLUTION_TAG!r}"
            )
        answers_only = (names & inside) - outside
        # a cell that the page needs may compute one number a solution also quotes; more
        # go to a cell of their own, tagged (the student notebook would compute them)
        assert tagged or len(answers_only) <= 1, (
            f"{path.stem} cell {i} computes answers {sorted(answers_only)}: move them to a cell "
            f"tagged {course.SOLUTION_TAG!r}"
        )
        if not tagged:
            continue
        assert not names & outside, f"{path.stem} cell {i} is tagged but glues {names & outside}"
        code = "\n".join(
            "pass" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines()
        )
        stored = {
            n.id
            for n in ast.walk(ast.parse(code))
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        later = " ".join("".join(c["source"]) for c in nb["cells"][i + 1 :]
                         if c["cell_type"] == "code" and course.SOLUTION_TAG not in c["metadata"].get("tags", []))  # fmt: skip
        read = {n for n in stored if re.search(rf"\b{re.escape(n)}\b", later)}
        assert not read, f"{path.stem} cell {i} is tagged solution but later cells read {read}"


def test_teaching_plans_name_real_exercises():
    """Every label the plans name (inline code such as `tsb-ex2`) is an exercise of a page."""
    labels = {label for path in NOTEBOOKS for label, _ in _exercises(_nb_of(path))}
    teaching = (ROOT / "book" / "teaching.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z]+(?:-[a-z0-9]+)*-ex[a-z0-9-]*)`", teaching))
    assert len(named) >= 20  # the plans assign exercises by label
    assert not named - labels, f"the plans name exercises no page has: {sorted(named - labels)}"


def test_exercise_labels_are_unique():
    labels = [label for path in NOTEBOOKS for label, _ in _exercises(_nb_of(path))]
    assert len(labels) == len(set(labels))


_KIND = re.compile(r"^(Concept|Derivation|Computation|Data) · (easy|medium|hard): \S")


def test_exercises_of_parts_two_and_three_have_kind_and_level():
    rules = _load("heldout_rules", ROOT / "book" / "_ext" / "heldout_rules.py")
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    parts = [p for p in toc["parts"] if p["caption"].startswith(("Part II", "Part III"))]
    docs = [c["file"] for p in parts for c in p["chapters"]]
    assert docs and rules  # the parts exist
    bad = []
    for doc in docs:
        path = ROOT / f"{doc}.ipynb"
        if path.exists():
            bad += [f"{doc}: {label} {title!r}" for label, title in _exercises(_nb_of(path))
                    if not _KIND.match(title)]  # fmt: skip
    assert not bad, "exercises without 'Kind · level: title':\n" + "\n".join(bad)


def test_make_test_builds_the_student_edition_from_the_quick_cache_and_checks_it():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")

    def recipe(target: str) -> str:
        return re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)

    test = re.search(r"^CHECKS :=(.*)$", makefile, re.M).group(1).split()
    assert "quickstudent" in test and "links" in test and "$(CHECKS)" in recipe("test")
    # the student edition renders from the quick build's cache: after it
    assert "quickbook" in re.search(r"^quickstudent:(.*)$", makefile, re.M).group(1).split()

    quick = recipe("quickstudent")
    assert "ln -s $(CURDIR)/_build/quick/_build/.jupyter_cache" in quick  # no execution
    # no page read again: the quick build's environment (the builds fixture above)
    assert "cp -r _build/quick/_build/.doctrees _build/quick-student/_build/.doctrees" in quick
    assert "HELDOUT_SOLUTIONS=hide" in quick and "check_links.py" in quick and "--student" in quick
    student = recipe("student")
    assert "ln -s $(CURDIR)/_build/.jupyter_cache" in student and "--student" in student
    assert "check_links.py" in recipe("links")
