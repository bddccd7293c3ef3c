"""The lessons' slides (heldout.book.course.slides): MyST to LaTeX, decks from executed
notebooks (a synthetic one, and every lesson of the quick build when it exists), the deck
check, and one small deck compiled by XeLaTeX when TeX is installed.
"""

from __future__ import annotations

import base64
import io
import json
import shutil
from pathlib import Path

import pytest

from heldout.book.course.slides import build_deck, check_deck, lesson_names, tex_text

ROOT = Path(__file__).resolve().parents[2]


def _png() -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.plot([0, 1], [0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=40)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def _md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(text, tags=(), outputs=()):
    return {
        "cell_type": "code",
        "metadata": {"tags": list(tags)},
        "source": text,
        "outputs": list(outputs),
        "execution_count": 1,
    }


def _notebook(tmp_path, *, card=True, glue_name="k"):
    png = {
        "output_type": "display_data",
        "data": {"image/png": _png(), "text/plain": "<Figure>"},
        "metadata": {},
    }
    cells = [
        _md(
            "# One score: a lesson\n\n*How sure is one score?*\n\n"
            + (
                "```{admonition} About this lesson\n:class: lesson-card\n**Question:** how large is "
                "the error rate?\n\n**Prerequisites:** {doc}`test_set_bound`.\n\n**After it you can:** "
                "bound it.\n\n**Reading time:** 5 minutes\n```\n"
                if card
                else ""
            )
        ),
        _code("import numpy as np", tags=["hide-input"]),
        _code("k = 3  # errors\nn = 100  # items", tags=["parameters"]),
        _md(
            "## First section\n\nWe saw {glue:text}`"
            + glue_name
            + "` errors & more.\n\n$$\nk/n = p\n$$"
        ),
        _code(
            "k / n",
            outputs=[
                {"output_type": "execute_result", "data": {"text/plain": "0.03"}, "metadata": {}}
            ],
        ),
        _code("plot()", tags=["hide-input"], outputs=[png]),
        _md(
            "## Second section\n\nA second paragraph about $p \\le 1$ and 100 % of {term}`items <item>`."
        ),
        _code("plot()", tags=["hide-input"], outputs=[png]),
        _md("## Third section\n\nA third paragraph."),
        _md(
            "## The rule\n\n```{admonition} The rule\n:class: tip rule\nReport the exact bound.\n```\n\n"
            "## Exercises\n\n```{exercise} Computation · easy: Compute\n:label: x-ex1\nCompute it.\n```\n\n"
            "```{exercise} Concept · easy: Explain\n:label: x-ex2\nExplain why the bound holds.\n```\n"
        ),
    ]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "lesson.ipynb"
    path.write_text(json.dumps(nb))
    glue = tmp_path / "lesson.glue.json"
    glue.write_text(json.dumps({"k": {"data": {"text/plain": "'3'"}}}))
    return path, glue


def test_tex_text_fills_glue_keeps_math_and_escapes():
    assert tex_text("{glue:text}`k` of {glue:text}`n`", {"k": "3", "n": "1,000"}) == "3 of 1,000"
    assert tex_text("$a_1 \\le 5\\%$ and a_1 & 50 %", {}) == "$a_1 \\le 5\\%$ and a\\_1 \\& 50 \\%"
    assert tex_text("$$\nx = 1 \\label{eq}\n$$", {}) == "\\[x = 1\\]"
    assert tex_text("**b** *i* `c_d`", {}) == "\\textbf{b} \\emph{i} \\texttt{c\\_d}"
    assert (
        tex_text("{doc}`two_models`, {ref}`the text <lbl>`, {cite}`key`.", {})
        == "two models, the text, ."
    )
    with pytest.raises(ValueError, match="glue: the lesson's text uses 'nope'"):
        tex_text("{glue:text}`nope`", {})


def test_the_lessons_are_those_of_part_one():
    names = lesson_names(ROOT / "_toc.yml")
    assert names[0] == "test_set_bound" and "own_data_lab" in names
    assert all((ROOT / "notebooks" / f"{n}.ipynb").is_file() for n in names)


def test_a_deck_from_a_notebook_has_every_frame_and_figure(tmp_path):
    nb, glue = _notebook(tmp_path)
    source, figures = build_deck(nb, glue, tmp_path / "deck")
    assert 8 <= source.count("\\begin{frame}") <= 15
    for title in (
        "The question",
        "The key picture",
        "The formula",
        "The rule",
        "Check your understanding",
    ):
        assert "{" + title + "}" in source
    assert "We saw 3 errors \\& more." in source and "Explain why the bound holds." in source
    assert "k = 3  # errors" in source and "0.03" in source
    assert figures == ["fig0.png", "fig1.png"]
    found = check_deck(tmp_path / "deck")
    assert found.problems == ("not compiled",) and found.figures == 2
    (tmp_path / "deck" / "fig1.png").unlink()
    assert "missing figure fig1.png" in check_deck(tmp_path / "deck").problems


def test_a_lesson_without_card_or_with_an_unknown_glue_name_is_refused(tmp_path):
    nb, glue = _notebook(tmp_path, card=False)
    with pytest.raises(ValueError, match="card"):
        build_deck(nb, glue, tmp_path / "a")
    nb, glue = _notebook(tmp_path, glue_name="missing")
    with pytest.raises(ValueError, match="'missing'"):
        build_deck(nb, glue, tmp_path / "b")


# Every lesson's deck from the quick build is built and checked by `make slides`, one of
# `make test`'s checks (it runs after the quick build; the unit suite may run beside it).


@pytest.mark.skipif(shutil.which("xelatex") is None, reason="no XeLaTeX (make tex installs it)")
def test_a_deck_compiles_with_one_page_per_frame(tmp_path):
    from heldout.book.course.slides import _compile

    nb, glue = _notebook(tmp_path)
    build_deck(nb, glue, tmp_path / "deck")
    assert _compile(tmp_path / "deck").returncode == 0
    found = check_deck(tmp_path / "deck")
    assert found.problems == () and found.pages == found.frames
