"""The rules on one page: every lesson's rule, read from the lessons when the book is built.

A lesson states its rule in a markdown cell, as the first element of its section "The rule"::

    ```{admonition} The rule
    :class: tip rule
    One or two sentences a student remembers.
    ```

The directive ``{heldout-rules}`` (used by ``book/rules.md``) reads ``_toc.yml``, opens
every notebook it lists in order, and writes one entry per rule found: the lesson's title
(linked) and its rule.  The page depends on those notebooks, so an edited rule rebuilds it.
A notebook without such an admonition is skipped; if no lesson has one, the page says so.

In the PDF, the Reference part (from ``heldout_appendix_from``, by default ``book/rules``)
becomes the appendix: ``\\appendix`` is written just before that document.

:func:`rules_of` and :func:`toc_notebooks` are plain functions, tested on synthetic
notebooks in ``tests/book/test_rules_page.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

LOGGER = logging.getLogger(__name__)

#: The opening line of a fenced directive (backticks or colons), its name and argument.
_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w-]+)\}\s*(?P<arg>.*?)\s*$")
_TITLE = re.compile(r"^#\s+(.+?)\s*$", re.M)


def _blocks(text: str):
    """Yield (name, argument, options, body) of every top-level fenced directive."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opened = _OPEN.match(lines[i])
        if not opened:
            i += 1
            continue
        fence = opened["fence"]
        closing = re.compile(rf"^{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        j = i + 1
        options: dict[str, str] = {}
        while j < len(lines) and (m := re.match(r"^:([\w-]+):\s*(.*)$", lines[j])):
            options[m[1]] = m[2].strip()
            j += 1
        body = []
        while j < len(lines) and not closing.match(lines[j]):
            body.append(lines[j])
            j += 1
        yield opened["name"], opened["arg"], options, "\n".join(body).strip()
        i = j + 1


def rules_of(notebook: Path) -> tuple[str, list[str]]:
    """The title of a notebook and the text of its rule admonitions, in order.

    A rule is an ``admonition`` whose title is "The rule" and whose classes include
    ``rule``.
    """
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    title, rules = Path(notebook).stem.replace("_", " "), []
    for n, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "markdown"):
        text = "".join(cell["source"])
        if n == 0 and (m := _TITLE.search(text)):
            title = m[1]
        for name, arg, options, body in _blocks(text):
            classes = options.get("class", "").split()
            if name == "admonition" and arg == "The rule" and "rule" in classes and body:
                rules.append(body)
    return title, rules


def toc_notebooks(toc: Path) -> list[str]:
    """Every notebook ``_toc.yml`` lists (docnames such as ``notebooks/auc``), in order."""
    import yaml

    found: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            for key in ("root", "file"):
                if key in node:
                    found.append(str(node[key]).removesuffix(".ipynb").removesuffix(".md"))
            for value in node.values():
                if isinstance(value, dict | list):
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load(Path(toc).read_text(encoding="utf-8")))
    root = Path(toc).parent
    return [doc for doc in found if (root / f"{doc}.ipynb").is_file()]


class RulesDirective(SphinxDirective):
    """``{heldout-rules}``: the rules of every lesson in the table of contents."""

    has_content = False

    def run(self):
        srcdir = Path(self.env.srcdir)
        toc = srcdir / self.config.heldout_rules_toc
        here = Path(self.env.docname).parent
        lines: list[str] = []
        self.env.note_dependency(str(toc))
        for doc in toc_notebooks(toc):
            path = srcdir / f"{doc}.ipynb"
            self.env.note_dependency(str(path))
            title, rules = rules_of(path)
            if not rules:
                continue
            target = Path(*([".."] * len(here.parts)), doc).as_posix()
            lines += [f"**{{doc}}`{title} <{target}>`**", ""]
            for rule in rules:
                if "{glue" in rule:  # glued values exist only on the lesson's own page
                    LOGGER.warning(
                        f"{doc}: its rule uses {{glue}}, which the rules page cannot show",
                        location=(self.env.docname, self.lineno),
                    )
                lines += [*rule.splitlines(), ""]
        if not lines:
            lines = ["No lesson states its rule yet."]
        box = nodes.container(classes=["heldout-rules"])
        self.state.nested_parse(StringList(lines, source=str(toc)), self.content_offset, box)
        return [box]


class AppendixBefore(SphinxPostTransform):
    """Write ``\\appendix`` before the document named by ``heldout_appendix_from``."""

    default_priority = 201  # after heldout_latex's parts (200)
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        first = self.config.heldout_appendix_from
        if not first or self.document.get("docname") != self.config.root_doc:
            return
        for sof in self.document.findall(addnodes.start_of_file):
            if sof["docname"] == first:
                mark = nodes.raw("", "\\appendix\n", format="latex")
                sof.parent.insert(sof.parent.index(sof), mark)
                return


def setup(app):
    app.add_config_value("heldout_rules_toc", "_toc.yml", "env")
    app.add_config_value("heldout_appendix_from", "book/rules", "env")
    app.add_directive("heldout-rules", RulesDirective)
    app.add_post_transform(AppendixBefore)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
