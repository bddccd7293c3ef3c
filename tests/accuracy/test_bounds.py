"""Tests for heldout.accuracy.bounds against independent computations.

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

from heldout.accuracy import bounds as b

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
    with pytest.raises(ValueError, match="^method"):
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
        low, high = b.interval(k, m, alpha=1 - level, method=method, clip=method == "normal")
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
        (lambda: b.exact_upper(1, 0, 0.05), "n"),
        (lambda: b.exact_upper(1, 3.2, 0.05), "n"),
        (lambda: b.exact_upper(1, 3, 0.0), "alpha"),
        (lambda: b.exact_upper(1, 3, 1.0), "alpha"),
        (lambda: b.kl_upper(1, 3, 1.5), "alpha"),
        (lambda: b.hoeffding_upper(1, 3, -0.1), "alpha"),
        (lambda: b.occam_upper(4, 3, 0.1), "k"),
        (lambda: b.normal_upper(1, 3, 0.05, z=-1), "z"),
        (lambda: b.normal_upper(1, 3, None), "alpha"),
        (lambda: b.binomial_tail(1, 3, 1.2), "p"),
        (lambda: b.interval(1, 3, alpha=0.0), "alpha"),
        (lambda: b.interval(1, 3, method="agresti"), "method"),
        (lambda: b.upper_bound(1, 3, 0.05, method="bogus"), "method"),
        (lambda: b.coverage(0.5, 0, 0.05), "n"),
        (lambda: b.exact_upper("many", 3, 0.05), "k"),
        # counts of 2**63 or more used to wrap around to -2**63 (issue 19)
        (lambda: b.exact_upper(1e300, 10, 0.05), "k"),
        (lambda: b.exact_upper(2**63, 2**63, 0.05), "k"),
        (lambda: b.kl_upper(3, 2**64, 0.05), "n"),
        (lambda: b.exact_upper(3, 1e19, 0.05), "n"),
        (lambda: b.interval(11, 10), "k"),
        (lambda: b.exact_upper([], [], 0.05), "k"),
        (lambda: b.exact_upper([1, 2], [3, 4, 5], 0.05), "k"),
        (lambda: b.exact_upper(None, 3, 0.05), "k"),
        (lambda: b.exact_upper(1, 3, [0.1, np.nan]), "alpha"),
        (lambda: b.exact_upper(1, 3, 0.05 + 0j), "alpha"),
        (lambda: b.coverage(0.5, [10, 20]), "n"),
        (lambda: b.coverage(0.5, 10**9), "n"),
        (lambda: b.appendix_c_bound([3], 10), "k"),
        (lambda: b.appendix_c_bound(3, 10**5, fixed=True), "n"),
        (lambda: b.normal_upper(1, 3, ddof=2), "ddof"),
        (lambda: b.hoeffding_upper(1, 3, clip="yes"), "clip"),
        (lambda: b.chernoff_tail(1, 3, 0.5, method="exact"), "method"),
    ],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


def test_errors_of_the_article_program_are_value_errors_too():
    with pytest.raises(ValueError, match=r"^list index out of range \(n=1000: the article's"):
        b.appendix_c_bound(260, 1000, 0.05)


# ----------------------------------------------------------------- 40-digit grid (issue 19)
def _reference_rows():
    import csv
    from pathlib import Path

    path = Path(__file__).parents[1] / "data" / "exact_bound_reference.csv"
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    side = np.array([r["side"] for r in rows])
    m = np.array([int(r["m"]) for r in rows])
    k = np.array([int(r["k"]) for r in rows])
    delta = np.array([float(r["delta"]) for r in rows])
    root = [mp.mpf(r["root"]) for r in rows]
    return side, m, k, delta, root


def test_exact_bounds_match_the_40_digit_grid():
    """Every a = 1..2000 at m = 1e8 and 1e9 (where SciPy's inverse fails) and 400 random cases.

    References: tests/data/exact_bound_reference.csv, written by
    tests/data/make_exact_bound_reference.py (exact integer binomial sums, Newton's method
    in mpmath; no SciPy).
    """
    side, m, k, delta, root = _reference_rows()
    assert side.size == 8400 and set(np.unique(m[:8000])) == {10**8, 10**9}
    upper = side == "upper"
    got = np.where(upper, b.exact_upper(k, m, delta), b.exact_lower(k, m, delta))
    ref = np.array([float(r) for r in root])
    rel = np.abs(got / ref - 1)
    assert rel.max() <= 1e-12, (rel.max(), int(rel.argmax()))
    # the guard matters: SciPy's inverse alone is grossly wrong somewhere on this grid
    from scipy import special

    a_low = np.maximum(k, 1).astype(float)
    raw = np.where(
        upper,
        special.betainccinv(k + 1.0, (m - k).astype(float), delta),
        special.betaincinv(a_low, (m - k + 1).astype(float), delta),
    )
    assert np.nanmax(np.abs(raw / ref - 1)) > 0.5


def test_reference_grid_spot_check():
    """A few rows of the stored grid recomputed from scratch by its generator (30 digits)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "data" / "make_exact_bound_reference.py"
    spec = importlib.util.spec_from_file_location("make_exact_bound_reference", path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    side, m, k, delta, root = _reference_rows()
    with mp.workdps(60):
        for i in (0, 1, 1998, 1999, 5999, 8100, 8399):
            again = gen.root(str(side[i]), int(m[i]), int(k[i]), float(delta[i]), 0.5 / m[i])
            assert abs(again / root[i] - 1) < mp.mpf("1e-28"), i


@pytest.mark.parametrize("m", [10**8, 10**9])
def test_exact_bounds_are_monotone_in_k_at_huge_m(m):
    k = np.arange(0, 2001)
    upper = b.exact_upper(k, m, 0.05)
    lower = b.exact_lower(k, m, 0.05)
    assert np.all(np.diff(upper) > 0) and np.all(np.diff(lower) > 0)
    assert np.all(lower <= k / m) and np.all(k / m <= upper)
    assert np.all(lower[1:] < upper[:-1] + 1)  # no crossing: lower(k) < upper(k)
    assert np.all(lower < upper)


def test_audit_case_is_ordered():
    """``heldout bound --errors 1000 --n 1000000000`` printed a lower bound above the upper."""
    k, m = 1000, 10**9
    low, high = b.clopper_pearson(k, m, alpha=0.05)
    assert low < k / m < high
    assert b.exact_lower(k, m) < k / m < b.exact_upper(k, m)
    # two-sided 95 %: each tail at 2.5 %, checked against the exact integer binomial sum
    with mp.workdps(40):
        assert abs(_tail_sum_int(k, m, high) - mp.mpf("0.025")) < mp.mpf("1e-13")
        assert abs(1 - _tail_sum_int(k - 1, m, low) - mp.mpf("0.025")) < mp.mpf("1e-13")


def _tail_sum_int(k: int, m: int, p: float) -> mp.mpf:
    """P(X <= k) for X ~ Binomial(m, p) by the term ratio recurrence in mpmath (huge m)."""
    p = mp.mpf(p)
    term = (1 - p) ** m
    total = term
    for i in range(k):
        term = term * (m - i) / (i + 1) * p / (1 - p)
        total += term
    return total


@pytest.mark.parametrize("m", [10**9, 10**12, 10**15, 10**18])
@pytest.mark.parametrize("frac", [1e-9, 1e-4, 0.3])
def test_kl_bounds_are_on_the_safe_side(m, frac):
    """kl_lower never above its root, kl_upper never below, both within 1e-12 (40 digits)."""
    k = max(1, int(frac * m))

    def kl(p):
        return q * mp.log(q / p) + (1 - q) * mp.log((1 - q) / (1 - p))

    def bisect(a, c, rising):  # 200 halvings at 80 digits: the root to far below 1e-40
        for _ in range(200):
            mid = (a + c) / 2
            if (kl(mid) > budget) == rising:
                c = mid
            else:
                a = mid
        return (a + c) / 2

    with mp.workdps(80):
        q = mp.mpf(k) / m
        budget = mp.log(20) / m
        lo_root = bisect(mp.mpf(0) + q * mp.mpf("1e-30"), q, rising=False)
        hi_root = bisect(q, mp.mpf(1) - mp.mpf("1e-30"), rising=True)
    lo, hi = b.kl_lower(k, m, 0.05), b.kl_upper(k, m, 0.05)
    assert lo <= lo_root and lo >= float(lo_root) * (1 - 1e-12)
    assert hi >= hi_root and hi <= float(hi_root) * (1 + 1e-12)


@pytest.mark.parametrize("m", [10**9, 3 * 10**12, 10**18, 2**63 - 1])
def test_wilson_interval_in_floating_point_up_to_huge_m(m):
    """``4 m**2`` overflowed int64 above m = 1.5e9; reference: the formula in mpmath."""
    k = m // 3
    low, high = b.interval(k, m, alpha=0.05, method="wilson")
    with mp.workdps(50):
        z = mp.sqrt(2) * mp.erfinv(mp.mpf("0.95"))
        mm, ph = mp.mpf(m), mp.mpf(k) / m
        centre = (ph + z**2 / (2 * mm)) / (1 + z**2 / mm)
        half = z * mp.sqrt(ph * (1 - ph) / mm + z**2 / (4 * mm**2)) / (1 + z**2 / mm)
    assert low == pytest.approx(float(centre - half), rel=1e-12)
    assert high == pytest.approx(float(centre + half), rel=1e-12)
    assert low < k / m < high


def test_jeffreys_interval_is_checked_like_the_exact_bounds():
    from scipy import stats

    k, m = np.array([1, 5, 40, 999]), np.array([10, 100, 1000, 10**6])
    low, high = b.interval(k, m, alpha=0.1, method="jeffreys")
    assert np.allclose(low, stats.beta.ppf(0.05, k + 0.5, m - k + 0.5), rtol=1e-10)
    assert np.allclose(high, stats.beta.ppf(0.95, k + 0.5, m - k + 0.5), rtol=1e-10)


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
            sim = np.asarray(b.simulate_coverage(p, m, 0.05, method, reps=n_rep, seed=7))
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


# ----------------------------------------------------------------- score bounds (continuity)
def _score_root_mp(x, n, z, upper):
    """Independent: bisection in mpmath on (x - n p)^2 = z^2 n p (1 - p), on one side of x/n."""
    x, n, z = mp.mpf(x), mp.mpf(n), mp.mpf(z)
    lo, hi = (x / n, mp.mpf(1)) if upper else (mp.mpf(0), x / n)
    for _ in range(200):
        mid = (lo + hi) / 2
        outside = (x - n * mid) ** 2 > z * z * n * mid * (1 - mid)
        if upper:
            lo, hi = (lo, mid) if outside else (mid, hi)
        else:
            lo, hi = (mid, hi) if outside else (lo, mid)
    return float((lo + hi) / 2)


@pytest.mark.parametrize(
    ("k", "m"), [(0, 10), (1, 10), (38, 100), (99, 100), (100, 100), (7, 10**9)]
)
@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_continuity_corrected_score_bounds_match_mpmath(k, m, alpha):
    mp.mp.dps = 40
    z1 = mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf(alpha))  # Phi^-1(1 - alpha)
    z2 = mp.sqrt(2) * mp.erfinv(1 - mp.mpf(alpha))  # Phi^-1(1 - alpha / 2)
    for continuity in (False, True):
        x = k + (0.5 if continuity else 0.0)
        ref = 1.0 if k == m else _score_root_mp(x, m, z1, upper=True)
        got = b.score_upper(k, m, alpha, continuity=continuity)
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-15), (k, m, continuity)
    low, high = b.interval(k, m, alpha=alpha, method="wilson-cc")
    ref_low = 0.0 if k == 0 else _score_root_mp(k - 0.5, m, z2, upper=False)
    ref_high = 1.0 if k == m else _score_root_mp(k + 0.5, m, z2, upper=True)
    assert low == pytest.approx(ref_low, rel=1e-12, abs=1e-15)
    assert high == pytest.approx(ref_high, rel=1e-12, abs=1e-15)
    # the upper end is the one-sided corrected bound at alpha / 2
    assert high == pytest.approx(b.score_upper(k, m, alpha / 2, continuity=True), rel=1e-13)


def test_continuity_corrected_wilson_matches_newcombes_formula():
    """Newcombe (1998), method 4, in its own closed form (a second, independent formula)."""
    z = 1.959963984540054
    for k, m in [(81, 263), (15, 148), (0, 20), (1, 29), (29, 29)]:
        p = k / m
        low = (
            2 * m * p + z**2 - 1 - z * math.sqrt(z**2 - 2 - 1 / m + 4 * p * (m * (1 - p) + 1))
        ) / (2 * (m + z**2))
        high = (
            2 * m * p + z**2 + 1 + z * math.sqrt(z**2 + 2 - 1 / m + 4 * p * (m * (1 - p) - 1))
        ) / (2 * (m + z**2))
        got = b.interval(k, m, method="wilson-cc")
        assert got.low == pytest.approx(0.0 if k == 0 else low, abs=1e-12)
        assert got.high == pytest.approx(1.0 if k == m else high, abs=1e-12)


def test_score_bounds_are_wider_with_the_correction_and_close_to_exact():
    k, m = np.arange(0, 101), 100
    plain = b.score_upper(k, m, 0.05)
    corrected = b.score_upper(k, m, 0.05, continuity=True)
    assert np.all(corrected >= plain) and np.all(np.diff(corrected) >= 0)
    exact = b.exact_upper(k, m, 0.05)
    assert np.max(np.abs(corrected - exact)[5:95]) < 0.01  # "close to the exact bound"
    w, wcc = b.interval(k, m, method="wilson"), b.interval(k, m, method="wilson-cc")
    assert np.all(wcc.low <= w.low + 1e-15) and np.all(wcc.high >= w.high - 1e-15)


def test_old_names_of_the_bounds_still_work_with_a_warning():
    with pytest.warns(DeprecationWarning, match="'delta' is deprecated"):
        assert b.exact_upper(38, 100, delta=0.1) == b.exact_upper(38, 100, 0.1)
    with pytest.warns(DeprecationWarning, match="'m' is deprecated"):
        assert b.kl_upper(k=38, m=100) == b.kl_upper(38, 100)
    with pytest.warns(DeprecationWarning, match="positional argument"):
        old = b.interval(38, 100, 0.9, "wilson")
    assert tuple(old) == tuple(b.interval(38, 100, alpha=0.1, method="wilson"))
    with pytest.warns(DeprecationWarning, match="'level' is deprecated"):
        assert (
            b.clopper_pearson(38, 100, level=0.9).high == b.clopper_pearson(38, 100, alpha=0.1).high
        )
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="^level"):
        b.interval(38, 100, level=1.5)
    with pytest.raises(ValueError, match="both delta"):
        b.exact_upper(38, 100, delta=0.1, alpha=0.1)
    with pytest.warns(DeprecationWarning, match="'n_rep' is deprecated"):
        b.simulate_coverage(0.1, 10, n_rep=10, seed=1)
