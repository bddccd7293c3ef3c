"""Tests of heldout.resampling.cv: each statistic against a hand computation from its formula.

The hand computations below use plain Python arithmetic on fixed inputs and
scipy's distribution functions (or statsmodels' McNemar), not the module's code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from heldout.resampling import cv

A = [0.91, 0.90, 0.93, 0.89, 0.92, 0.88, 0.90, 0.94, 0.91, 0.89]
B = [0.89, 0.90, 0.90, 0.88, 0.90, 0.89, 0.87, 0.90, 0.90, 0.88]


def _mean(x):
    return sum(x) / len(x)


def _var(x):  # sample variance, by hand
    m = _mean(x)
    return sum((v - m) ** 2 for v in x) / (len(x) - 1)


def _diffs():
    return [a - b for a, b in zip(A, B, strict=True)]


def test_naive_t_by_hand():
    d = _diffs()
    t = _mean(d) / math.sqrt(_var(d) / len(d))
    r = cv.naive_t(A, B)
    assert r.statistic == pytest.approx(t, rel=1e-12)
    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(t), len(d) - 1), rel=1e-12)
    assert r.df == len(d) - 1 and r.method == "naive" and r.scores == 10
    # and it is the textbook paired t-test
    ref = stats.ttest_rel(A, B)
    assert r.statistic == pytest.approx(ref.statistic) and r.p_value == pytest.approx(ref.pvalue)


@pytest.mark.parametrize("f", [0.1, 0.2, 1 / 3, 0.5])
def test_corrected_t_by_hand(f):
    d = _diffs()
    J = len(d)
    t = _mean(d) / math.sqrt((1 / J + f / (1 - f)) * _var(d))
    r = cv.corrected_t(A, B, f)
    assert r.statistic == pytest.approx(t, rel=1e-12)
    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(t), J - 1), rel=1e-12)
    assert r.se == pytest.approx(math.sqrt((1 / J + f / (1 - f)) * _var(d)))


def test_corrected_is_naive_inflated():
    """The corrected t is the naive t times sqrt((1/J) / (1/J + n2/n1))."""
    naive = cv.naive_t(A, B).statistic
    corr = cv.corrected_t(A, B, 0.1).statistic
    assert corr == pytest.approx(naive * math.sqrt(0.1 / (0.1 + 0.1 / 0.9)))


def test_one_sided_p_values():
    d = _diffs()
    t = _mean(d) / math.sqrt(_var(d) / len(d))
    assert cv.naive_t(A, B, "greater").p_value == pytest.approx(stats.t.sf(t, 9))
    assert cv.naive_t(A, B, "less").p_value == pytest.approx(stats.t.cdf(t, 9))
    assert cv.corrected_t(B, A, 0.1, "greater").p_value > 0.5  # B is the worse learner


FIVE_A = [0.90, 0.88, 0.91, 0.89, 0.90, 0.90, 0.87, 0.89, 0.92, 0.90]
FIVE_B = [0.86, 0.87, 0.88, 0.88, 0.88, 0.86, 0.86, 0.87, 0.88, 0.89]


def _five():
    p = [a - b for a, b in zip(FIVE_A, FIVE_B, strict=True)]
    rows = [(p[2 * i], p[2 * i + 1]) for i in range(5)]
    s2 = [(x - (x + y) / 2) ** 2 + (y - (x + y) / 2) ** 2 for x, y in rows]
    return rows, s2


def test_five_by_two_t_by_hand():
    rows, s2 = _five()
    t = rows[0][0] / math.sqrt(sum(s2) / 5)
    r = cv.five_by_two_t(FIVE_A, FIVE_B)
    assert r.statistic == pytest.approx(t, rel=1e-12)
    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(t), 5), rel=1e-12)
    assert r.df == 5
    # a (5, 2) array is read row by row, as the flat fold order
    r2 = cv.five_by_two_t(np.reshape(FIVE_A, (5, 2)), np.reshape(FIVE_B, (5, 2)))
    assert r2.statistic == r.statistic


def test_five_by_two_t_uses_the_first_fold_only_in_its_numerator():
    a, b = list(FIVE_A), list(FIVE_B)
    a[0], a[1], b[0], b[1] = a[1], a[0], b[1], b[0]  # swap the two folds of replication 1
    rows, s2 = _five()
    swapped = cv.five_by_two_t(a, b)
    assert swapped.statistic == pytest.approx(rows[0][1] / math.sqrt(sum(s2) / 5))
    assert cv.five_by_two_f(a, b).statistic == pytest.approx(
        cv.five_by_two_f(FIVE_A, FIVE_B).statistic
    )


def test_five_by_two_f_by_hand():
    rows, s2 = _five()
    f = sum(x * x + y * y for x, y in rows) / (2 * sum(s2))
    r = cv.five_by_two_f(FIVE_A, FIVE_B)
    assert r.statistic == pytest.approx(f, rel=1e-12)
    assert r.p_value == pytest.approx(stats.f.sf(f, 10, 5), rel=1e-12)
    assert (r.df, r.df_denominator) == (10, 5)


def test_mcnemar_split_exact_and_chi2():
    rng = np.random.default_rng(4)
    a = rng.random(150) < 0.8
    b = rng.random(150) < 0.7
    only_a = int(np.sum(a & ~b))
    only_b = int(np.sum(~a & b))
    table = [[int(np.sum(a & b)), only_a], [only_b, int(np.sum(~a & ~b))]]
    r = cv.mcnemar_split(a, b)
    assert r.statistic == only_a
    assert r.p_value == pytest.approx(sm_mcnemar(table, exact=True).pvalue)
    c = cv.mcnemar_split(a, b, method="chi2")
    chi2 = (abs(only_a - only_b) - 1) ** 2 / (only_a + only_b)
    assert c.statistic == pytest.approx(chi2)
    assert c.p_value == pytest.approx(sm_mcnemar(table, exact=False, correction=True).pvalue)
    assert r.mean_difference == pytest.approx(a.mean() - b.mean())


def test_compare_dispatches():
    assert cv.compare(A, B, test_fraction=0.1).statistic == cv.corrected_t(A, B, 0.1).statistic
    assert cv.compare(A, B, "naive").statistic == cv.naive_t(A, B).statistic
    assert cv.compare(FIVE_A, FIVE_B, "5x2cv").method == "5x2cv"
    assert cv.compare(FIVE_A, FIVE_B, "5x2cv-f").method == "5x2cv-f"
    statistic, p = cv.compare(A, B, "naive")  # unpacks as (statistic, p_value)
    assert 0 < p < 1 and statistic > 0


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: cv.naive_t([0.9], [0.8]), "at least 2 folds"),
        (lambda: cv.naive_t([0.9, 0.8, 0.7], [0.8, 0.7]), "same number"),
        (lambda: cv.naive_t(0.9, 0.8), "scores_a"),
        (lambda: cv.naive_t([0.9, float("nan")], [0.8, 0.7]), "scores_a"),
        (lambda: cv.naive_t([0.9, 0.8], [0.8, float("inf")]), "scores_b"),
        (lambda: cv.naive_t(["x", "y"], [0.8, 0.7]), "scores_a"),
        (lambda: cv.naive_t([], []), "at least 2"),
        (lambda: cv.corrected_t(A, B, 1.0), "test_fraction"),
        (lambda: cv.corrected_t(A, B, 0.0), "test_fraction"),
        (lambda: cv.corrected_t(A, B, -0.2), "test_fraction"),
        (lambda: cv.corrected_t(A, B, [0.1, 0.2]), "test_fraction"),
        (lambda: cv.corrected_t(A, B, float("nan")), "test_fraction"),
        (lambda: cv.five_by_two_t(A[:8], B[:8]), "exactly 10"),
        (lambda: cv.five_by_two_f(A[:9], B[:9]), "exactly 10"),
        (lambda: cv.naive_t(A, B, alternative="bigger"), "alternative"),
        (lambda: cv.compare(A, B), "test_fraction"),
        (lambda: cv.compare(A, B, "t-test"), "method"),
        (lambda: cv.compare(FIVE_A, FIVE_B, "5x2cv-f", alternative="less"), "two-sided"),
        (lambda: cv.mcnemar_split([1, 0, 1], [1, 0]), "same shape"),
        (lambda: cv.mcnemar_split([1, 2], [1, 0]), "correct_a"),
        (lambda: cv.mcnemar_split([1, 0], [1, 0], method="fisher"), "method"),
        (lambda: cv.mcnemar_split([1, 0], [0, 1], "less", method="chi2"), "two-sided"),
    ],
)
def test_bad_input_is_a_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_zero_variance_is_refused():
    with pytest.raises(ValueError, match="zero variance"):
        cv.naive_t([0.9, 0.8, 0.7], [0.88, 0.78, 0.68])  # A ahead by 0.02 in every fold
    with pytest.raises(ValueError, match="zero variance"):
        cv.corrected_t([0.9, 0.8], [0.9, 0.8], 0.5)
    same = [0.9, 0.9] * 5
    with pytest.raises(ValueError, match="zero variance"):
        cv.five_by_two_f(same, [0.8, 0.8] * 5)


def test_no_disagreement_gives_p_one():
    r = cv.mcnemar_split([1, 1, 0], [1, 1, 0])
    assert r.p_value == 1.0
    assert cv.mcnemar_split([1, 1, 0], [1, 1, 0], method="chi2").p_value == 1.0
