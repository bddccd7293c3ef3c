"""The course kit's switches for the built book.

* **Student edition.** ``make book SOLUTIONS=hide`` (the Makefile passes it on as the
  environment variable ``HELDOUT_SOLUTIONS``) sets sphinx-exercise's ``hide_solutions``
  option, so the build leaves every solution out.  The default (unset, or ``show``) keeps
  them, folded under their exercise.  Any other value stops the build with a message.
* **The PDF a click away.** Every HTML page's footer links the whole book as one PDF, at
  ``heldout_pdf_url`` (set in ``_config.yml``; the publish workflow puts the PDF there,
  beside the HTML).
* **Colab only where Colab can open the page.**  The theme offers a Colab button on every
  page that Jupyter executes, MyST markdown pages (``book/guide.md``) included, but Colab
  opens only ``.ipynb`` files from GitHub: the button is removed from the other pages
  (Binder's stays, since JupyterLab opens any file of the repository).

The hooks are plain functions, tested directly and in a tiny Sphinx build by
``tests/book/test_course_kit.py``.
"""

from __future__ import annotations

import html
import os

from sphinx.errors import ConfigError

#: The environment variable that ``make book SOLUTIONS=...`` sets.
ENV = "HELDOUT_SOLUTIONS"
PDF_TEXT = "The whole book as one PDF"


def solutions_hidden(value: str | None) -> bool:
    """True for ``hide``, False for unset, empty or ``show``; anything else is refused."""
    word = (value or "show").strip().lower()
    if word not in {"show", "hide"}:
        raise ConfigError(f"{ENV} (make book SOLUTIONS=...) must be 'show' or 'hide', not {value!r}")
    return word == "hide"


def _apply_solutions(app, config) -> None:
    if solutions_hidden(os.environ.get(ENV)):
        config.hide_solutions = True


def pdf_link(url: str) -> str:
    """The footer's HTML link to the whole-book PDF."""
    return f'<a class="heldout-pdf" href="{html.escape(url, quote=True)}">{PDF_TEXT}</a>'


def _footer(app, pagename, templatename, context, doctree) -> None:
    url = app.config.heldout_pdf_url
    if not url:
        return
    footer = context.get("theme_extra_footer") or ""
    context["theme_extra_footer"] = f"{footer} <p>{pdf_link(url)}</p>".strip()


def openable_by_colab(button: dict) -> bool:
    """False for a Colab launch button whose link is not a notebook (``.ipynb``) file."""
    if button.get("text") != "Colab":
        return True
    return button.get("url", "").split("?")[0].split("#")[0].endswith(".ipynb")


def _colab_only_for_notebooks(app, pagename, templatename, context, doctree) -> None:
    for group in context.get("header_buttons") or []:
        if group.get("label") == "launch-buttons":
            group["buttons"] = [b for b in group["buttons"] if openable_by_colab(b)]


def setup(app):
    app.add_config_value("heldout_pdf_url", "", "html")
    # after sphinx-book-theme's add_launch_buttons (priority 501), before the page is written
    app.connect("html-page-context", _colab_only_for_notebooks, priority=502)
    app.connect("config-inited", _apply_solutions, priority=900)
    app.connect("html-page-context", _footer)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
