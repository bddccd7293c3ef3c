"""Tests of heldout.accuracy.posterior against scipy.stats.beta, brute force and simulation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from heldout.accuracy import posterior as P


def test_priors():
    assert P.prior_params("uniform") == (1.0, 1.0)
    assert P.prior_params("Haldane") == (0.0, 0.0)
    assert P.prior_params("jeffreys") == (0.5, 0.5)
    assert P.prior_params((2, 3.5)) == (2.0, 3.5)


def test_article_posterior_beta_97_5():
    # 96/100 under the uniform prior is Beta(97, 5), as the article says
    a, b = P.beta_params(96, 4)
    assert (a, b) == (97.0, 5.0)
    post = P.BetaPosterior.from_counts(96, 100)
    assert post.mean == pytest.approx(stats.beta(97, 5).mean(), rel=1e-14)
    assert post.sd == pytest.approx(stats.beta(97, 5).std(), rel=1e-12)
    assert post.mean == pytest.approx(97 / 102, rel=1e-14)
    # haldane gives Beta(96, 4), the pair the article's comparison uses
    assert tuple(P.beta_params(96, 4, "haldane")) == (96.0, 4.0)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_article_sd_formula_is_the_exact_beta_sd(kn):
    k, n = kn
    exact = stats.beta(k + 1, n - k + 1).std()
    assert P.article_sd(k, n) == pytest.approx(exact, rel=1e-10)
    raw = np.sqrt(k / n * (1 - k / n) / (n + 3))
    assert P.article_sd(k, n, method="raw") == pytest.approx(raw, rel=1e-12, abs=1e-300)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.3, 500), st.floats(0.3, 500), st.sampled_from([0.5, 0.9, 0.95, 0.99]))
def test_equal_tailed_matches_scipy(a, b, level):
    lo, hi = P.equal_tailed(a, b, alpha=1 - level)
    ref = stats.beta.interval(level, a, b)
    assert lo == pytest.approx(ref[0], rel=1e-10, abs=1e-15)
    assert hi == pytest.approx(ref[1], rel=1e-10, abs=1e-15)
    assert P.beta_mean(a, b) == pytest.approx(stats.beta.mean(a, b), rel=1e-12)
    assert P.beta_sd(a, b) == pytest.approx(stats.beta.std(a, b), rel=1e-10)


@settings(max_examples=30, deadline=None)
@given(st.floats(1.2, 300), st.floats(1.2, 300), st.sampled_from([0.8, 0.95]))
def test_hpd_is_shortest_with_equal_density_ends(a, b, level):
    lo, hi = P.hpd(a, b, alpha=1 - level)
    dist = stats.beta(a, b)
    assert dist.cdf(hi) - dist.cdf(lo) == pytest.approx(level, abs=1e-9)
    assert dist.logpdf(lo) == pytest.approx(dist.logpdf(hi), abs=1e-5)
    eq_lo, eq_hi = P.equal_tailed(a, b, alpha=1 - level)
    assert hi - lo <= eq_hi - eq_lo + 1e-12
    # brute force: the shortest of many intervals of mass `level`
    t = np.linspace(0, 1 - level, 20001)
    widths = dist.ppf(t + level) - dist.ppf(t)
    assert hi - lo <= widths.min() + 1e-9
    assert hi - lo >= widths.min() - 1e-6 * max(widths.min(), 1e-6)


def test_hpd_monotone_densities():
    # 100/100 with a uniform prior: Beta(101, 1), increasing, the interval ends at 1
    lo, hi = P.credible_interval(100, 100, alpha=0.05, method="hpd")
    assert hi == 1.0
    assert lo == pytest.approx(0.05 ** (1 / 101), rel=1e-12)
    # 0/20 with the jeffreys prior: Beta(0.5, 20.5), decreasing, the interval starts at 0
    lo, hi = P.credible_interval(0, 20, alpha=0.1, prior="jeffreys", method="hpd")
    assert lo == 0.0
    assert hi == pytest.approx(stats.beta.ppf(0.9, 0.5, 20.5))
    assert tuple(P.hpd(1, 1, alpha=0.1)) == pytest.approx((0.05, 0.95))


def test_credible_interval_equal_and_vectorised():
    lo, hi = P.credible_interval([96, 50], 100, alpha=0.05)
    assert lo == pytest.approx([stats.beta.ppf(0.025, 97, 5), stats.beta.ppf(0.025, 51, 51)])
    assert hi == pytest.approx([stats.beta.ppf(0.975, 97, 5), stats.beta.ppf(0.975, 51, 51)])


def test_bayesian_coverage_under_the_prior_by_simulation():
    # Drawing p from the uniform prior and k ~ Bin(n, p), the 90% credible interval
    # contains p with probability exactly 0.90 (averaged over the prior).
    rng = np.random.default_rng(7)
    reps, n = 20_000, 40
    p = rng.random(reps)
    k = rng.binomial(n, p)
    lo, hi = P.credible_interval(k, n, alpha=0.1)
    cover = np.mean((lo <= p) & (p <= hi))
    assert abs(cover - 0.9) < 4 * np.sqrt(0.9 * 0.1 / reps)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: P.prior_params("flat"), "prior"),
        (lambda: P.prior_params((1, -1)), "prior"),
        (lambda: P.beta_params(-1, 3), "successes"),
        (lambda: P.beta_params(1, 2.5), "failures"),
        (lambda: P.beta_params(0, 5, "haldane"), "improper"),
        (lambda: P.credible_interval(97, 96), "k"),
        (lambda: P.credible_interval(5, 10, alpha=1.5), "alpha"),
        (lambda: P.credible_interval(5, 10, method="shortest"), "method"),
        (lambda: P.hpd(0.5, 0.5), "U-shaped"),
        (lambda: P.article_sd(3, 10, method="mean"), "method"),
        (lambda: P.beta_sd(0, 1), "a"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_old_posterior_names_warn_and_agree():
    with pytest.warns(DeprecationWarning, match="deprecated"):
        old = P.credible_interval(62, 100, 0.9, kind="hpd")
    assert tuple(old) == tuple(P.credible_interval(62, 100, alpha=0.1, method="hpd"))
    with pytest.warns(DeprecationWarning, match="'level' is deprecated"):
        assert P.equal_tailed(3.0, 5.0, level=0.8).low == pytest.approx(
            P.equal_tailed(3.0, 5.0, alpha=0.2).low
        )
    post = P.BetaPosterior.from_counts(62, 100)
    with pytest.warns(DeprecationWarning, match="positional argument"):
        old = post.interval(0.95, "hpd")
    assert tuple(old) == tuple(post.interval(method="hpd"))
    # the posterior's quantiles against scipy.stats.beta (an independent implementation)
    lo, hi = post.interval(alpha=0.1)
    assert (lo, hi) == pytest.approx(stats.beta.interval(0.9, 63, 39), rel=1e-10)
    with pytest.warns(DeprecationWarning, match="'plug_in' is deprecated"):
        assert P.article_sd(62, 100, plug_in="raw") == P.article_sd(62, 100, method="raw")
