"""Tests of ``heldout judged`` and ``heldout size gold``: values equal the package's and
scipy's, the recommended interval follows the book's limits, bad input -> one line, exit 2."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from cli_support import cli_json
from scipy import stats

from heldout.judged import gold_for_half_width, ppi_mean, rogan_gladen


def _counts(c11, c10, c01, c00, k, big_n):
    return (
        "--right-passed", str(c11), "--right-failed", str(c10), "--wrong-passed", str(c01),
        "--wrong-failed", str(c00), "--judge-passed", str(k), "--judge-items", str(big_n),
    )  # fmt: skip


@pytest.mark.parametrize(
    "cells,recommended",
    [((600, 40, 90, 270, 7000, 10000), "ppi++"), ((160, 5, 25, 10, 1700, 2000), "gold-only exact")],
)
def test_judged_equals_the_package_on_the_arrays(capsys, cells, recommended):
    c11, c10, c01, c00, k, big_n = cells
    out = cli_json(capsys, "judged", *_counts(*cells), "--alpha", "0.1")
    y = np.r_[np.ones(c11 + c10), np.zeros(c01 + c00)]
    f = np.r_[np.ones(c11), np.zeros(c10), np.ones(c01), np.zeros(c00)]
    rest = np.r_[np.ones(k), np.zeros(big_n - k)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = ppi_mean(y, f, rest, alpha=0.1)
        plain = ppi_mean(y, f, rest, alpha=0.1, weight=1.0)
    rg = rogan_gladen(y, f, rest, alpha=0.1)
    assert out["ppi++"]["low"] == pytest.approx(tuned.low, abs=1e-12)
    assert out["ppi++"]["weight"] == pytest.approx(tuned.weight, abs=1e-12)
    assert out["ppi"]["high"] == pytest.approx(plain.high, abs=1e-12)
    assert out["rogan_gladen"]["estimate"] == pytest.approx(rg.estimate, abs=1e-12)
    n = y.size
    exact = stats.binomtest(c11 + c10, n).proportion_ci(0.9, method="exact")
    assert (out["gold_only_exact"]["low"], out["gold_only_exact"]["high"]) == pytest.approx(
        (exact.low, exact.high), abs=1e-9
    )
    assert out["recommended"] == recommended
    assert out["judge_only_mean"] == pytest.approx((c11 + c01 + k) / (n + big_n))


def test_size_gold_equals_the_package(capsys):
    out = cli_json(capsys, "size", "gold", "--half-width", "0.02", "--rate", "0.8",
                   "--sensitivity", "0.97", "--specificity", "0.6", "--judge-items", "10000")  # fmt: skip
    plan = gold_for_half_width(0.02, 0.8, 0.97, 0.6, judge_items=10000)
    assert out["gold_items"] == plan.gold_items
    assert out["gold_items_without_judge"] == plan.classical_items


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["judged", *_counts(5, 1, 1, 5, 30, 20)], "judge_passed"),
        (["judged", *_counts(0, 0, 0, 1, 3, 20)], "table"),
        (
            ["size", "gold", "--half-width", "2", "--rate", "0.8", "--sensitivity", "0.9"],
            "half_width",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, fragment):
    proc = subprocess.run(
        [sys.executable, "-m", "heldout", *argv], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and fragment in proc.stderr
