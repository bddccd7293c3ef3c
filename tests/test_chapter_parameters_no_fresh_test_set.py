"""The two chapters of "No fresh test set" rerun with other parameters and stay consistent.

Same machinery as ``test_chapter_parameters.py`` (a cell injected after the ``parameters``
cell, the notebook executed in the quick profile, the glued values read back).  Expected
values are computed here from their formulas, not by the notebooks' code.
"""

from __future__ import annotations

import math

import pytest
from chapter_runs import run_with
from scipy import stats

from heldout.book.chapter import sci


def _num(text: str) -> float:
    return float(text.replace("−", "-").replace(",", ""))


@pytest.mark.slow
def test_cross_validation_follows_its_parameters():
    glued = run_with(
        "cross_validation",
        {
            "folds": 5,
            "alpha": 0.1,
            "reps_null": 100,
            "reps_other": 50,
            "reps_power": 30,
            "reps_cover": 30,
            "nested_reps": 3,
        },
    )
    assert glued["ex_tf"] == "0.200"  # the test share of a fold is 1/k
    tol = 0.1 + max(2 * math.sqrt(0.1 * 0.9 / 100), 0.01)  # the book's verdict rule
    assert glued["null_tol"] == f"{tol:.3f}"
    assert glued["nested_fits"] == str(3 * (5 * 4 // 2 + 5))
    for key in (
        "naive_kfold",
        "corrected_kfold",
        "naive_resampled",
        "corrected_resampled",
        "5x2cv",
        "5x2cv-f",
        "mcnemar",
    ):
        rate = _num(glued[f"t1_{key}"])
        if abs(rate - tol) > 1e-3:  # the words follow the numbers
            word = "holds" if rate <= tol else "exceeds"
            # a verdict from 100 data sets says, in the quick profile, that it is none (issue 37)
            assert (
                glued[f"t1_status_{key}"] == f"{word} (quick build: 100 repetitions, not a verdict)"
            ), key
    # the exercise does not depend on the parameters
    assert glued["exs_corr_t"] == f"{0.03 / math.sqrt((0.1 + 1 / 9) * 0.03**2):.2f}"


def _attack(n: int, k: int) -> float:
    """The attack's expected holdout accuracy, summed term by term."""
    w = range(n // 2 + 1, n + 1)
    p_sel = sum(stats.binom.pmf(v, n, 0.5) for v in w)
    q = sum(v / n * stats.binom.pmf(v, n, 0.5) for v in w) / p_sel
    total = 0.5 * stats.binom.pmf(0, k, p_sel)
    for m in range(1, k + 1):
        g = stats.binom.sf(m // 2, m, q) + (
            0.5 * stats.binom.pmf(m // 2, m, q) if m % 2 == 0 else 0
        )
        total += stats.binom.pmf(m, k, p_sel) * g
    return total


@pytest.mark.slow
def test_test_set_reuse_follows_its_parameters():
    glued = run_with("test_set_reuse", {"n": 2000, "queries": 1000, "reps": 2, "epsilon": 0.1})
    fixed = 0.025 * math.exp(2 * 2000 * 0.1**2)  # (delta/2) e^(2 n eps^2), about 5.9e15
    assert glued["fixed_ok"] == sci(fixed, 1)
    assert glued["naive_expected"] == f"{_attack(2000, 1000):.3f}"
    k = 1  # the plain-holdout bound at n = 100,000, by a plain search
    while math.sqrt((k * math.log(100_001) + math.log(2 * (k + 1) / 0.05)) / 200_000) <= 0.1:
        k += 1
    assert glued["mid_naive"] == f"{k:,}"
    assert _num(glued["naive_final"]) > 0.5 + 0.05  # the attack still climbs
