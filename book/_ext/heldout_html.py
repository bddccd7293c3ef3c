"""Small fixes to the book's HTML so that it reads offline with a clean browser console.

* Jupyter Book 1 registers sphinx-thebe's inline configuration script twice (its
  ``env-before-read-docs`` handler runs twice), so every page declared
  ``const THEBE_JS_URL`` twice and the browser reported a ``SyntaxError``.  The
  duplicate ``<script>`` entries are dropped from each page.

MathJax itself is served from the build by the ``sphinx-mathjax-offline`` extension
(``mathjax_path`` in ``_config.yml``); ``tests/browser/check_book.py`` checks the result.
"""

from __future__ import annotations


def _drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple[str, str]] = set()
    kept = []
    for js in scripts:
        attributes = getattr(js, "attributes", {}) or {}
        key = (getattr(js, "filename", str(js)) or "", str(attributes.get("body", "")))
        if key in seen:
            continue
        seen.add(key)
        kept.append(js)
    context["script_files"] = kept


def setup(app):
    app.connect("html-page-context", _drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
