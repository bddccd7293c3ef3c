"""Execute the book's notebooks into Jupyter Book's execution cache, several at a time.

Jupyter Book 1 (myst-nb's ``cache`` mode) executes every notebook whose code changed one
after another while Sphinx reads the pages, so a fresh build keeps one core busy.  This
script fills the same cache first, ``--jobs`` notebooks at a time, the way myst-nb would
(same notebook, same working directory, same timeout, errors not allowed); the build that
follows finds every notebook in the cache and only renders.  A notebook that fails here is
left out of the cache, and the build executes it again and reports its error as usual.

Usage (the Makefile's ``book`` and ``quickbook`` targets)::

    python book/_ext/preexecute.py --cache _build/quick/_build/.jupyter_cache --jobs 2

The notebooks are those of ``_toc.yml`` stored as ``.ipynb`` (MyST-Markdown pages with code
are left to the build).  The longest notebooks start first: their times come from earlier
records of the same notebooks in the cache, if any.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _settings(root: Path) -> tuple[int, bool]:
    import yaml

    execute = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")).get("execute", {})
    return int(execute.get("timeout", 30)), bool(execute.get("allow_errors", False))


def _execute(path: str, cache_path: str, timeout: int, allow_errors: bool) -> tuple[str, str]:
    """Execute one notebook in its folder and store it in the cache, as myst-nb does."""
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn
    from jupyter_cache.executors.utils import single_nb_execution

    nb = nbformat.read(path, as_version=4)
    result = single_nb_execution(
        nb, cwd=str(Path(path).parent), timeout=timeout, allow_errors=allow_errors
    )
    if result.err is not None:
        return path, f"failed ({type(result.err).__name__}); the build will run it again"
    cache = get_cache(cache_path)
    for attempt in range(20):  # the cache is SQLite: another worker may hold its lock
        try:
            cache.cache_notebook_bundle(
                CacheBundleIn(nb, path, data={"execution_seconds": result.time}),
                check_validity=False,
                overwrite=True,
            )
            break
        except Exception:  # noqa: BLE001 - a locked database; try again shortly
            if attempt == 19:
                raise
            time.sleep(0.5)
    return path, f"{result.time:.1f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", required=True, help="Jupyter Book's .jupyter_cache folder")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks executed at once")
    parser.add_argument("--root", default=str(ROOT), help="the book's folder (_toc.yml)")
    args = parser.parse_args(argv)

    import nbformat
    from heldout_rules import toc_notebooks  # beside this file: the toc's notebooks, in order
    from jupyter_cache import get_cache

    root = Path(args.root).resolve()
    cache = get_cache(args.cache)
    seconds: dict[str, float] = {}
    for record in cache.list_cache_records():
        seconds.setdefault(Path(record.uri).name, record.data.get("execution_seconds") or 0.0)
    todo = []
    for path in (root / f"{doc}.ipynb" for doc in toc_notebooks(root / "_toc.yml")):
        try:
            cache.match_cache_notebook(nbformat.read(path, as_version=4))
        except KeyError:
            todo.append(path)
    if not todo:
        print("preexecute: every notebook is in the cache")
        return 0
    # longest first: this cache's own times, else those of a fresh full build (a fresh clone)
    with open(Path(__file__).with_name("notebook_seconds.toml"), "rb") as f:
        measured = tomllib.load(f)
    todo.sort(key=lambda p: seconds.get(p.name) or measured.get(p.stem, 0.0), reverse=True)
    timeout, allow_errors = _settings(root)
    jobs = max(1, min(args.jobs, len(todo)))
    print(f"preexecute: notebooks to execute: {len(todo)}, {jobs} at a time", flush=True)
    start = time.perf_counter()
    # spawn, not fork: the parent holds the cache's SQLite connection
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = [
            pool.submit(_execute, str(p), str(args.cache), timeout, allow_errors) for p in todo
        ]
        for future in concurrent.futures.as_completed(futures):
            path, outcome = future.result()
            print(f"  {Path(path).name}: {outcome}", flush=True)
    print(f"preexecute: done in {time.perf_counter() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
