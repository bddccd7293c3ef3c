"""Small fixes to the book's HTML so that it reads offline with a clean browser console.

* Jupyter Book 1 registers sphinx-thebe's inline configuration script twice (its
  ``env-before-read-docs`` handler runs twice), so every page declared
  ``const THEBE_JS_URL`` twice and the browser reported a ``SyntaxError``.  The
  duplicate ``<script>`` entries are dropped from each page.

MathJax itself is served from the build by the ``sphinx-mathjax-offline`` extension
(``mathjax_path`` in ``_config.yml``); ``tests/browser/check_book.py`` checks the result.

And one fix of build time, for every builder (this extension is loaded by each build):

* pybtex (under sphinxcontrib-bibtex) looks its plugins up (styles, the plain-text backend)
  through ``importlib.metadata.entry_points`` at every citation it resolves, and each
  lookup reads the entry points of every distribution installed: about 6 ms in the book's
  venv, some 550 times per build.  Installed entry points do not change during a build, so
  :func:`cache_pybtex_plugins` remembers each lookup's result; plugins registered at run
  time (pybtex's ``register_plugin``) are still looked up first, as before.
"""

from __future__ import annotations

import functools


def cache_pybtex_plugins() -> bool:
    """Remember pybtex's entry-point lookups for the life of the process (False without
    pybtex).  Only lookups by group and name are remembered; listings are not."""
    try:
        import pybtex.plugin as plugin
    except ImportError:
        return False
    original = plugin.entry_points
    if getattr(original, "heldout_cached", False):
        return True

    @functools.cache
    def _by_name(group: str, name: str) -> tuple:
        return tuple(original(group=group, name=name))

    def entry_points(**selection):
        if set(selection) == {"group", "name"}:
            return _by_name(selection["group"], selection["name"])
        return original(**selection)

    entry_points.heldout_cached = True
    plugin.entry_points = entry_points
    return True


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
    cache_pybtex_plugins()
    app.connect("html-page-context", _drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
