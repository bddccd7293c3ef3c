"""Tests of heldout.metrics.regression: closed forms, scipy quantiles and seeded coverage simulations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from heldout.metrics import regression as R


def _data(n=200, seed=0, bias=0.3, scale=2.0):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    yhat = y - (bias + scale * rng.normal(size=n))
    return y, yhat


def test_mse_and_clt_se_against_direct_formulas():
    y, yhat = _data()
    sq = [(a - b) ** 2 for a, b in zip(y, yhat, strict=True)]
    n = len(sq)
    m = sum(sq) / n
    var = sum((s - m) ** 2 for s in sq) / (n - 1)  # the article's sigma^2
    assert R.mse(y, yhat) == pytest.approx(m, rel=1e-12)
    assert R.mse_se(y, yhat) == pytest.approx(np.sqrt(var / n), rel=1e-12)
    _, lo, hi = R.mse_interval(y, yhat, alpha=0.1, method="t")
    half = stats.t.ppf(0.95, n - 1) * np.sqrt(var / n)
    assert (lo, hi) == pytest.approx((m - half, m + half), rel=1e-12)


def test_normal_theory_variance_by_simulation():
    # Var(MSE_hat) = 2 s2 (s2 + 2 B^2) / N for r ~ N(B, s2); check against the spread of many MSEs
    bias, scale, n, reps = 0.8, 1.5, 50, 40_000
    rng = np.random.default_rng(1)
    r = bias + scale * rng.standard_normal((reps, n))
    sd_sim = r.__pow__(2).mean(axis=1).std(ddof=1)
    s2 = scale**2
    sd_formula = np.sqrt(2 * s2 * (s2 + 2 * bias**2) / n)
    # the standard deviation of a sample sd is about sd / sqrt(2 reps): 0.35 %; allow 2 %
    assert sd_sim == pytest.approx(sd_formula, rel=0.02)
    # plug-in estimate from a large sample agrees with the population formula
    big = bias + scale * rng.standard_normal(200_000)
    assert R.mse_se(big, np.zeros_like(big), "normal") * np.sqrt(200_000 / n) == pytest.approx(
        sd_formula, rel=0.02
    )


def test_article_formula_depends_on_units_and_correct_ones_do_not():
    y, yhat = _data()
    for method in ("clt", "normal"):
        assert R.mse_se(10 * y, 10 * yhat, method) == pytest.approx(
            100 * R.mse_se(y, yhat, method), rel=1e-10
        )
    art = R.mse_se(10 * y, 10 * yhat, "article") / R.mse_se(y, yhat, "article")
    assert abs(art - 100) > 5
    r = y - yhat
    b, m = r.mean(), (r**2).mean()
    assert R.mse_se(y, yhat, "article") == pytest.approx(
        np.sqrt(2 * (m - b**2) * (1 + 2 * m) / len(y))
    )


def test_chi2_interval_quantiles():
    y, yhat = _data(n=30, bias=0.0)
    m, lo, hi = R.mse_interval(y, yhat, alpha=0.05, method="chi2")
    assert lo == pytest.approx(30 * m / stats.chi2.ppf(0.975, 30))
    assert hi == pytest.approx(30 * m / stats.chi2.ppf(0.025, 30))


def test_vectorised_over_test_sets():
    rng = np.random.default_rng(2)
    r = rng.normal(size=(5, 40))
    m, lo, hi = R.mse_interval(r, np.zeros_like(r), method="clt")
    for i in range(5):
        mi, li, hi_i = R.mse_interval(r[i], np.zeros(40), method="clt")
        assert (m[i], lo[i], hi[i]) == pytest.approx((mi, li, hi_i))


def test_bootstrap_close_to_clt_for_large_n():
    y, yhat = _data(n=2000, seed=3)
    _, lo_b, hi_b = R.mse_interval(y, yhat, method="bootstrap", draws=1000, seed=4)
    _, lo_c, hi_c = R.mse_interval(y, yhat, method="clt")
    width = hi_c - lo_c
    assert abs(lo_b - lo_c) < 0.1 * width
    assert abs(hi_b - hi_c) < 0.1 * width


def test_coverage_claims_by_simulation():
    reps = 3000
    tol = 4 * np.sqrt(0.95 * 0.05 / reps)
    # exact chi-squared interval: nominal coverage for zero-mean normal residuals
    cov = R.mse_coverage(20, kind="normal", methods=("chi2", "clt", "article"), reps=reps, seed=5)
    assert abs(cov["chi2"].coverage - 0.95) < tol
    # at n = 20 the CLT interval under-covers (the squared residuals are skewed)
    assert cov["clt"].coverage < 0.95 - tol
    # the article's formula is too wide at unit scale: it over-covers
    assert cov["article"].coverage > 0.95 + tol
    # large n: the CLT and bootstrap intervals reach nominal coverage within 1.5 points
    big = R.mse_coverage(
        800, kind="laplace", methods=("clt", "bootstrap"), reps=600, draws=200, seed=6
    )
    for method in ("clt", "bootstrap"):
        assert abs(big[method].coverage - 0.95) < 0.015 + 3 * np.sqrt(0.95 * 0.05 / 600)
    # heavy tails break the normal-theory interval even at large n
    assert big["clt"].coverage > 0.9
    heavy = R.mse_coverage(800, kind="laplace", methods=("normal",), reps=600, seed=7)
    assert heavy["normal"].coverage < 0.85


def test_sample_residuals_true_mse():
    rng = np.random.default_rng(8)
    for kind in ("normal", "laplace", "t"):
        r, true = R.sample_residuals(kind, 400_000, bias=0.5, scale=2.0, df=8, seed=rng)
        assert np.mean(r**2) == pytest.approx(true, rel=0.02)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: R.mse([1, 2, 3], [1, 2]), "same shape"),
        (lambda: R.mse([1.0, np.nan], [1, 2]), "y must"),
        (lambda: R.mse(["a", "b"], [1, 2]), "y must"),
        (lambda: R.mse([1, 2], [1, np.inf]), "yhat"),
        (lambda: R.mse([1], [1]), "at least 2"),
        (lambda: R.mse_interval([1, 2, 3], [1, 2, 2], alpha=2), "alpha"),
        (lambda: R.mse_interval([1, 2, 3], [1, 2, 2], method="jackknife"), "method"),
        (lambda: R.mse_se([1, 2, 3], [1, 2, 2], method="t"), "method"),
        (lambda: R.sample_residuals("cauchy", 5), "kind"),
        (lambda: R.sample_residuals("t", 5, df=2), "df"),
        (lambda: R.mse_coverage(1), "n"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()
