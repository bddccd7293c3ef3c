"""Tails computed from the side that does not cancel (issue 31), at extreme counts.

A tail written ``1 - cdf`` rounds to 0 once the cdf is within 1e-16 of 1: McNemar's
``(118, 10)`` printed p = 0 while ``(10, 118)`` gave 1.45e-24.  Every p-value and
quantile below is checked against scipy's binomial test, its survival functions or
50-digit mpmath sums, in the far tails where the cancelling form fails.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import special, stats

from heldout.comparison import paired
from heldout.metrics import bootstrap, multinomial, regression, scores

mpmath.mp.dps = 50


def _binom_upper(k: int, n: int) -> float:
    """P(Binomial(n, 1/2) >= k) as a 50-digit sum."""
    total = mpmath.fsum(mpmath.binomial(n, j) for j in range(k, n + 1))
    return float(total / mpmath.mpf(2) ** n)


@pytest.mark.parametrize(("b", "c"), [(118, 10), (10, 118), (300, 2), (2, 300), (1000, 0)])
def test_mcnemar_exact_matches_the_binomial_test_in_both_directions(b, c):
    for alternative in ("two-sided", "greater", "less"):
        want = stats.binomtest(b, b + c, 0.5, alternative=alternative).pvalue
        got = paired.mcnemar_exact(b, c, alternative=alternative)
        assert got == pytest.approx(want, rel=1e-9, abs=0.0), (b, c, alternative)
    # the two-sided value is symmetric in (b, c) and never 0 for a finite table
    assert paired.mcnemar_exact(b, c) == pytest.approx(paired.mcnemar_exact(c, b), rel=1e-12)
    assert paired.mcnemar_exact(b, c) > 0


def test_mcnemar_upper_tail_against_fifty_digits():
    for b, c in [(118, 10), (500, 20), (2000, 700)]:
        want = _binom_upper(b, b + c)
        got = paired.mcnemar_exact(b, c, alternative="greater")
        assert got == pytest.approx(want, rel=1e-9)


def test_mcnemar_arrays_agree_with_scalars_in_the_far_tail():
    b = np.array([118, 10, 60])
    c = np.array([10, 118, 60])
    got = paired.mcnemar_exact(b, c)
    want = [stats.binomtest(int(x), int(x + y)).pvalue for x, y in zip(b, c, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_interval_quantiles_stay_finite_for_tiny_alpha():
    # 1 - alpha/2 rounds to 1 below alpha ~ 1e-16: the quantile would be inf
    alpha = 1e-20
    z = -special.ndtri(alpha / 2)
    assert math.isfinite(z) and z == pytest.approx(stats.norm.isf(alpha / 2), rel=1e-12)
    ci = paired.diff_interval(40, 20, 160, alpha=alpha, method="wald")
    assert math.isfinite(ci.low) and math.isfinite(ci.high) and ci.low < ci.diff < ci.high
    y, yhat = np.array([0.0, 1.0, 2.0, 3.5, 1.0]), np.array([0.1, 0.5, 2.9, 3.0, 2.5])
    e = regression.mse_interval(y, yhat, alpha=alpha, method="t")
    sq = (y - yhat) ** 2
    half = stats.t.isf(alpha / 2, sq.size - 1) * sq.std(ddof=1) / math.sqrt(sq.size)
    assert math.isfinite(e.high) and e.high == pytest.approx(sq.mean() + half, rel=1e-9)


def test_gamma_score_interval_upper_end_uses_the_upper_tail():
    # gammainccinv(k + 1, a/2) is the upper quantile itself; compare with scipy's isf
    values = np.array([0.2, 0.5, 0.1, 0.9, 0.3, 0.4])  # a mean of positive losses
    mean, low, high, se = scores._gamma_interval(values, 1e-12)
    k = mean**2 / se**2
    scale = se**2 / mean
    assert high == pytest.approx(scale * stats.gamma.isf(0.5e-12, k + 1), rel=1e-9)


def test_poisson_box_above_the_mean_does_not_cancel():
    lam = np.array([3.0])
    b, a = np.array([40.0]), np.array([45.0])
    got = float(multinomial._poisson_box(lam, b, a)[0])
    want = float(
        mpmath.fsum(
            mpmath.e ** (-3) * mpmath.mpf(3) ** j / mpmath.factorial(j) for j in range(40, 46)
        )
    )
    assert got == pytest.approx(want, rel=1e-9)


def test_bootstrap_p_value_is_floored_at_the_resampling_resolution():
    # every resample above 0: a p-value below 1/(B + 1) cannot be resolved
    boot = np.linspace(0.5, 1.5, 2000)
    # the percentile p of "no resample at or below 0" is 2 * (0.5 / B) = 1/B
    assert bootstrap._bca_p_value(boot, 0.0, 0.0, "percentile") == pytest.approx(1 / 2000)
    # a BCa correction (bias z0, acceleration) pushes the raw value far below 1/(B + 1):
    # reported at the floor, never below it
    share = 0.5 / 2000
    t = special.ndtri(share) - 0.8
    raw = 2 * special.ndtr(t / (1 + 0.05 * t) - 0.8)
    assert raw < 1e-5
    assert bootstrap._bca_p_value(boot, 0.8, 0.05, "bca") == pytest.approx(1 / 2001)
    # well inside the distribution the floor does not bind: the percentile p is 2 * share
    boot = np.r_[-np.ones(300), np.ones(1700)]
    assert bootstrap._bca_p_value(boot, 0.0, 0.0, "percentile") == pytest.approx(0.3)


def test_paired_bootstrap_p_value_never_below_one_over_b_plus_one():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 400)
    a = y.copy()  # perfect model
    b = np.where(rng.random(400) < 0.6, y, 1 - y)
    with pytest.warns(bootstrap.SmallSampleWarning):  # B never beats A: a count of 0
        d = bootstrap.bootstrap_interval("accuracy", y, a, b, n_resamples=2000, seed=1)
    assert d.p_value >= 1 / 2001
    assert d.p_value == pytest.approx(1 / 2001)


def test_peeking_miss_probability_is_summed_from_its_own_side():
    # after the first batch of 10 the miss probability is P(the Clopper-Pearson interval
    # excludes p) = the binomial mass of the excluded counts: tiny at alpha = 1e-8, where
    # 1 - P(no miss) kept only about 6 significant digits
    from heldout.sequential import peeking

    p, alpha, n = 0.9, 1e-8, 10
    k = np.arange(n + 1)
    low = np.where(k > 0, stats.beta.ppf(alpha / 2, k, n - k + 1), 0.0)
    high = np.where(k < n, stats.beta.isf(alpha / 2, k + 1, n - k), 1.0)
    want = float(stats.binom.pmf(k, n, p)[(low > p) | (high < p)].sum())
    got = peeking.fixed_interval_miss(p, 3, n, alpha=alpha)
    assert got[0] == pytest.approx(want, rel=1e-9)
    assert np.all(np.diff(got) >= 0)
