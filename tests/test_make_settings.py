"""Settings of the Makefile that keep `make test` from doing the same work twice.

* Byte-code caches: pip installs the venv without compiling it (``--no-compile``), and
  Python compiles each module when first imported and keeps the result.  That holds only
  if Python may write its caches, so the Makefile unexports ``PYTHONDONTWRITEBYTECODE``
  (set on some machines): with it, every process of ``make test`` compiled every module it
  imported (the course venv's in each lesson run, the package's own in every kernel,
  worker and command-line call).
* The PDF: latexmk runs XeLaTeX's passes without writing a PDF and converts once at the
  end (``LATEXMKOPTS=-xelatex``, read by the Makefile Sphinx writes; the quick PDF took
  94.5 CPU-s in latexmk before, 58.2 s after, with the same pages, text and images).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def test_the_venv_is_installed_without_byte_code_only_where_python_keeps_its_caches():
    recipe = re.search(r"^\$\(STAMP\):.*\n((?:\t.*\n)+)", MAKEFILE, re.M).group(1)
    installs = [line for line in recipe.splitlines() if "pip install" in line and "-e" in line]
    assert installs, "the venv's recipe installs the package"
    if any("--no-compile" in line for line in installs):
        assert re.search(r"^unexport PYTHONDONTWRITEBYTECODE\s*$", MAKEFILE, re.M)


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_recipes_may_write_byte_code_caches(tmp_path):
    probe = tmp_path / "probe.mk"
    probe.write_text(
        f'include {ROOT / "Makefile"}\nprobe:\n\t@echo "[$$PYTHONDONTWRITEBYTECODE]"\n'
    )
    out = subprocess.run(
        ["make", "--no-print-directory", "-f", str(probe), "probe"],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def _recipe(target: str) -> str:
    return re.search(rf"^{target}:.*\n((?:\t.*\n)+)", MAKEFILE, re.M).group(1)


def test_the_pdfs_convert_to_pdf_once():
    assert re.search(r"^LATEXMK_XE := LATEXMKOPTS=-xelatex\s*$", MAKEFILE, re.M)
    for target in ("pdf", "quickpdf"):
        build = [line for line in _recipe(target).splitlines() if "--builder pdflatex" in line]
        assert build and all("$(LATEXMK_XE)" in line for line in build), target
