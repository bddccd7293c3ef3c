"""The printed book (``make pdf``): the PDF reads like the web book, on paper.

Sphinx's LaTeX writer (used with ``use_jupyterbook_latex: false``) differs from the HTML
pages in three ways this extension corrects:

* **Folded code.** A code cell tagged ``hide-input`` (or ``hide-cell``) shows its output
  and folds its source behind a "Show code cell source" toggle; myst-nb folds for HTML
  only, so the PDF printed every plotting, table and glue cell in full.  Paper has no
  toggles: the folded source is left out and the outputs (figures, tables, glued values)
  stay.  A ``hide-output`` cell keeps both, its output being part of the argument.
* **Parts.** The captions of ``_toc.yml`` ("How sure is a score?", ...) group the chapters
  in the HTML sidebar; the LaTeX writer dropped them.  Each becomes a ``\\part``.
* **Contents.** Sphinx titles the table of contents after the first toctree caption
  ("Start here"); it is called "Contents".

Exercises keep their solutions: sphinx-exercise prints a ``:class: dropdown`` solution in
full right after its exercise (``tests/pdf/check_pdf.py`` counts them), and the
equation references resolve once latexmk reruns LaTeX (``latex_use_xindy: false`` in
``_config.yml`` keeps the index step, and so the reruns, working with Debian's TeX).
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.texescape import escape

#: myst-nb's ``hide_mode`` values whose source is folded away in HTML
FOLDED_SOURCE = frozenset({"input", "input+output", "all"})
CONTENTS = "Contents"


class DropFoldedSource(SphinxPostTransform):
    """Remove the source of code cells whose source the HTML page folds away."""

    default_priority = 199  # where myst-nb folds them for HTML
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        for cell in list(self.document.findall(nodes.container)):
            if cell.get("nb_element") != "cell_code" or cell.get("hide_mode") not in FOLDED_SOURCE:
                continue
            for child in list(cell.children):
                if child.get("nb_element") == "cell_code_source":
                    cell.remove(child)
            if not cell.children:  # a folded cell without output leaves nothing behind
                cell.parent.remove(cell)


def toc_parts(env) -> list[tuple[str, str]]:
    """``(caption, first document)`` of every captioned toctree of the root page."""
    root = env.get_doctree(env.config.root_doc)
    return [
        (toctree["caption"], toctree["includefiles"][0])
        for toctree in root.findall(addnodes.toctree)
        if toctree.get("caption") and toctree.get("includefiles")
    ]


class PartsFromCaptions(SphinxPostTransform):
    """Open a ``\\part`` before the first chapter of each captioned toctree."""

    default_priority = 200
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        if self.document.get("docname") != self.config.root_doc:
            return  # only the assembled book, where the toctrees are inlined
        starts = {sof["docname"]: sof for sof in self.document.findall(addnodes.start_of_file)}
        for caption, first in toc_parts(self.env):
            if first in starts:
                sof = starts[first]
                part = nodes.raw("", f"\\part{{{escape(caption)}}}\n", format="latex")
                sof.parent.insert(sof.parent.index(sof), part)


def _contents_title(app) -> None:
    if app.builder.name == "latex":
        app.builder.get_contentsname = lambda indexfile: CONTENTS


def setup(app):
    app.add_post_transform(DropFoldedSource)
    app.add_post_transform(PartsFromCaptions)
    app.connect("builder-inited", _contents_title)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
