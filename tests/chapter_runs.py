"""Chapter reruns shared by tests/test_rerun.py and tests/test_chapter_parameters.py.

A chapter is executed at most once per test session for one set of values (executing
takes seconds to a minute), through :func:`heldout.book.rerun.rerun`, the same code path as
``heldout rerun`` and ``make rerun``.  The unchanged chapter's glued values come from the
quick build's execution cache when it holds the current notebook (``make test`` builds it
before the unit tests), and are computed by executing it otherwise.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
QUICK_CACHE = ROOT / "_build" / "quick" / "_build" / ".jupyter_cache"
DECLARED = tomllib.loads((ROOT / "tests" / "rerun_params.toml").read_text(encoding="utf-8"))


def chapters() -> list[str]:
    """Chapter notebooks (stems) in the order of ``notebooks/``."""
    return sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))


def has_parameters(stem: str) -> bool:
    cells = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    return any("parameters" in c.get("metadata", {}).get("tags", []) for c in cells)


def declared(stem: str) -> dict:
    """The changed values of one chapter, from tests/rerun_params.toml."""
    return dict(DECLARED["chapters"][stem]["values"])


def inputs(stem: str) -> dict:
    """The chapter's inputs as rerun: its parameters cell, then the declared values."""
    from heldout import config
    from heldout.book.rerun import parameter_names

    cells = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    cell = next(c for c in cells if "parameters" in c.get("metadata", {}).get("tags", []))
    source = "".join(cell["source"])
    namespace = dict(vars(config))  # literals, pick(full, quick) and SEED only
    exec(source, namespace)
    return {name: namespace[name] for name in parameter_names(source)} | declared(stem)


def _execute(stem: str, values_json: str) -> dict[str, str]:
    from heldout.book.rerun import rerun

    return rerun(NOTEBOOKS / f"{stem}.ipynb", json.loads(values_json), quick=True).glued


@functools.cache
def _run(stem: str, values_json: str) -> dict[str, str]:
    """Execute once per test session, also across pytest-xdist's workers.

    The workers of one run share ``PYTEST_XDIST_TESTRUNUID``: the first worker to ask for a
    chapter with these values executes it under a file lock and leaves its glued values in
    a folder of that run; a worker asking later (tests/test_rerun.py and
    tests/test_chapter_parameters.py ask for the same runs) waits for the lock and reads them.
    """
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run_id:
        return _execute(stem, values_json)
    folder = Path(tempfile.gettempdir()) / f"heldout-chapter-runs-{run_id}"
    folder.mkdir(exist_ok=True)
    key = hashlib.sha256(f"{stem}\n{values_json}".encode()).hexdigest()[:20]
    done = folder / f"{key}.json"
    with open(folder / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if done.exists():
            return json.loads(done.read_text(encoding="utf-8"))
        glued = _execute(stem, values_json)
        partial = done.with_suffix(".partial")
        partial.write_text(json.dumps(glued), encoding="utf-8")
        os.replace(partial, done)
        return glued


def run_with(stem: str, values: dict) -> dict[str, str]:
    """Glued values of a chapter executed in the quick profile with ``values`` injected."""
    return _run(stem, json.dumps(values, sort_keys=True))


@functools.cache
def baseline(stem: str) -> dict[str, str]:
    """Glued values of the unchanged chapter in the quick profile."""
    import nbformat

    from heldout.book.rerun import glued

    nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    if QUICK_CACHE.is_dir():
        from jupyter_cache import get_cache

        cache = get_cache(QUICK_CACHE)
        try:
            record = cache.match_cache_notebook(nb)
        except KeyError:  # the notebook changed since the last quick build
            pass
        else:
            return glued(cache.get_cache_bundle(record.pk).nb)
    return run_with(stem, {})
