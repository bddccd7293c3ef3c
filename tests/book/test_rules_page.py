"""The rules page (book/_ext/heldout_rules.py): extraction from synthetic notebooks and a
tiny Sphinx build of a page that uses the ``{heldout-rules}`` directive."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _extension():
    spec = importlib.util.spec_from_file_location(
        "heldout_rules", ROOT / "book" / "_ext" / "heldout_rules.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rules_ext = _extension()


def _notebook(path: Path, *markdown: str) -> Path:
    cells = [
        {"id": f"c{i}", "cell_type": "markdown", "metadata": {}, "source": text}
        for i, text in enumerate(markdown)
    ]
    cells.append(
        {
            "id": "code",
            "cell_type": "code",
            "metadata": {},
            "source": "import heldout",
            "outputs": [],
            "execution_count": None,
        }
    )
    nb = {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                      "language": "python"}}}  # fmt: skip
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


RULE = (
    "## The rule\n\n```{admonition} The rule\n:class: tip rule\n"
    "Report the exact upper bound, not the mean plus two standard errors.\n```\n\nDetails."
)


def test_rule_is_read_with_the_title(tmp_path):
    nb = _notebook(tmp_path / "a.ipynb", "# How sure is one score?\n\n*Question?*", RULE)
    title, rules = rules_ext.rules_of(nb)
    assert title == "How sure is one score?"
    assert rules == ["Report the exact upper bound, not the mean plus two standard errors."]


def test_other_admonitions_and_colon_fences(tmp_path):
    nb = _notebook(
        tmp_path / "b.ipynb",
        "# B",
        "```{admonition} Practical rule\nNot this one.\n```",
        "```{admonition} The rule\n:class: tip\nNo rule class: not this one.\n```",
        ":::{admonition} The rule\n:class: tip rule\nColon fence, two lines\nof rule.\n:::",
        "````{admonition} About this lesson\n:class: lesson-card\n```{admonition} The rule\n"
        ":class: tip rule\nnested inside another block: not read\n```\n````",
    )
    assert rules_ext.rules_of(nb)[1] == ["Colon fence, two lines\nof rule."]


def test_a_notebook_without_rule(tmp_path):
    nb = _notebook(tmp_path / "c.ipynb", "# C", "Just prose.")
    assert rules_ext.rules_of(nb) == ("C", [])


def test_toc_notebooks_in_order_and_only_notebooks(tmp_path):
    (tmp_path / "notebooks").mkdir()
    _notebook(tmp_path / "notebooks" / "z.ipynb", "# Z")
    _notebook(tmp_path / "notebooks" / "a.ipynb", "# A")
    (tmp_path / "intro.md").write_text("# Intro\n")
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nparts:\n  - caption: P\n    chapters:\n"
        "      - file: notebooks/z\n      - file: notebooks/a\n"
    )
    assert rules_ext.toc_notebooks(tmp_path / "_toc.yml") == ["notebooks/z", "notebooks/a"]


def test_the_book_lists_the_rules_page_and_uses_the_extension():
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["sphinx"]["local_extensions"]["heldout_rules"] == "book/_ext"
    assert "{heldout-rules}" in (ROOT / "book" / "rules.md").read_text()
    toc = (ROOT / "_toc.yml").read_text()
    assert "file: book/rules" in toc


def _build(src, tmp_path, builder, conf="", warning=None):
    """A tiny Sphinx build of ``src`` with the rules extension (``conf``: more settings);
    the application, built, and its output folder."""
    sphinx_app = pytest.importorskip("sphinx.application")
    (src / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "extensions = ['myst_nb', 'heldout_rules']\n"
        "nb_execution_mode = 'off'\n" + conf
    )
    out = tmp_path / builder
    app = sphinx_app.Sphinx(
        str(src), str(src), str(out), str(tmp_path / "doctrees"), builder,
        status=None, warning=warning or sys.stderr, freshenv=True,
    )  # fmt: skip
    app.build()
    return app, out


def test_tiny_sphinx_build_shows_every_rule(tmp_path):
    src = tmp_path / "src"
    (src / "notebooks").mkdir(parents=True)
    (src / "book").mkdir()
    _notebook(src / "notebooks" / "one.ipynb", "# Lesson one", RULE)
    _notebook(src / "notebooks" / "two.ipynb", "# Lesson two", "No rule here.")
    (src / "_toc.yml").write_text(
        "root: book/rules\nchapters:\n  - file: notebooks/one\n  - file: notebooks/two\n"
    )
    (src / "book" / "rules.md").write_text(
        "# Rules\n\n```{heldout-rules}\n```\n\n```{toctree}\n:hidden:\n../notebooks/one\n"
        "../notebooks/two\n```\n"
    )
    app, out = _build(
        src, tmp_path, "html", "root_doc = 'book/rules'\nexclude_patterns = ['_build']\n"
    )
    assert app.statuscode == 0
    html = (out / "book" / "rules.html").read_text(encoding="utf-8")
    assert "Report the exact upper bound" in html
    assert 'href="../notebooks/one.html"' in html
    box = html.split('class="heldout-rules', 1)[1].split("</div>", 1)[0]
    assert "Lesson one" in box and "Report the exact upper bound" in box
    assert "Lesson two" not in box  # no rule, no entry


def test_tiny_latex_build_opens_the_appendix_before_the_named_document(tmp_path):
    src = tmp_path / "src"
    (src / "notebooks").mkdir(parents=True)
    _notebook(src / "notebooks" / "one.ipynb", "# Lesson one", RULE)
    _notebook(src / "notebooks" / "two.ipynb", "# Lesson two", "Reference matter.")
    (src / "_toc.yml").write_text("root: index\n")
    (src / "index.md").write_text("# Book\n\n```{toctree}\nnotebooks/one\nnotebooks/two\n```\n")
    _, out = _build(
        src,
        tmp_path,
        "latex",
        "heldout_appendix_from = 'notebooks/two'\n"
        "latex_documents = [('index', 'book.tex', 'Book', 'A', 'manual')]\n"
        "exclude_patterns = ['_build']\n",
    )
    tex = (out / "book.tex").read_text(encoding="utf-8")
    assert tex.count("\\appendix") == 1
    assert tex.index("Lesson one") < tex.index("\\appendix") < tex.index("Lesson two")


def test_a_rule_with_glue_is_reported(tmp_path):
    src = tmp_path / "src"
    (src / "notebooks").mkdir(parents=True)
    glued = RULE.replace("standard errors.", "standard errors ({glue:text}`k`).")
    _notebook(src / "notebooks" / "one.ipynb", "# Lesson one", glued)
    (src / "_toc.yml").write_text("root: index\nchapters:\n  - file: notebooks/one\n")
    (src / "index.md").write_text(
        "# Rules\n\n```{heldout-rules}\n```\n\n```{toctree}\nnotebooks/one\n```\n"
    )
    warnings = io.StringIO()
    _build(src, tmp_path, "html", warning=warnings)
    assert "notebooks/one: its rule uses {glue}" in warnings.getvalue()
