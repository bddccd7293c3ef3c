"""The course kit's switches for the built book.

* **One setting for where the book lives.**  ``repository.url`` and ``repository.branch``
  of ``_config.yml`` (Jupyter Book passes them to the theme as ``repository_url`` and
  ``repository_branch``) are the only place the book's address is written.  Everything
  else is derived from them by :func:`location`: the launch buttons (the theme), the
  hosted-notebook install cell (``tests/tools/add_install_cell.py``), the lab's example
  downloads (through that cell's ``BOOK_REPOSITORY``) and the published site
  (:attr:`Location.site`).  A fork changes one line.
* **The PDF a click away.**  Every HTML page's footer links the whole book as one PDF,
  ``heldout.pdf`` at the root of the HTML, by a path relative to the page: ``make pdf``
  copies the PDF there, so the link works in a local build and on the published site alike.
  The PDF prints every solution, so the student edition does not link it.
* **Colab only where Colab can open the page.**  The theme offers a Colab button on every
  page that Jupyter executes, MyST markdown pages (``book/guide.md``) included, but Colab
  opens only ``.ipynb`` files: the button is removed from the other pages.
* **Exercises numbered by chapter.**  sphinx-exercise numbers exercises across the whole
  book (1 to 96); here each shows ``Exercise C.N``: ``C`` the chapter's number among the
  chapters of the parts that hold exercises (Part I's lessons are 1 to 16, in the order of
  ``_toc.yml``), ``N`` its place on the page.  A label written as inline code on a page
  (the plans of ``book/teaching.md`` write ```tsb-ex2```) becomes a link showing that
  reference (``Exercise 1.3``), so the plans and the pages cannot disagree.
* **Student edition.**  ``make student`` (or ``make book SOLUTIONS=hide``; the Makefile
  passes ``HELDOUT_SOLUTIONS``) builds the book without solutions: every ``{solution}``
  (gated ``solution-start``/``solution-end`` blocks included, with their code) and every
  cell tagged ``solution`` (the hidden cells that compute the answers) are removed from the
  pages as they are written (the two editions read the same doctrees, so ``make
  quickstudent`` renders from a copy of the quick build's environment); the pages' source downloads (which hold them) are replaced by the student
  notebook of the page, written with the same things removed to ``student-notebooks/``
  beside the HTML; ``_sources`` is not copied; the launch buttons open the branch named
  by ``heldout_student_branch``, where the instructor publishes those notebooks.  Any
  value but ``show``/``hide`` stops the build with a message.
* **Answer key.**  The instructor edition (the default) also writes
  ``notebooks/answer-key.html``: every exercise's reference, label, statement and
  solution, copied from the written pages.  The student edition has no such page.

The hooks are plain functions, tested directly and in tiny Sphinx builds by
``tests/book/test_course_kit.py`` and ``tests/book/test_student_edition.py``.
"""

from __future__ import annotations

import copy
import html
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from sphinx.errors import ConfigError
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.nodes import make_refnode

#: The environment variable that ``make book SOLUTIONS=...`` sets.
ENV = "HELDOUT_SOLUTIONS"
PDF_TEXT = "The whole book as one PDF"
PDF_NAME = "heldout.pdf"
#: The tag of a cell that computes an exercise's answer (removed in the student edition).
SOLUTION_TAG = "solution"
#: Where the student edition writes its notebooks, relative to the HTML folder.
STUDENT_DIR = "student-notebooks"
ANSWER_KEY = "notebooks/answer-key"


# ---------------------------------------------------------------- where the book lives
@dataclass(frozen=True)
class Location:
    """Every address of the book, derived from its repository URL and branch."""

    repository: str
    branch: str = "main"

    def __post_init__(self):
        if not re.fullmatch(r"https://github\.com/[^/\s]+/[^/\s]+", self.repository):
            raise ConfigError(
                f"repository.url must be https://github.com/OWNER/NAME, not {self.repository!r}"
            )

    @property
    def owner(self) -> str:
        return self.repository.split("/")[3]

    @property
    def name(self) -> str:
        return self.repository.split("/")[4]

    @property
    def site(self) -> str:
        """The GitHub Pages site the publish workflow deploys to."""
        return f"https://{self.owner}.github.io/{self.name}/"

    @property
    def pip_source(self) -> str:
        """A pip requirement that installs the book's package from the repository."""
        return f"heldout[book] @ git+{self.repository}@{self.branch}"

    def raw(self, path: str, branch: str | None = None) -> str:
        """A file of the repository, as GitHub serves it."""
        return f"{self.repository}/raw/{branch or self.branch}/{path}"

    def binder(self, path: str, branch: str | None = None) -> str:
        return f"https://mybinder.org/v2/gh/{self.owner}/{self.name}/{branch or self.branch}?urlpath=lab/tree/{path}"

    def colab(self, path: str, branch: str | None = None) -> str:
        return f"https://colab.research.google.com/github/{self.owner}/{self.name}/blob/{branch or self.branch}/{path}"


def location(config: dict) -> Location:
    """The book's :class:`Location` from ``_config.yml`` read as a dict."""
    repo = config["repository"]
    return Location(str(repo["url"]).rstrip("/"), str(repo.get("branch", "main")))


# ---------------------------------------------------------------- student edition switch
def solutions_hidden(value: str | None) -> bool:
    """True for ``hide``, False for unset, empty or ``show``; anything else is refused."""
    word = (value or "show").strip().lower()
    if word not in {"show", "hide"}:
        raise ConfigError(
            f"{ENV} (make book SOLUTIONS=...) must be 'show' or 'hide', not {value!r}"
        )
    return word == "hide"


def _student(app) -> bool:
    return bool(getattr(app.config, "heldout_student", False))


def _apply_solutions(app, config) -> None:
    hidden = solutions_hidden(os.environ.get(ENV))
    config.heldout_student = hidden
    if not hidden:
        return
    # sources hold the solutions: no copy of them, no source download (see _downloads)
    config.html_copy_source = False
    options = dict(config.html_theme_options or {})
    if options.get("repository_url") and config.heldout_student_branch:
        options["repository_branch"] = config.heldout_student_branch
    config.html_theme_options = options


def student_notebook(nb: dict) -> dict:
    """The notebook without its solutions: a copy with every ``{solution}`` block, every
    gated ``solution-start`` ... ``solution-end`` span (cells included) and every cell
    tagged ``solution`` removed."""
    out = copy.deepcopy(nb)
    cells = []
    gated = False
    for cell in out["cells"]:
        source = "".join(cell.get("source", ""))
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "markdown":
            kept, gated = _strip_solutions(source, gated)
            if kept.strip():
                cell["source"] = kept
                cells.append(cell)
            continue
        if gated or SOLUTION_TAG in tags:
            continue
        cells.append(cell)
    out["cells"] = cells
    return out


_FENCE = re.compile(r"^(\s*)(`{3,}|:{3,})\{(solution|solution-start|solution-end)\}")


def _strip_solutions(text: str, gated: bool) -> tuple[str, bool]:
    """Markdown without its solution blocks; ``gated`` says whether a gated solution is open."""
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match:
            fence, kind = match.group(2), match.group(3)
            end = i + 1
            while end < len(lines) and lines[end].strip() != fence:
                end += 1
            i = end + 1
            if kind == "solution-start":
                gated = True
            elif kind == "solution-end":
                gated = False
            continue
        if not gated:
            kept.append(lines[i])
        i += 1
    return re.sub(r"\n{3,}", "\n\n", "".join(kept)), gated


class _StripSolutions(SphinxPostTransform):
    """Student edition: remove solutions (sphinx-exercise merged the gated ones while
    reading) and cells tagged ``solution`` from the pages.

    A post-transform runs when a page is written, not when it is read: the doctrees of the
    two editions are the same, so ``make quickstudent`` renders from a copy of the quick
    build's environment instead of reading every page again.  It runs first (priority 1),
    before sphinx-exercise's post-transforms (5 to 22) resolve titles and links."""

    default_priority = 1

    def run(self, **kwargs) -> None:
        if not _student(self.app):
            return
        from sphinx_exercise.nodes import solution_end_node, solution_node, solution_start_node

        kinds = (solution_node, solution_start_node, solution_end_node)
        for node in list(self.document.findall(lambda n: isinstance(n, kinds))):
            node.parent.remove(node)
        tagged = f"tag_{SOLUTION_TAG}"
        for node in list(self.document.findall(nodes.container)):
            if tagged in node.get("classes", []) and node.parent is not None:
                node.parent.remove(node)


def _is_notebook(app, pagename: str) -> bool:
    return pagename in app.env.found_docs and str(app.env.doc2path(pagename)).endswith(".ipynb")


def _downloads(app, pagename, templatename, context, doctree) -> None:
    """Student edition: the download menu offers the student notebook and print only."""
    if not _student(app):
        return
    for group in context.get("header_buttons") or []:
        if group.get("label") != "download-buttons":
            continue
        kept = [b for b in group["buttons"] if b.get("label") == "download-pdf-button"]
        if _is_notebook(app, pagename):
            url = context["pathto"](f"{STUDENT_DIR}/{Path(pagename).name}.ipynb", 1)
            kept.insert(0, {"type": "link", "url": url, "text": ".ipynb", "icon": "fas fa-code",
                            "tooltip": "Download the student notebook",
                            "label": "download-notebook-button"})  # fmt: skip
        group["buttons"] = kept


def _write_student_notebooks(app, exception) -> None:
    if exception or not _student(app) or app.builder.format != "html":
        return
    folder = Path(app.outdir) / STUDENT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    for docname in sorted(app.env.found_docs):
        path = Path(app.env.doc2path(docname))
        if path.suffix != ".ipynb":
            continue
        nb = student_notebook(json.loads(path.read_text(encoding="utf-8")))
        text = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
        (folder / path.name).write_text(text, encoding="utf-8")


# ---------------------------------------------------------------- exercise references
def _reading_order(env) -> list[list[str]]:
    """The documents of each toctree of the root document (one list per part), in order."""
    from sphinx import addnodes

    doctree = env.get_doctree(env.config.root_doc)
    parts = []
    for toctree in doctree.findall(addnodes.toctree):
        parts.append([ref for _, ref in toctree["entries"] if ref in env.found_docs])
    return parts


def exercise_numbers(
    parts: list[list[str]], exercises: dict[str, list[str]]
) -> dict[str, dict[str, tuple[int, int]]]:
    """``{docname: {exercise id: (chapter, place)}}``.

    ``parts`` lists each part's documents in reading order; ``exercises`` each document's
    exercise ids in page order.  Chapters are numbered from 1 across the parts that hold at
    least one exercise; parts without any (the start and the reference) are not counted.
    """
    out: dict[str, dict[str, tuple[int, int]]] = {}
    chapter = 0
    for part in parts:
        if not any(exercises.get(doc) for doc in part):
            continue
        for doc in part:
            chapter += 1
            ids = exercises.get(doc, [])
            if ids:
                out[doc] = {ident: (chapter, place) for place, ident in enumerate(ids, 1)}
    return out


def _renumber(app, env) -> list[str]:
    """After Sphinx numbered the exercises across the book, number them by chapter."""
    current: dict[str, list[str]] = {}
    for doc, kinds in env.toc_fignumbers.items():
        found = kinds.get("exercise")
        if found:
            current[doc] = [ident for ident, _ in sorted(found.items(), key=lambda kv: kv[1])]
    numbers = exercise_numbers(_reading_order(env), current)
    for doc, ids in numbers.items():
        env.toc_fignumbers[doc]["exercise"] = dict(ids)
    changed = [
        doc
        for doc in numbers
        if getattr(env, "heldout_exercise_numbers", {}).get(doc) != numbers[doc]
    ]
    env.heldout_exercise_numbers = numbers
    return changed


def exercise_reference(
    numbers: dict[str, dict[str, tuple[int, int]]], label: str
) -> tuple[str, str] | None:
    """``(docname, "Exercise C.N")`` of an exercise label, or None."""
    for doc, ids in numbers.items():
        if label in ids:
            chapter, place = ids[label]
            return doc, f"Exercise {chapter}.{place}"
    return None


class _LinkExerciseLabels(SphinxPostTransform):
    """Inline code that is exactly an exercise's label becomes a link to it."""

    default_priority = 20

    def run(self, **kwargs) -> None:
        numbers = getattr(self.env, "heldout_exercise_numbers", {})
        if not numbers:
            return
        for node in list(self.document.findall(nodes.literal)):
            if isinstance(node.parent, nodes.reference | nodes.literal_block):
                continue
            found = exercise_reference(numbers, node.astext())
            if found is None:
                continue
            doc, text = found
            inner = nodes.inline(text, text, classes=["heldout-exercise-ref"])
            if self.app.builder.format != "html":
                # the PDF prints the reference (its exercises carry the same numbers); the
                # exercises' LaTeX labels are sphinx-exercise's own, which a refnode misses
                node.replace_self(inner)
                continue
            ref = make_refnode(
                self.app.builder, self.env.docname, doc, node.astext(), inner, node.astext()
            )
            node.replace_self(ref)


# ---------------------------------------------------------------- answer key
def _answer_key(app):
    """Instructor edition: one page with every exercise and its solution (html-collect-pages)."""
    if (
        _student(app)
        or app.builder.format != "html"
        or not getattr(app.env, "heldout_exercise_numbers", None)
    ):
        return
    from bs4 import BeautifulSoup

    numbers = app.env.heldout_exercise_numbers
    order = sorted(
        ((c, p), doc, ident) for doc, ids in numbers.items() for ident, (c, p) in ids.items()
    )
    soups: dict[str, BeautifulSoup] = {}
    parts = ["<h1>Answer key</h1>",
             "<p>Every exercise of the book with its solution, by its reference. This page is "
             "built in the instructor edition only (<code>make student</code> leaves it out).</p>"]  # fmt: skip
    for (chapter, place), doc, ident in order:
        path = Path(app.outdir) / f"{doc}.html"
        if not path.exists():
            continue
        soup = soups.setdefault(doc, BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser"))
        exercise = soup.find(id=ident)
        if exercise is None:
            continue
        page = Path(doc).name + ".html"
        title = soup.title.get_text().split("—")[0].strip() if soup.title else doc
        block = [f'<h2 id="key-{html.escape(ident)}">Exercise {chapter}.{place} '
                 f'<small>(<code>{html.escape(ident)}</code>, <a href="{page}#{ident}">'
                 f"{html.escape(title)}</a>)</small></h2>", _relink(str(exercise), page)]  # fmt: skip
        for sol in soup.select("div.solution"):
            target = sol.select_one(f'a[href$="#{ident}"]')
            if target is not None:
                block.append(_relink(str(sol), page))
        parts.append("\n".join(block))
    # the copied exercises and solutions hold math: Sphinx adds MathJax only to pages whose
    # doctree has some, and a collected page has none, so the math domain is told
    app.env.get_domain("math").data.setdefault("has_equations", {})[ANSWER_KEY] = True
    yield (ANSWER_KEY, {"title": "Answer key", "body": "\n".join(parts)}, "page.html")


def _relink(fragment: str, page: str) -> str:
    """A fragment copied from ``page`` (same folder): ``#x`` links point back to the page,
    and a solution is shown open rather than folded."""
    fragment = re.sub(r'class="solution dropdown', 'class="solution', fragment)
    return re.sub(r'href="#', f'href="{page}#', fragment)


# ---------------------------------------------------------------- PDF link and launch buttons
def pdf_link(url: str) -> str:
    """The footer's HTML link to the whole-book PDF."""
    return f'<a class="heldout-pdf" href="{html.escape(url, quote=True)}">{PDF_TEXT}</a>'


def _footer(app, pagename, templatename, context, doctree) -> None:
    if _student(app):
        return  # the PDF prints every solution: the student edition does not link it
    url = context["pathto"](PDF_NAME, 1)
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
    app.add_config_value("heldout_student_branch", "student", "html")
    # "html": the switch changes what is written, not what is read (see _StripSolutions)
    app.add_config_value("heldout_student", False, "html")
    # after sphinx-book-theme's add_launch_buttons (priority 501), before the page is written
    app.connect("html-page-context", _colab_only_for_notebooks, priority=502)
    app.connect("html-page-context", _downloads, priority=502)
    app.connect("config-inited", _apply_solutions, priority=900)
    app.connect("html-page-context", _footer)
    # after Sphinx's TocTreeCollector assigned figure numbers (priority 500)
    app.connect("env-get-updated", _renumber, priority=900)
    app.connect("html-collect-pages", _answer_key)
    app.connect("build-finished", _write_student_notebooks)
    app.add_post_transform(_StripSolutions)
    app.add_post_transform(_LinkExerciseLabels)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
