"""Tests of heldout.accuracy.acceptance against closed forms, brute force, scipy and simulation."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from heldout.accuracy import acceptance as A

# ---------------------------------------------------------------------------
# the article's figures (closed forms with scipy.stats.norm.ppf)
# ---------------------------------------------------------------------------


def test_z_value_is_the_normal_quantile_and_rounds_to_the_article():
    assert A.z_value(0.01) == pytest.approx(stats.norm.ppf(0.99), rel=1e-12)
    assert round(A.z_value(0.01), 2) == 2.33  # article: "approximately 2.33"
    assert np.allclose(A.z_value([0.05, 0.01]), stats.norm.ppf([0.95, 0.99]), rtol=1e-12)


def test_article_margin_for_0_8_and_1000_items():
    closed = stats.norm.ppf(0.99) * math.sqrt(0.8 * 0.2 / 1000)
    assert A.safety_margin(0.8, 1000, 0.01) == pytest.approx(closed, rel=1e-12)
    assert round(A.safety_margin(0.8, 1000, 0.01), 3) == 0.029  # article: 0.029
    # the article's 0.83 clears the threshold, by less than half a thousandth
    assert 0 < 0.83 - A.threshold(0.8, 1000, 0.01) < 0.001


def test_article_threshold_0_842_for_500_items_is_a_threshold_not_a_margin():
    closed = 0.8 + stats.norm.ppf(0.99) * math.sqrt(0.16 / 500)
    assert A.threshold(0.8, 500, 0.01) == pytest.approx(closed, rel=1e-12)
    assert round(A.threshold(0.8, 500, 0.01), 3) == 0.842
    assert round(A.safety_margin(0.8, 500, 0.01), 3) == 0.042


def test_article_margin_for_required_0_7():
    closed = stats.norm.ppf(0.99) * math.sqrt(0.7 * 0.3 / 1000)
    assert A.safety_margin(0.7, 1000, 0.01) == pytest.approx(closed, rel=1e-12)
    assert round(A.safety_margin(0.7, 1000, 0.01), 3) == 0.034


def test_accuracy_sd_closed_form():
    assert A.accuracy_sd(0.8, 1000) == pytest.approx(math.sqrt(0.16 / 1000), rel=1e-14)
    assert A.accuracy_sd(0.8, 1000) == pytest.approx(stats.binom.std(1000, 0.8) / 1000, rel=1e-12)


def test_accept_the_article_example():
    r = A.accept(830, 1000, 0.8, 0.01)
    assert r.passes and r.passes_exact
    assert r.p_value_exact == pytest.approx(
        stats.binomtest(830, 1000, 0.8, alternative="greater").pvalue, rel=1e-10
    )
    assert r.p_value_normal == pytest.approx(stats.norm.sf(30 / math.sqrt(160)), rel=1e-12)
    assert r.p_value_normal_cc == pytest.approx(stats.norm.sf(29.5 / math.sqrt(160)), rel=1e-12)
    assert r.critical_count_exact == 830  # one correct answer fewer and the exact test fails
    assert stats.binom.sf(828, 1000, 0.8) > 0.01 >= stats.binom.sf(829, 1000, 0.8)
    half = A.accept(415, 500, 0.8, 0.01)
    assert not half.passes and not half.passes_exact


# ---------------------------------------------------------------------------
# p-values and critical counts
# ---------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 3000),
    frac=st.floats(0, 1),
    p0=st.floats(0.02, 0.98),
)
def test_p_value_exact_matches_scipy_binomtest(n, frac, p0):
    k = int(round(frac * n))
    expected = stats.binomtest(k, n, p0, alternative="greater").pvalue
    assert A.p_value_exact(k, n, p0) == pytest.approx(expected, rel=1e-9, abs=1e-300)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 5000), frac=st.floats(0, 1), p0=st.floats(0.05, 0.95))
def test_p_value_normal_closed_form_and_threshold_rule(n, frac, p0):
    k = int(round(frac * n))
    z = (k - n * p0) / math.sqrt(n * p0 * (1 - p0))
    assert A.p_value_normal(k, n, p0) == pytest.approx(stats.norm.sf(z), rel=1e-9, abs=1e-300)
    zc = (k - 0.5 - n * p0) / math.sqrt(n * p0 * (1 - p0))
    assert A.p_value_normal(k, n, p0, continuity=True) == pytest.approx(
        stats.norm.sf(zc), rel=1e-9, abs=1e-300
    )
    # the article's rule "accuracy above the threshold" is "normal p-value below alpha"
    t = A.threshold(p0, n, 0.05)
    if abs(k / n - t) > 1e-9:
        assert (k / n > t) == (A.p_value_normal(k, n, p0) < 0.05)


def test_p_values_vectorise():
    k = np.array([800, 815, 830, 845])
    got = A.p_value_exact(k, 1000, 0.8)
    want = [stats.binomtest(int(x), 1000, 0.8, alternative="greater").pvalue for x in k]
    assert np.allclose(got, want, rtol=1e-10)


@pytest.mark.parametrize("p0,alpha", [(0.8, 0.01), (0.99, 0.05), (0.5, 0.05), (0.95, 0.001)])
def test_critical_count_by_brute_force(p0, alpha):
    ns = [1, 2, 5, 17, 60, 99, 100, 250, 1000, 2345]
    got = A.critical_count(ns, p0, alpha)
    for n, c in zip(ns, got, strict=True):
        tails = stats.binom.sf(np.arange(-1, n + 1) - 1, n, p0)  # P(X >= k), k = -1..n+1
        tails = np.append(tails, 0.0)
        ks = np.arange(-1, n + 2)
        want = ks[tails <= alpha].min()
        assert c == want, (n, c, want)


def test_critical_count_normal_matches_the_threshold():
    n = np.arange(1, 3000)
    c = A.critical_count(n, 0.8, 0.01, method="normal")
    t = 0.8 + stats.norm.ppf(0.99) * np.sqrt(0.16 / n)
    possible = c <= n
    assert np.all(c[possible] / n[possible] > t[possible])  # c passes ...
    assert np.all((c - 1) / n <= t)  # ... and c - 1 does not
    assert np.all(t[~possible] >= 1)  # no count passes only when the threshold is >= 1


# ---------------------------------------------------------------------------
# sizes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "p0,d,alpha", [(0.8, 0.03, 0.01), (0.5, 0.005, 0.05), (0.99, 0.005, 0.01), (0.9, 0.05, 0.05)]
)
def test_normal_size_is_the_smallest_n_whose_margin_fits(p0, d, alpha):
    n = A.normal_margin_size(p0, d, alpha)
    z = stats.norm.ppf(1 - alpha)
    assert z * math.sqrt(p0 * (1 - p0) / n) <= d * (1 + 1e-12)
    assert z * math.sqrt(p0 * (1 - p0) / (n - 1)) > d


def _brute_exact_sizes(p0: str, d: str, alpha: float, upto: int) -> tuple[int, int, np.ndarray]:
    """First and stable exact sizes by direct evaluation of scipy's binomial tail for every n."""
    q = Fraction(p0) + Fraction(d)
    n = np.arange(1, upto + 1)
    k = np.array([-((-m * q.numerator) // q.denominator) for m in n])  # exact ceil(n q)
    ok = stats.binom.sf(k - 1, n, float(p0)) <= alpha
    first = int(n[ok].min())
    stable = int(n[~ok].max()) + 1 if (~ok).any() else 1
    return first, stable, ok


SAMPLE = [
    ("0.8", "0.03", 0.01),
    ("0.8", "0.03", 0.05),
    ("0.5", "0.02", 0.05),
    ("0.6", "0.01", 0.01),
    ("0.9", "0.01", 0.05),
    ("0.95", "0.02", 0.01),
    ("0.95", "0.05", 0.05),  # needs a perfect score: 0.95**n <= 0.05
    ("0.97", "0.01", 0.01),
    ("0.99", "0.005", 0.05),
    ("0.99", "0.005", 0.01),
    ("0.7", "0.05", 0.01),
]


@pytest.mark.parametrize("p0,d,alpha", SAMPLE)
def test_exact_size_by_brute_force(p0, d, alpha):
    upto = 3 * A.normal_margin_size(float(p0), float(d), alpha) + 300
    first, stable, ok = _brute_exact_sizes(p0, d, alpha, upto)
    assert A.exact_margin_size(float(p0), float(d), alpha, rule="first") == first
    assert A.exact_margin_size(float(p0), float(d), alpha) == stable
    assert A.exact_margin_size(float(p0), float(d), alpha, rule="both") == A.MarginSizes(
        first, stable
    )
    assert ok[stable - 1 :].all()


@settings(max_examples=15, deadline=None)
@given(
    p0=st.integers(50, 97).map(lambda i: f"{i / 100:.2f}"),
    d=st.sampled_from(["0.02", "0.025", "0.03", "0.04", "0.05"]),
    alpha=st.sampled_from([0.1, 0.05, 0.01]),
)
def test_exact_size_by_brute_force_random_cells(p0, d, alpha):
    if Fraction(p0) + Fraction(d) > 1:
        return
    upto = 3 * A.normal_margin_size(float(p0), float(d), alpha) + 300
    first, stable, ok = _brute_exact_sizes(p0, d, alpha, upto)
    assert A.exact_margin_size(float(p0), float(d), alpha, rule="first") == first
    assert A.exact_margin_size(float(p0), float(d), alpha) == stable


def test_tail_recurrence_matches_the_incomplete_beta_function_on_large_cells():
    from scipy import special

    p0 = np.array([0.6, 0.9, 0.99])
    q = p0 + np.array([0.005, 0.01, 0.005])
    h = np.array([88_295, 8_000, 2_978])
    cell, n, _, k, tails = A._margin_tails(p0, q, h, 0, 3)
    ref = special.betainc(k, n - k + 1, p0[cell])
    assert np.max(np.abs(tails - ref)) < 1e-10  # the tie band of exact_size is 1e-9


def test_exact_size_perfect_score_cell_closed_form():
    # required 0.95 with margin 0.05: only a perfect score reaches 1.0; 0.95**n <= alpha
    assert A.exact_margin_size(0.95, 0.05, 0.05) == math.ceil(math.log(0.05) / math.log(0.95))


def test_size_table_agrees_with_the_single_calls_and_marks_impossible_cells():
    req = [0.5, 0.8, 0.99]
    mar = [0.005, 0.02, 0.05]
    t = A.size_table(req, mar, (0.05, 0.01))
    assert t.normal.shape == (2, 3, 3)
    for i, a in enumerate((0.05, 0.01)):
        for j, p0 in enumerate(req):
            for k, d in enumerate(mar):
                if p0 + d > 1:
                    assert t.normal[i, j, k] == -1 and t.exact[i, j, k] == -1
                    assert np.isnan(t.normal_level[i, j, k])
                    continue
                assert t.normal[i, j, k] == A.normal_margin_size(p0, d, a)
                assert t.exact[i, j, k] == A.exact_margin_size(p0, d, a)
                assert t.exact_first[i, j, k] == A.exact_margin_size(p0, d, a, rule="first")
                n = t.normal[i, j, k]
                c = math.floor(n * (p0 + stats.norm.ppf(1 - a) * math.sqrt(p0 * (1 - p0) / n))) + 1
                assert t.normal_level[i, j, k] == pytest.approx(stats.binom.sf(c - 1, n, p0))


def test_exact_size_broadcasts():
    got = A.exact_margin_size([0.8, 0.9], [[0.03], [0.05]], 0.05)
    assert got.shape == (2, 2)
    assert got[0, 1] == A.exact_margin_size(0.9, 0.03, 0.05)


# ---------------------------------------------------------------------------
# power
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("test", ["exact", "normal"])
@pytest.mark.parametrize("pi,n", [(0.83, 1000), (0.83, 500), (0.8, 1000), (0.86, 300)])
def test_pass_probability_against_simulation(test, pi, n):
    reps = 40_000
    rng = np.random.default_rng(8)
    x = rng.binomial(n, pi, size=reps)
    if test == "exact":
        passed = stats.binom.sf(x - 1, n, 0.8) <= 0.01
    else:
        passed = x / n > 0.8 + stats.norm.ppf(0.99) * math.sqrt(0.16 / n)
    p = A.pass_probability(pi, n, 0.8, 0.01, method=test)
    se = math.sqrt(max(p * (1 - p), 1e-4) / reps)
    assert abs(passed.mean() - p) < 4.5 * se  # 4.5 standard errors: fails by chance < 1e-5


def test_exact_test_level_never_exceeds_alpha():
    n = np.arange(1, 2001)
    for p0, a in [(0.8, 0.01), (0.95, 0.05), (0.6, 0.05)]:
        level = A.actual_level(n, p0, a, method="exact")
        assert np.all(level <= a * (1 + 1e-9))
        assert A.pass_probability(p0, n[-1], p0, a) == pytest.approx(level[-1])


def test_power_normal_closed_form_and_one_half_at_threshold():
    n, p0, a = 1000, 0.8, 0.01
    t = A.threshold(p0, n, a)
    assert A.power_normal(t, n, p0, a) == pytest.approx(0.5, abs=1e-12)
    pi = np.array([0.8, 0.82, 0.84, 0.86])
    want = stats.norm.cdf((pi - t) / np.sqrt(pi * (1 - pi) / n))
    assert np.allclose(A.power_normal(pi, n, p0, a), want, rtol=1e-12)
    # close to the exact pass probability of the same rule at this n
    assert np.allclose(
        A.power_normal(pi, n, p0, a), A.pass_probability(pi, n, p0, a, method="normal"), atol=0.03
    )


def test_power_size_normal_is_the_smallest_n_with_the_power():
    p0, p1, a, pw = 0.8, 0.83, 0.01, 0.8
    n = A.power_size_normal(p0, p1, a, pw)
    closed = (
        (
            stats.norm.ppf(1 - a) * math.sqrt(p0 * (1 - p0))
            + stats.norm.ppf(pw) * math.sqrt(p1 * (1 - p1))
        )
        / (p1 - p0)
    ) ** 2
    assert n == math.ceil(closed)
    assert A.power_normal(p1, n, p0, a) >= pw > A.power_normal(p1, n - 1, p0, a)


@pytest.mark.parametrize(
    "p0,p1,a,pw", [(0.8, 0.83, 0.01, 0.8), (0.9, 0.95, 0.05, 0.9), (0.95, 0.99, 0.05, 0.8)]
)
def test_power_size_exact_by_brute_force(p0, p1, a, pw):
    upto = 3 * A.power_size_normal(p0, p1, a, pw) + 300
    n = np.arange(1, upto + 1)
    crit = stats.binom.isf(a, n, p0) + 1
    ok = stats.binom.sf(crit - 1, n, p1) >= pw
    assert A.power_size_exact(p0, p1, a, pw, rule="first") == n[ok].min()
    assert A.power_size_exact(p0, p1, a, pw) == n[~ok].max() + 1


# ---------------------------------------------------------------------------
# one class only: sensitivity and specificity
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "m,rho,g", [(100, 0.1, 0.95), (500, 0.3, 0.9), (1, 0.5, 0.5), (963, 0.05, 0.99)]
)
def test_class_sample_size_by_brute_force(m, rho, g):
    N = A.class_sample_size(m, rho, g)
    assert stats.binom.sf(m - 1, N, rho) >= g > stats.binom.sf(m - 1, N - 1, rho)


@pytest.mark.parametrize(("m", "n_tie"), [(1000, 1999), (10, 19), (2500, 4999)])
def test_class_sample_size_meets_an_exact_tie(m, n_tie):
    """P(Bin(2m - 1, 1/2) >= m) = 1/2 exactly (symmetry), checked in 60-digit arithmetic.

    In floating point the tail came out 0.4999... and the size one too large (issue 44).
    """
    import mpmath

    mpmath.mp.dps = 60
    tail = (
        mpmath.fsum(mpmath.binomial(n_tie, j) for j in range(m, n_tie + 1)) / mpmath.mpf(2) ** n_tie
    )
    assert tail == mpmath.mpf(1) / 2
    below = mpmath.fsum(mpmath.binomial(n_tie - 1, j) for j in range(m, n_tie)) / mpmath.mpf(2) ** (
        n_tie - 1
    )
    assert below < mpmath.mpf(1) / 2
    assert A.class_sample_size(m, 0.5, 0.5) == n_tie


def test_class_sample_size_naive_answer_is_a_coin_flip():
    N = 1000
    assert stats.binom.sf(99, N, 0.1) == pytest.approx(0.5, abs=0.05)
    assert A.class_sample_size(100, 0.1, 0.95) > N


@pytest.mark.parametrize(
    "pi,n,k", [(0.8, 1000, 1.0), (0.8, 37, 1.0), (0.99, 500, 2.0), (0.5, 10, 1.5)]
)
def test_within_sd_probability_by_summing_the_pmf(pi, n, k):
    x = np.arange(n + 1)
    inside = np.abs(x / n - pi) <= k * math.sqrt(pi * (1 - pi) / n) + 1e-12
    assert A.within_sd_probability(pi, n, k) == pytest.approx(
        stats.binom.pmf(x[inside], n, pi).sum(), rel=1e-9
    )


def test_simulate_pass_rate_agrees_with_pass_probability():
    for test in ("exact", "normal"):
        p = A.pass_probability(0.84, 700, 0.8, 0.05, method=test)
        sim = A.simulate_pass_rate(0.84, 700, 0.8, 0.05, method=test, reps=40_000, seed=3)
        assert abs(sim - p) < 4.5 * math.sqrt(p * (1 - p) / 40_000)


# ---------------------------------------------------------------------------
# probabilities of hypotheses (mpmath quadrature)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("x,n,p0", [(830, 1000, 0.8), (415, 500, 0.8), (90, 100, 0.7)])
def test_bayes_null_probability_against_mpmath(x, n, p0):
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    lik = lambda p: mp.binomial(n, x) * p**x * (1 - p) ** (n - x)  # noqa: E731
    f0 = lik(mp.mpf(p0))
    mode, sd = x / n, (x / n * (1 - x / n) / n) ** 0.5
    cuts = sorted({p0, 1.0} | {min(max(mode + j * sd, p0), 1.0) for j in range(-8, 9)})
    m1 = mp.quad(lik, cuts) / (1 - mp.mpf(p0))
    want = float(f0 / (f0 + m1))
    assert A.bayes_null_probability(x, n, p0) == pytest.approx(want, rel=1e-8)
    w = 0.2
    want_w = float(w * f0 / (w * f0 + (1 - w) * m1))
    assert A.bayes_null_probability(x, n, p0, prior_null=w) == pytest.approx(want_w, rel=1e-8)


@pytest.mark.parametrize("x,n,p0", [(830, 1000, 0.8), (800, 1000, 0.8), (9, 10, 0.5)])
def test_posterior_above_against_mpmath(x, n, p0):
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    dens = lambda p: p**x * (1 - p) ** (n - x)  # noqa: E731
    mode, sd = x / n, (x / n * (1 - x / n) / n) ** 0.5
    cuts = sorted({0.0, p0, 1.0} | {min(max(mode + j * sd, 0.0), 1.0) for j in range(-8, 9)})
    parts = [mp.quad(dens, [lo, hi]) for lo, hi in zip(cuts[:-1], cuts[1:], strict=True)]
    above = sum(part for part, lo in zip(parts, cuts[:-1], strict=True) if lo >= p0)
    want = float(above / sum(parts))
    assert A.posterior_above(x, n, p0) == pytest.approx(want, rel=1e-8)


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: A.accept(1030, 1000, 0.8), "correct"),
        (lambda: A.accept(10, 0, 0.8), "n"),
        (lambda: A.accept(830, 1000, 1.2), "required"),
        (lambda: A.accept(830, 1000, 0.0), "required"),
        (lambda: A.accept(830, 1000, 0.8, alpha=1.5), "alpha"),
        (lambda: A.accept(830, [1000, 2000], 0.8), "n"),
        (lambda: A.safety_margin(0.8, 10.5), "n"),
        (lambda: A.normal_margin_size(0.8, -0.01), "margin"),
        (lambda: A.normal_margin_size(0.99, 0.02), "margin"),
        (lambda: A.exact_margin_size(0.5, 0.0001), "margin"),
        (lambda: A.power_size_exact(0.5, 0.5001), "true_accuracy"),
        (lambda: A.exact_margin_size(0.8, 0.03, rule="middle"), "rule"),
        (lambda: A.critical_count(10, 0.8, method="t"), "method"),
        (lambda: A.power_size_normal(0.8, 0.79), "true_accuracy"),
        (lambda: A.power_size_exact(0.8, 0.85, power=1.0), "power"),
        (lambda: A.pass_probability(1.1, 10, 0.8), "true_accuracy"),
        (lambda: A.class_sample_size(100, 0.0), "prevalence"),
        (lambda: A.p_value_exact(5, 3, 0.5), "correct"),
        (lambda: A.bayes_null_probability(5, 10, 0.5, prior_null=1.0), "prior_null"),
        (lambda: A.posterior_above(5, 10, 0.5, prior=(0, 1)), "prior"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ----------------------------------------------------------------- huge n (issue 19)
def test_critical_count_at_large_n_matches_scipy():
    n, p0, alpha = 10**9, 0.9, 0.05
    c = A.critical_count(n, p0, alpha)
    assert stats.binom.sf(c - 1, n, p0) <= alpha < stats.binom.sf(c - 2, n, p0)


@pytest.mark.parametrize("n", [10**15, 10**18, 2**63 - 1])
def test_critical_count_accept_and_power_answer_at_once_at_huge_n(n):
    import time

    start = time.process_time()
    c = A.critical_count(n, 0.9, 0.05)
    z = (c - n * 0.9) / math.sqrt(n * 0.09)
    assert z == pytest.approx(stats.norm.isf(0.05), abs=1e-4)
    res = A.accept(int(0.9 * n), n, 0.9)
    assert not res.passes_exact and 0 < res.p_value_exact < 1
    assert 0 <= A.pass_probability(0.9 + 1e-9, n, 0.9) <= 1
    assert time.process_time() - start < 10  # the walk from the normal guess used to hang


def test_class_sample_size_brute_force_and_huge_inputs():
    for n_class, rho, g in [(10, 0.05, 0.95), (37, 0.3, 0.8), (1, 0.5, 0.99)]:
        got = A.class_sample_size(n_class, rho, g)
        assert (
            stats.binom.sf(n_class - 1, got, rho) >= g > stats.binom.sf(n_class - 1, got - 1, rho)
        )
    big = A.class_sample_size(10**12, 0.01, 0.95)
    assert stats.binom.sf(10**12 - 1, big, 0.01) >= 0.95
    with pytest.raises(ValueError, match="^the size exceeds 2"):
        A.class_sample_size(10**17, 0.01, 0.95)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: A.exact_margin_size(0.8, 1e-12, 0.05), "margin"),
        (lambda: A.normal_margin_size(0.8, 1e-12, 0.05), "the size exceeds"),
        (lambda: A.power_size_normal(0.8, 0.8 + 1e-12), "the size exceeds"),
        (lambda: A.power_size_exact(0.8, 0.8 + 1e-9), "true_accuracy"),
        (lambda: A.accept([830], 1000, 0.8), "correct"),
        (lambda: A.accept(830, 1000, 0.8, alpha=[0.05]), "alpha"),
        (lambda: A.critical_count(10, 0.8, method="bogus"), "method"),
        (lambda: A.simulate_pass_rate(0.9, 100, 0.8, reps=10**12), "reps"),
    ],
)
def test_refusals_name_the_argument(call, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        call()


def test_old_names_warn_and_agree_with_the_new_ones():
    with pytest.warns(DeprecationWarning, match="acceptance.normal_size is deprecated"):
        assert A.normal_size(0.95, 0.02, 0.05) == A.normal_margin_size(0.95, 0.02, 0.05)
    with pytest.warns(DeprecationWarning, match="exact_size is deprecated"):
        assert A.exact_size(0.95, 0.02, 0.05, rule="first") == 260
    with pytest.warns(DeprecationWarning, match="'test' is deprecated"):
        assert A.critical_count(500, 0.8, 0.01, test="normal") == A.critical_count(
            500, 0.8, 0.01, method="normal"
        )
    with pytest.warns(DeprecationWarning, match="prior_a and prior_b are deprecated"):
        old = A.posterior_above(90, 100, 0.85, prior_a=0.5, prior_b=0.5)
    assert old == A.posterior_above(90, 100, 0.85, prior="jeffreys")
    with pytest.warns(DeprecationWarning, match="deprecated"):
        assert A.posterior_above(90, 100, 0.85, 2, 3) == A.posterior_above(
            90, 100, 0.85, prior=(2, 3)
        )
    # the posterior probability is the Beta tail: scipy as the reference
    assert A.posterior_above(90, 100, 0.85, prior=(2, 3)) == pytest.approx(
        stats.beta.sf(0.85, 92, 13), rel=1e-12
    )
    # the sizing module's normal_size is a different quantity and keeps its name
    from heldout.accuracy.sizing import normal_size

    assert normal_size(0.95 * 0.05, 0.02, 0.05) == math.ceil(
        1.959963984540054**2 * 0.95 * 0.05 / 0.02**2
    )
