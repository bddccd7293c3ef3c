"""Tests for heldout.bounds against independent computations.

References used: mpmath at 40 digits (direct binomial sums, the regularised
incomplete beta function, closed forms), statsmodels' proportion_confint,
explicit 0/1 loss vectors, brute-force simulation with stated tolerances.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from heldout import bounds as b

mp.mp.dps = 40


# ----------------------------------------------------------------- mpmath references
def _tail_sum(k: int, m: int, p) -> mp.mpf:
    """P(X <= k) by summing the binomial probabilities term by term (small k)."""
    p = mp.mpf(p)
    return mp.fsum(mp.binomial(m, i) * p**i * (1 - p) ** (m - i) for i in range(k + 1))


def _tail_beta(k: int, m: int, p) -> mp.mpf:
    """P(X <= k) = 1 - I_p(k + 1, m - k), via mpmath's incomplete beta."""
    return mp.betainc(k + 1, m - k, mp.mpf(p), 1, regularized=True)


def _mp_root(k: int, m: int, delta: str, start: float, tail) -> mp.mpf:
    """Newton iterations in 40-digit arithmetic for Bin(m, k, p) = delta."""
    p, d = mp.mpf(start), mp.mpf(delta)
    for _ in range(4):
        f = tail(k, m, p) - d
        fprime = -m * mp.binomial(m - 1, k) * p**k * (1 - p) ** (m - k - 1)
        p = p - f / fprime
    return p


# (k, m, reference tail); includes k = 0, k = m - 1, tiny and huge m
EXACT_GRID = [
    (0, 1, _tail_beta),
    (0, 7, _tail_sum),
    (1, 2, _tail_beta),
    (3, 10, _tail_sum),
    (38, 100, _tail_sum),
    (99, 100, _tail_beta),
    (7, 9, _tail_beta),
    (2, 10_000, _tail_sum),
    (100, 100_000, _tail_beta),
    (3, 1_000_000, _tail_sum),
    (5, 10**9, _tail_sum),
    (30, 10**9, _tail_sum),
    (150, 10**8, _tail_sum),  # polished branch (k < 200, m - k > 1e4)
    (300, 10**7, _tail_sum),  # unpolished branch with huge m - k
    (10**9 - 3, 10**9, _tail_beta),
    (10**9 - 1, 10**9, _tail_beta),
]


@pytest.mark.parametrize(("k", "m", "tail"), EXACT_GRID)
@pytest.mark.parametrize("delta", ["0.05", "1e-6", "0.5"])
def test_exact_upper_matches_mpmath(k, m, tail, delta):
    u = b.exact_upper(k, m, float(delta))
    assert isinstance(u, float)
    r = _mp_root(k, m, delta, u, tail)
    # relative error in p for small bounds, in 1 - p for bounds near 1 (float spacing)
    rtol = 1e-13 if m <= 10**6 else 1e-11
    err = min(abs((u - r) / r), abs((u - r) / (1 - r))) if r < 1 else abs(u - r)
    assert float(err) < rtol or abs(u - float(r)) <= 4 * np.spacing(float(r))


@pytest.mark.parametrize(
    ("k", "m", "tail"),
    [(0, 5, _tail_sum), (4, 20, _tail_sum), (38, 100, _tail_beta), (1, 10**9, _tail_sum)],
)
def test_exact_lower_matches_mpmath(k, m, tail):
    # the lower bound q solves P_q(X >= k) = delta, i.e. Bin(m, k - 1, q) = 1 - delta
    low = b.exact_lower(k, m, 0.05)
    if k == 0:
        assert low == 0.0
        return
    q = _mp_root(k - 1, m, "0.95", low, tail)
    assert abs(low - float(q)) <= 1e-12 * float(q)


def test_closed_forms_at_the_edges():
    m = np.array([1, 2, 10, 1000, 10**9])
    d = 0.05
    np.testing.assert_allclose(b.exact_upper(0, m, d), 1 - d ** (1 / m.astype(float)), rtol=1e-6)
    np.testing.assert_array_equal(b.exact_upper(m, m, d), 1.0)
    np.testing.assert_array_equal(b.exact_lower(0, m, d), 0.0)
    # P(X >= m) = p^m = delta  ->  p = delta^(1/m)
    for mm in (1, 2, 10, 1000):
        assert b.exact_lower(mm, mm, d) == pytest.approx(
            float(mp.mpf(d) ** (mp.mpf(1) / mm)), rel=1e-14
        )


def test_binomial_tail_matches_mpmath_sum():
    for k, m, p in [
        (0, 1, 0.3),
        (0, 50, 0.01),
        (38, 100, 0.4567),
        (12, 12, 0.9),
        (5, 12, 0.7),
        (3, 10**6, 2e-6),
    ]:
        got = b.binomial_tail(k, m, p)
        ref = float(_tail_sum(k, m, p))
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-300)
    assert b.binomial_tail(3, 10, 0.0) == 1.0
    assert b.binomial_tail(3, 10, 1.0) == 0.0


def test_bound_solves_the_tail_equation_and_is_monotone():
    k, m = np.meshgrid(np.arange(0, 60, 7), [60, 200, 5000])
    u = b.exact_upper(k, m, 0.05)
    tail = b.binomial_tail(k, m, u)
    np.testing.assert_allclose(tail[k < m], 0.05, rtol=1e-10)
    assert np.all(np.diff(u, axis=1) > 0)  # more errors, higher bound
    assert np.all(np.diff(u, axis=0) < 0)  # same k, more data, lower bound
    assert np.all(
        b.exact_upper(10, 100, [0.5, 0.1, 0.01, 1e-6])
        == np.sort(b.exact_upper(10, 100, [0.5, 0.1, 0.01, 1e-6]))
    )


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 5000), frac=st.floats(0, 1), delta=st.floats(1e-8, 0.5))
def test_ordering_of_the_upper_bounds(m, frac, delta):
    k = int(round(frac * m))
    exact = b.exact_upper(k, m, delta)
    kl = b.kl_upper(k, m, delta)
    hoeff = b.hoeffding_upper(k, m, delta)
    occam = b.occam_upper(k, m, delta)
    assert k / m <= exact + 1e-15
    assert exact <= kl + 1e-12  # Chernoff: Bin(m,k,p) <= exp(-m KL(k/m||p))
    assert kl <= hoeff + 1e-12  # Pinsker: KL >= 2 (p - q)^2
    assert hoeff <= occam + 1e-15  # ln(m/delta) >= ln(1/delta)
    assert exact_lower_le(k, m, delta)
    assert b.kl_lower(k, m, delta) <= b.exact_lower(k, m, delta) + 1e-12
    # symmetry: a lower bound on errors is one minus an upper bound on successes
    assert b.exact_lower(k, m, delta) == pytest.approx(
        1 - b.exact_upper(m - k, m, delta), abs=1e-14
    )


def exact_lower_le(k, m, delta):
    return b.exact_lower(k, m, delta) <= k / m + 1e-15


def test_kl_upper_solves_the_kl_equation():
    for k, m in [(1, 10), (38, 100), (500, 1000), (3, 10**6), (999, 1000)]:
        u = b.kl_upper(k, m, 0.05)
        q = mp.mpf(k) / m
        kl = q * mp.log(q / u) + (1 - q) * mp.log((1 - q) / (1 - mp.mpf(u)))
        assert float(kl) == pytest.approx(math.log(20) / m, rel=1e-9)
        lo = b.kl_lower(k, m, 0.05)
        kl_lo = q * mp.log(q / lo) + (1 - q) * mp.log((1 - q) / (1 - mp.mpf(lo)))
        assert float(kl_lo) == pytest.approx(math.log(20) / m, rel=1e-9)
    # k = 0: KL(0 || p) = -ln(1 - p) = ln(1/delta)/m in closed form
    assert b.kl_upper(0, 40, 0.05) == pytest.approx(1 - 0.05 ** (1 / 40), rel=1e-14)
    assert b.kl_upper(40, 40, 0.05) == 1.0
    assert b.kl_divergence(0.38, 0.5) == pytest.approx(
        float(
            mp.mpf("0.38") * mp.log(mp.mpf("0.38") / mp.mpf("0.5"))
            + mp.mpf("0.62") * mp.log(mp.mpf("0.62") / mp.mpf("0.5"))
        )
    )


def test_relaxations_are_valid_bounds():
    # each relaxation U satisfies Bin(m, k, U) <= delta whenever U < 1
    k, m = np.meshgrid(np.arange(0, 100, 3), [100, 400])
    for f in (b.kl_upper, b.hoeffding_upper, b.occam_upper):
        u = np.asarray(f(k, m, 0.05))
        inside = u < 1
        assert np.all(b.binomial_tail(k[inside], m[inside], u[inside]) <= 0.05 * (1 + 1e-9))


def test_chernoff_tails_dominate_the_binomial_tail():
    # the article's intermediate bound (1/(1-r)) exp(-m KL) and the two Chernoff forms
    # must lie above the exact tail (mpmath sum) wherever p > k/m
    for k, m in [(0, 20), (3, 20), (38, 100), (90, 100)]:
        for p in np.linspace(k / m + 0.005, 0.995, 9):
            ref = float(_tail_sum(k, m, p))
            kl = b.chernoff_tail(k, m, p, "kl")
            assert ref <= kl * (1 + 1e-12)
            assert kl <= b.chernoff_tail(k, m, p, "hoeffding") * (1 + 1e-12)
            assert kl <= b.chernoff_tail(k, m, p, "article")
            q = k / m
            r = q * (1 - p) / (p * (1 - q))
            klv = (
                q * math.log(q / p) + (1 - q) * math.log((1 - q) / (1 - p))
                if k
                else -math.log(1 - p)
            )
            assert b.chernoff_tail(k, m, p, "article") == pytest.approx(
                math.exp(-m * klv) / (1 - r), rel=1e-12
            )
    assert b.chernoff_tail(50, 100, 0.3) == 1.0  # below k/m the bound is trivial
    # inverting the Chernoff forms at delta gives the relaxations
    u = b.kl_upper(38, 100, 0.05)
    assert b.chernoff_tail(38, 100, u, "kl") == pytest.approx(0.05, rel=1e-9)
    u = b.hoeffding_upper(38, 100, 0.05)
    assert b.chernoff_tail(38, 100, u, "hoeffding") == pytest.approx(0.05, rel=1e-12)
    with pytest.raises(ValueError, match="^form"):
        b.chernoff_tail(1, 2, 0.5, "bernstein")


def test_article_example_2_closed_forms():
    # independent arithmetic with math: 0.38 + sqrt(ln(2000)/200) and 0.38 + sqrt(ln 20/200)
    assert b.occam_upper(38, 100, 0.05) == pytest.approx(
        0.38 + math.sqrt(math.log(2000) / 200), rel=1e-15
    )
    assert b.hoeffding_upper(38, 100, 0.05) == pytest.approx(
        0.38 + math.sqrt(math.log(20) / 200), rel=1e-15
    )
    assert round(b.occam_upper(38, 100, 0.05), 4) == 0.5749
    assert round(b.hoeffding_upper(38, 100, 0.05), 4) == 0.5024
    assert b.hoeffding_upper(90, 100, 0.05, clip=True) == 1.0
    assert b.hoeffding_upper(90, 100, 0.05) > 1.0


def test_normal_rule_matches_explicit_losses():
    for k, m in [(38, 100), (1, 12), (0, 30), (29, 30)]:
        losses = np.r_[np.ones(k), np.zeros(m - k)]
        sd_mean = losses.std(ddof=1) / math.sqrt(m)
        assert b.two_sigma_upper(k, m) == pytest.approx(losses.mean() + 2 * sd_mean, abs=1e-15)
        z = 1.6448536269514722  # Phi^{-1}(0.95), from the normal table
        assert b.normal_upper(k, m, 0.05) == pytest.approx(
            losses.mean() + z * sd_mean, rel=1e-12, abs=1e-15
        )
        wald = losses.std(ddof=0) / math.sqrt(m)
        assert b.normal_lower(k, m, z=2.0, ddof=0) == pytest.approx(
            losses.mean() - 2 * wald, abs=1e-15
        )
    assert b.two_sigma_upper(1, 1) == 1.0


@pytest.mark.parametrize(
    ("method", "sm_method"),
    [
        ("clopper-pearson", "beta"),
        ("wilson", "wilson"),
        ("jeffreys", "jeffreys"),
        ("normal", "normal"),
    ],
)
def test_intervals_match_statsmodels(method, sm_method):
    k = np.array([0, 1, 5, 38, 50, 99, 100, 7, 0, 3])
    m = np.array([100, 100, 100, 100, 100, 100, 100, 12, 1, 3])
    for level in (0.95, 0.8):
        # statsmodels clips the normal (Wald) interval to [0, 1]
        low, high = b.interval(k, m, level=level, method=method, clip=method == "normal")
        ref_low, ref_high = proportion_confint(k, m, alpha=1 - level, method=sm_method)
        ref_low, ref_high = np.asarray(ref_low, dtype=float), np.asarray(ref_high, dtype=float)
        if method == "jeffreys":  # statsmodels does not pin the ends at k = 0 and k = m
            ref_low = np.where(k == 0, 0.0, ref_low)
            ref_high = np.where(k == m, 1.0, ref_high)
        if method == "wilson":
            ref_low, ref_high = np.clip(ref_low, 0, 1), np.clip(ref_high, 0, 1)
        np.testing.assert_allclose(low, ref_low, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(high, ref_high, rtol=1e-9, atol=1e-12)
    lo, hi = b.clopper_pearson(38, 100)
    assert lo == pytest.approx(b.exact_lower(38, 100, 0.025), rel=1e-13)
    assert hi == pytest.approx(b.exact_upper(38, 100, 0.025), rel=1e-13)
    assert isinstance(lo, float)


def test_normal_interval_leaves_unit_interval_unless_clipped():
    low, high = b.interval([1, 99], 100, method="normal")
    assert low[0] < 0 and high[1] > 1
    low, high = b.interval([1, 99], 100, method="normal", clip=True)
    assert low[0] == 0 and high[1] == 1


def test_broadcasting_and_scalar_return():
    out = b.exact_upper(np.arange(5)[:, None], np.array([10, 20, 30]), 0.05)
    assert out.shape == (5, 3)
    assert isinstance(b.kl_upper(3, 10, 0.1), float)
    assert b.exact_upper([3, 3], [10, 10], [0.05, 0.5]).shape == (2,)
    assert isinstance(b.binomial_tail(3, 10, 0.5), float)
    assert b.upper_bound(38, 100, 0.05, "kl") == b.kl_upper(38, 100, 0.05)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: b.exact_upper(5, 3, 0.05), "k"),
        (lambda: b.exact_upper(-1, 3, 0.05), "k"),
        (lambda: b.exact_upper(1.5, 3, 0.05), "k"),
        (lambda: b.exact_upper(1, 0, 0.05), "m"),
        (lambda: b.exact_upper(1, 3.2, 0.05), "m"),
        (lambda: b.exact_upper(1, 3, 0.0), "delta"),
        (lambda: b.exact_upper(1, 3, 1.0), "delta"),
        (lambda: b.kl_upper(1, 3, 1.5), "delta"),
        (lambda: b.hoeffding_upper(1, 3, -0.1), "delta"),
        (lambda: b.occam_upper(4, 3, 0.1), "k"),
        (lambda: b.normal_upper(1, 3, 0.05, z=-1), "z"),
        (lambda: b.normal_upper(1, 3, None), "delta"),
        (lambda: b.binomial_tail(1, 3, 1.2), "p"),
        (lambda: b.interval(1, 3, level=1.0), "level"),
        (lambda: b.interval(1, 3, method="agresti"), "method"),
        (lambda: b.upper_bound(1, 3, 0.05, method="bogus"), "method"),
        (lambda: b.coverage(0.5, 0, 0.05), "m"),
        (lambda: b.exact_upper("many", 3, 0.05), "k"),
    ],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


# ----------------------------------------------------------------- coverage
def test_exact_coverage_matches_brute_force_sum():
    # brute force: loop over outcomes with the pmf from mpmath
    p, m = 0.23, 40
    for method in ("exact", "normal", "hoeffding"):
        ref = mp.fsum(
            mp.binomial(m, k) * mp.mpf(p) ** k * (1 - mp.mpf(p)) ** (m - k)
            for k in range(m + 1)
            if p <= b.upper_bound(k, m, 0.05, method)
        )
        assert b.coverage(p, m, 0.05, method) == pytest.approx(float(ref), rel=1e-12)


def test_coverage_of_valid_bounds_and_failure_of_normal_rule():
    p = np.linspace(0.001, 0.999, 199)
    for m in (5, 30, 200):
        for method in ("exact", "kl", "hoeffding", "occam"):
            assert np.min(b.coverage(p, m, 0.05, method)) >= 0.95 - 1e-12, (m, method)
    # the normal rule promises 95% but fails badly for small error rates and small m
    assert b.coverage(0.01, 30, 0.05, "normal") < 0.5
    assert b.coverage(0.05, 30, 0.05, "two_sigma") < 0.9
    # and the exact bound is not wasteful: its coverage gets close to 1 - delta somewhere
    assert np.min(b.coverage(p, 200, 0.05, "exact")) < 0.96


def test_simulated_coverage_agrees_with_exact_coverage():
    # tolerance: 4.5 binomial standard errors of the simulated share (n_rep = 20000)
    n_rep = 20_000
    p = np.array([0.005, 0.05, 0.2, 0.5, 0.9])
    for m in (10, 100):
        for method in ("exact", "normal", "kl"):
            exact = np.asarray(b.coverage(p, m, 0.05, method))
            sim = np.asarray(b.simulate_coverage(p, m, 0.05, method, n_rep=n_rep, seed=7))
            se = np.sqrt(np.maximum(exact * (1 - exact), 1e-4) / n_rep)
            assert np.all(np.abs(sim - exact) <= 4.5 * se), (m, method, sim, exact)
            if method != "normal":
                assert np.all(sim >= 0.95 - 4.5 * np.sqrt(0.95 * 0.05 / n_rep))


# ----------------------------------------------------------------- the article's program
def test_appendix_c_program_reproduced():
    # the literal program sums i < k, so it returns the bound for k - 1 errors
    assert b.appendix_c_bound(38, 100, 0.05) == pytest.approx(
        b.exact_upper(37, 100, 0.05), abs=1e-14
    )
    assert (
        math.floor(b.appendix_c_bound(38, 100, 0.05) * 1e4) / 1e4 == 0.4565
    )  # the article's value, truncated
    assert b.appendix_c_bound(38, 100, 0.05, fixed=True) == pytest.approx(
        b.exact_upper(38, 100, 0.05), abs=1e-14
    )
    assert b.appendix_c_bound(0, 10, 0.05) == 0.0
    # the factorial table stops at 149!, so the article's own call cannot run
    with pytest.raises(IndexError):
        b.appendix_c_bound(260, 1000, 0.05)
    assert b.appendix_c_bound(260, 1000, 0.05, fixed=True) == pytest.approx(
        b.exact_upper(260, 1000, 0.05), abs=1e-13
    )
