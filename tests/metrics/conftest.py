"""Shared fixture of the metric tests: running R's pROC on the same data (skipped without it)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest


def _proc_available() -> bool:
    if shutil.which("Rscript") is None:
        return False
    try:
        done = subprocess.run(
            ["Rscript", "-e", "suppressMessages(library(pROC))"],
            capture_output=True, timeout=60, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@pytest.fixture(scope="session")
def proc(tmp_path_factory):
    """``run(y, scores, code) -> list of floats``: pROC's numbers on the same data.

    The R code sees ``r``, the ``roc`` object of labels ``y`` and scores ``s`` (controls 0,
    cases 1, higher scores for cases), and prints numbers with ``cat``.
    """
    if not _proc_available():
        pytest.skip("R with pROC is not installed")
    folder = tmp_path_factory.mktemp("proc")

    def run(y, scores, code: str) -> list[float]:
        path = folder / "data.csv"
        np.savetxt(path, np.c_[np.asarray(y, float), np.asarray(scores, float)], delimiter=",")
        script = (
            "suppressMessages(library(pROC)); options(digits = 15); "
            f'd <- read.csv("{path}", header = FALSE); '
            'r <- roc(d$V1, d$V2, levels = c(0, 1), direction = "<", quiet = TRUE); ' + code
        )
        done = subprocess.run(
            ["Rscript", "-e", script], capture_output=True, text=True, timeout=300, check=True
        )
        return [float(v) for v in done.stdout.split()]

    return run
