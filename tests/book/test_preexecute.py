"""book/_ext/preexecute.py fills Jupyter Book's execution cache as myst-nb would.

The build that follows must find every notebook there (myst-nb matches a notebook to the
cache by jupyter-cache's hash of its code cells); a failing notebook is left out, so the
build runs it again and reports its error.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytest.importorskip("jupyter_cache")
pytest.importorskip("nbclient")


def _script():
    """The script as a module (a spawned worker imports it by name from book/_ext)."""
    import sys

    if str(ROOT / "book" / "_ext") not in sys.path:
        sys.path.append(str(ROOT / "book" / "_ext"))
    import preexecute

    return preexecute


def _notebook(path: Path, source: str) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source)],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
    )
    nbformat.write(nb, path)


def test_notebooks_of_the_toc_land_in_the_cache_and_a_failure_does_not(tmp_path, capsys):
    import nbformat
    from jupyter_cache import get_cache

    (tmp_path / "nb").mkdir()
    # the working directory is the notebook's folder, as myst-nb's (run_in_temp: false)
    _notebook(tmp_path / "nb" / "a.ipynb", "import os\nprint(os.getcwd())\nx = 6 * 7\nx")
    _notebook(tmp_path / "nb" / "b.ipynb", "import os\nprint(os.environ['PREEXECUTE_PROBE'])")
    _notebook(tmp_path / "nb" / "bad.ipynb", "raise ValueError('no')")
    _notebook(tmp_path / "nb" / "outside.ipynb", "1")  # not in the toc
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: nb/a\nchapters:\n  - file: nb/b\n  - file: nb/bad\n"
        "  - file: nb/missing_page\n",
        encoding="utf-8",
    )
    (tmp_path / "_config.yml").write_text("execute:\n  timeout: 60\n", encoding="utf-8")
    cache_path = tmp_path / "cache"
    os.environ["PREEXECUTE_PROBE"] = "inherited"
    try:
        assert _script().main(["--cache", str(cache_path), "--root", str(tmp_path)]) == 0
    finally:
        del os.environ["PREEXECUTE_PROBE"]
    out = capsys.readouterr().out
    assert "to execute: 3," in out and re.search(r"bad\.ipynb: failed \(\w+\)", out)

    cache = get_cache(cache_path)
    found = {}
    for name in ("a", "b", "bad", "outside"):
        nb = nbformat.read(tmp_path / "nb" / f"{name}.ipynb", as_version=4)
        try:
            found[name] = cache.get_cache_bundle(cache.match_cache_notebook(nb).pk).nb
        except KeyError:
            found[name] = None
    assert found["bad"] is None and found["outside"] is None
    outputs = found["a"].cells[0].outputs
    assert outputs[0]["text"].strip() == str(tmp_path / "nb")
    assert outputs[1]["data"]["text/plain"] == "42"
    assert found["b"].cells[0].outputs[0]["text"].strip() == "inherited"

    # a second run finds nothing to do but the failed notebook
    assert _script().main(["--cache", str(cache_path), "--root", str(tmp_path)]) == 0
    assert "to execute: 1," in capsys.readouterr().out


def test_the_makefile_fills_the_cache_before_each_build():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")

    def recipe(target: str) -> str:
        return re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)

    book = recipe("book")
    assert book.index("preexecute.py --cache _build/.jupyter_cache") < book.index("jupyter-book")
    quick = recipe("quickcache")
    assert "HELDOUT_QUICK=1" in quick and "--cache _build/quick/_build/.jupyter_cache" in quick
    assert "quickcache" in re.search(r"^quickbook:(.*)$", makefile, re.M).group(1).split()
    assert "quickcache" in re.search(r"^unit:(.*)$", makefile, re.M).group(1).split()


def test_every_toc_notebook_has_a_time_for_the_longest_first_order():
    """A fresh clone has no cache of its own: the committed times order the notebooks."""
    import tomllib

    _script()  # puts book/_ext on the path
    from heldout_rules import toc_notebooks

    with open(ROOT / "book" / "_ext" / "notebook_seconds.toml", "rb") as f:
        measured = tomllib.load(f)
    stems = {Path(doc).name for doc in toc_notebooks(ROOT / "_toc.yml")}
    assert set(measured) == stems
    assert all(isinstance(v, float) and v > 0 for v in measured.values())
