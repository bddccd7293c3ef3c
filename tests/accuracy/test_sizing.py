"""heldout.accuracy.sizing against closed forms (mpmath), brute-force searches and simulation."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import samplesize_confint_proportion

from heldout.accuracy.deviation import lattice_deviation_probability, simulate_deviation
from heldout.accuracy.sizing import (
    bernstein_size,
    binomial_deviation_probability,
    binomial_size,
    empirical_bernstein_radius,
    empirical_bernstein_size,
    hoeffding_bound,
    hoeffding_size,
    hoeffding_tolerance,
    normal_size,
)

mpmath.mp.dps = 40


# ----------------------------------------------------------------- Hoeffding


def _hoeffding_mp(u, t, eps) -> int:
    """Smallest k with 2 exp(-2 k t^2 / U^2) <= eps, in 40-digit arithmetic."""
    u, t, eps = (mpmath.mpf(str(v)) for v in (u, t, eps))
    k = int(mpmath.ceil(mpmath.log(2 / eps) * u**2 / (2 * t**2)))
    assert 2 * mpmath.exp(-2 * k * t**2 / u**2) <= eps
    assert k == 1 or 2 * mpmath.exp(-2 * (k - 1) * t**2 / u**2) > eps
    return max(k, 1)


def test_article_worked_example():
    # The article: U = 14, t = 1/10, epsilon = 0.05 gives k >= 36152.
    assert hoeffding_size(14, 0.1, 0.05) == _hoeffding_mp(14, "0.1", "0.05") == 36152
    # With the exact range of the mu = 1/100 collar, U = -2 log2(0.01) = 13.2877...
    u = -2 * mpmath.log(mpmath.mpf("0.01"), 2)
    k = int(mpmath.ceil(mpmath.log(40) * u**2 / (2 * mpmath.mpf("0.01"))))
    assert hoeffding_size(-2 * math.log2(0.01), 0.1, 0.05) == k
    assert k < 36152


@settings(max_examples=80, deadline=None)
@given(
    u=st.floats(0.1, 50),
    t=st.floats(0.001, 1),
    eps=st.floats(1e-6, 0.99),
)
def test_hoeffding_size_is_the_smallest_integer(u, t, eps):
    assert hoeffding_size(u, t, eps) == _hoeffding_mp(u, t, eps)


def test_hoeffding_size_exact_for_huge_sizes():
    # sizes of 1e8-1e9 rows whose exact quotient lies only ~1e-4 above an integer:
    # floating-point slack must not swallow that fraction (a bug found by the benchmark)
    t = np.geomspace(0.001, 0.003, 40)
    eps = np.geomspace(1e-6, 1e-4, 25)[:, None]
    got = hoeffding_size(13.29, t, eps)
    u = mpmath.mpf(13.29)
    raws = [
        [mpmath.log(2 / mpmath.mpf(e)) * u**2 / (2 * mpmath.mpf(x) ** 2) for x in t]
        for e in eps[:, 0]
    ]
    want = np.array([[int(mpmath.ceil(r)) for r in row] for row in raws])
    np.testing.assert_array_equal(got, want)
    # the grid does contain a quotient within a relative 1e-12 above an integer
    assert any(0 < r - mpmath.floor(r) < 1e-12 * r for row in raws for r in row)


def test_hoeffding_vectorised_and_inverse():
    u = np.array([1.0, 14.0, 13.28])
    k = hoeffding_size(u, 0.1, [[0.05], [0.01]])
    assert k.shape == (2, 3)
    assert k[0, 1] == 36152
    # bound at the size meets the target; one row fewer does not
    assert np.all(hoeffding_bound(k, u, 0.1) <= np.array([[0.05], [0.01]]))
    assert np.all(hoeffding_bound(k - 1, u, 0.1) > np.array([[0.05], [0.01]]))
    # the tolerance promised by k rows is at most t, and about t
    t_back = hoeffding_tolerance(k, u, np.array([[0.05], [0.01]]))
    assert np.all(t_back <= 0.1) and np.allclose(t_back, 0.1, rtol=1e-2)


def test_one_over_epsilon_would_be_the_one_sided_size():
    # ln(1/eps) (one-sided) vs ln(2/eps) (two-sided): the one-sided size is the two-sided size at 2 eps
    one_sided = math.ceil(math.log(1 / 0.05) * 14**2 / (2 * 0.1**2))
    assert hoeffding_size(14, 0.1, 0.1) == one_sided


# ----------------------------------------------------------------- Bernstein


def _bernstein_bruteforce(var, u, t, eps):
    n = np.arange(1, 2_000_000)
    bound = 2 * np.exp(-n * t**2 / (2 * var + 2 * u * t / 3))
    return int(n[np.argmax(bound <= eps)])


@pytest.mark.parametrize(
    ("var", "u", "t", "eps"), [(2.5, 13.29, 0.1, 0.05), (0.09, 1, 0.02, 0.05), (0, 1, 0.1, 0.2)]
)
def test_bernstein_size_matches_bruteforce(var, u, t, eps):
    assert bernstein_size(var, u, t, eps) == _bernstein_bruteforce(var, u, t, eps)


def test_bernstein_against_hoeffding():
    # small variance: much smaller; the largest possible variance U^2/4: slightly larger
    assert bernstein_size(1.0, 14, 0.1, 0.05) < hoeffding_size(14, 0.1, 0.05) / 10
    assert bernstein_size(14**2 / 4, 14, 0.1, 0.05) > hoeffding_size(14, 0.1, 0.05)


def test_empirical_bernstein_size_matches_linear_scan():
    for var, u, t, eps in [
        (2.5, 13.29, 0.1, 0.05),
        (0.09, 1, 0.02, 0.05),
        (0.0, 1, 0.05, 0.01),
        (0.25, 1, 0.3, 0.5),
    ]:
        n = np.arange(2, 3_000_000)
        radius = np.sqrt(2 * var * math.log(4 / eps) / n) + 7 * u * math.log(4 / eps) / (
            3 * (n - 1)
        )
        want = int(n[np.argmax(radius <= t)])
        got = empirical_bernstein_size(var, u, t, eps)
        assert got == want
        assert (
            empirical_bernstein_radius(got, var, u, eps)
            <= t
            < empirical_bernstein_radius(got - 1, var, u, eps)
        )
    sizes = empirical_bernstein_size([0.5, 1.0, 2.0], 13.29, 0.1, 0.05)
    assert np.all(np.diff(sizes) > 0)


# ----------------------------------------------------------------- normal


def test_normal_size_against_statsmodels():
    for p, t, eps in [(0.1, 0.02, 0.05), (0.5, 0.05, 0.01), (0.3, 0.01, 0.1)]:
        want = math.ceil(samplesize_confint_proportion(p, t, alpha=eps))
        assert normal_size(p * (1 - p), t, eps) == want


# ----------------------------------------------------------------- binomial, exact


def _binomial_exact(m, p, t) -> Fraction:
    """P(|K/m - p| > t) summed term by term in rational arithmetic."""
    p, t = Fraction(p), Fraction(t)
    return sum(
        (
            math.comb(m, k) * p**k * (1 - p) ** (m - k)
            for k in range(m + 1)
            if abs(Fraction(k, m) - p) > t
        ),
        Fraction(0),
    )


@pytest.mark.parametrize(
    ("m", "p", "t"),
    [
        (10, "0.5", "0.1"),
        (10, "0.3", "0.1"),
        (37, "0.05", "0.02"),
        (60, "0.2", "0.05"),
        (1, "0.5", "0.5"),
    ],
)
def test_binomial_probability_matches_rational_sum(m, p, t):
    got = binomial_deviation_probability(m, float(p), float(t))
    assert got == pytest.approx(
        float(_binomial_exact(m, Fraction(p), Fraction(t))), rel=1e-10, abs=1e-15
    )


def test_binomial_size_for_a_stated_p_matches_bruteforce():
    t, eps, p = Fraction("0.2"), Fraction("0.1"), Fraction("0.3")
    m_h = hoeffding_size(1, 0.2, 0.1)
    ok = [_binomial_exact(m, p, t) <= eps for m in range(1, m_h + 1)]
    stable = max(i for i, good in enumerate(ok) if not good) + 2
    first = ok.index(True) + 1
    assert binomial_size(0.2, 0.1, 0.3) == stable
    assert binomial_size(0.2, 0.1, 0.3, rule="first") == first
    assert first <= stable <= m_h


def _brute_sup(m: int, t: Fraction, eps: float, grid: int) -> float:
    """sup over p of P(|K/m - p| > t) by brute force: a dense grid of p in [0, 1] plus the
    points 1e-12 on either side of every p where m (p +- t) is a whole number; the
    probabilities are plain sums of C(m, k) p^k (1 - p)^(m - k) in floating point and the
    thresholds exact rationals."""
    eta = Fraction(1, 10**12)
    ps = {Fraction(i, grid) for i in range(grid + 1)}
    for j in range(-m, 2 * m + 1):
        for edge in (Fraction(j, m) - t, Fraction(j, m) + t):
            for q in (edge - eta, edge, edge + eta):
                if 0 <= q <= 1:
                    ps.add(q)
    ps = sorted(ps)
    k = np.arange(m + 1)
    comb = np.array([math.comb(m, i) for i in k], dtype=float)
    # |k/m - p| > t  <=>  k >= floor(m (p + t)) + 1  or  k <= ceil(m (p - t)) - 1, exactly
    up = np.array([math.floor(m * (q + t)) + 1 for q in ps])[:, None]
    down = np.array([math.ceil(m * (q - t)) - 1 for q in ps])[:, None]
    far = (k >= up) | (k <= down)
    pf = np.array([float(q) for q in ps])[:, None]
    pmf = comb * pf**k * (1 - pf) ** (m - k)
    return float(np.max(np.sum(pmf * far, axis=1)))


@pytest.mark.parametrize(("t", "eps", "grid"), [("0.2", 0.1, 2000), ("0.1", 0.05, 400)])
def test_binomial_worst_case_matches_bruteforce_over_p(t, eps, grid):
    """The worst case is the supremum over every p, never one row short (issue 19).

    The former grid of 201 values of p missed the supremum: at t = 0.02, eps = 0.05 its
    stable size was 2424 rows, one short of the true 2425.
    """
    m_h = hoeffding_size(1, float(t), eps)
    sup = np.array([_brute_sup(m, Fraction(t), eps, grid) for m in range(1, m_h + 1)])
    failing = np.flatnonzero(sup > eps) + 1
    stable = int(failing[-1]) + 1
    first = int(np.flatnonzero(sup <= eps)[0]) + 1
    assert binomial_size(float(t), eps) == stable
    assert binomial_size(float(t), eps, rule="first") == first
    assert binomial_size(float(t), eps) >= binomial_size(float(t), eps, 0.5)


def test_the_grid_worst_case_was_one_row_short():
    """At t = 0.02, eps = 0.05 the former 201-point grid of p gave 2424 rows; 2424 fails.

    Witness, independent of heldout: scipy.stats.binom at every left limit
    p = j/m - t (where P(K > m (p + t)) jumps down) finds a p with P > eps at m = 2424.
    """
    m, t = 2424, 0.02
    j = np.arange(math.floor(m * t) + 1, math.floor(m * (0.5 + t)) + 1)
    pj = j / m - t
    c = math.floor(2 * m * t + 1e-9) + 1  # P(K <= j - c) is the lower part of the left limit
    left = stats.binom.sf(j - 1, m, pj) + stats.binom.cdf(j - c, m, pj)
    assert left.max() > 0.05
    assert binomial_size(0.02, 0.05) == 2425


def test_binomial_size_at_tiny_tolerance_answers_or_refuses_quickly():
    """``heldout size binomial --tolerance 0.0001`` ran for minutes (issue 19)."""
    import time

    start = time.process_time()
    n = binomial_size(1e-4, 0.05, 0.1)
    first = binomial_size(1e-4, 0.05, 0.1, rule="first")
    with pytest.raises(ValueError, match=r"^tolerance=0\.0001, alpha=0\.05 \(worst case"):
        binomial_size(1e-4, 0.05)
    assert time.process_time() - start < 30  # a hang guard, not a benchmark

    # independent check near the answers with scipy.stats.binom
    def dev(m):
        m = np.asarray(m)
        return stats.binom.sf(np.floor(m * 0.1001 + 1e-6), m, 0.1) + stats.binom.cdf(
            np.ceil(m * 0.0999 - 1e-6) - 1, m, 0.1
        )

    assert dev(n - 1) > 0.05 and np.all(dev(np.arange(n, n + 3000)) <= 0.05)
    assert dev(first) <= 0.05 and np.all(dev(np.arange(first - 3000, first)) > 0.05)


def test_sizes_that_overflow_are_refused():
    with pytest.raises(ValueError, match="^the size exceeds 2\\*\\*63 - 1"):
        hoeffding_size(1e4, 1e-6, 0.05)
    with pytest.raises(ValueError, match="^the size exceeds"):
        bernstein_size(1e7, 1e4, 1e-9, 0.05)
    with pytest.raises(ValueError, match="^the size exceeds"):
        normal_size(1.0, 1e-12, 0.05)
    with pytest.raises(ValueError, match="^the size exceeds"):
        empirical_bernstein_size(1.0, 2.0, 1e-12, 0.05)


def test_binomial_is_far_below_hoeffding_for_rare_errors():
    assert binomial_size(0.02, 0.05, 0.05) < hoeffding_size(1, 0.02, 0.05) / 4
    sizes = binomial_size([0.05, 0.1], 0.05, 0.5)
    assert sizes.shape == (2,) and sizes[0] > sizes[1]


# ----------------------------------------------------------------- simulation


def test_simulation_agrees_with_exact_binomial():
    # A 0-1 population with error rate exactly 0.2; the simulated miss frequency must match
    # the exact binomial probability within 4 Monte Carlo standard errors.
    losses = np.r_[np.ones(200), np.zeros(800)]
    m, t, n_rep = 50, 0.08, 4_000
    exact = binomial_deviation_probability(m, 0.2, t)
    sim = simulate_deviation(losses, m, t, n_rep, seed=5)
    se = math.sqrt(exact * (1 - exact) / n_rep)
    assert abs(sim.probability - exact) < 4 * se
    assert sim.ci.low <= exact <= sim.ci.high
    assert sim.true_mean == pytest.approx(0.2)
    # spread of the mean: sd = sqrt(p (1-p) / m) within 5 %
    assert sim.sd == pytest.approx(math.sqrt(0.16 / m), rel=0.05)


def test_hoeffding_promise_holds_in_simulation_and_small_sizes_fail():
    # A skewed population on [0, U]: most rows cheap, a few at the top of the range.
    gen = np.random.default_rng(9)
    u = 13.0
    losses = np.where(gen.uniform(size=20_000) < 0.1, u, gen.exponential(0.5, 20_000).clip(0, u))
    t, eps, n_rep = 1.0, 0.05, 2_000
    k = hoeffding_size(u, t, eps)
    sim = simulate_deviation(losses, k, t, n_rep, alpha=eps, seed=1)
    # promise: miss probability <= eps; allow 3 Monte Carlo standard errors above it
    assert sim.probability <= eps + 3 * math.sqrt(eps * (1 - eps) / n_rep)
    assert sim.achieved_tolerance < t  # Hoeffding over-delivers
    # with far too few rows the same simulation does see misses above eps
    small = simulate_deviation(losses, 5, t, n_rep, seed=2)
    assert small.probability > 2 * eps


def test_normal_size_is_close_to_nominal_in_simulation():
    # the CLT size lands the miss probability near epsilon (here within 0.02) for a moderate rate
    losses = np.r_[np.ones(300), np.zeros(700)]
    n = normal_size(0.21, 0.03, 0.1)
    sim = simulate_deviation(losses, n, 0.03, 4_000, seed=3)
    assert abs(sim.probability - 0.1) < 0.02


# ----------------------------------------------------------------- exact coverage (FFT)


@pytest.mark.parametrize(
    ("m", "p", "t"), [(50, 0.2, 0.08), (50, 0.2, 0.02), (200, 0.05, 0.03), (7, 0.5, 0.2)]
)
def test_lattice_probability_is_exact_for_zero_one_loss(m, p, t):
    n_ones = int(round(p * 1000))
    losses = np.r_[np.ones(n_ones), np.zeros(1000 - n_ones)]
    got = lattice_deviation_probability(losses, m, t)
    assert got.exact and got.resolution == 1.0
    want = float(_binomial_exact(m, Fraction(n_ones, 1000), Fraction(str(t))))
    assert got.low <= want <= got.high
    assert got.high - got.low < 1e-12


def test_lattice_probability_on_a_shifted_scaled_lattice():
    # losses 2 (30 %) and 5 (70 %): the mean of 30 rows is 2 + 3 B / 30 with B ~ Binomial(30, 0.7)
    losses = np.r_[np.full(3, 2.0), np.full(7, 5.0)]
    got = lattice_deviation_probability(losses, 30, 0.5, resolution=3.0)
    want = float(_binomial_exact(30, Fraction(7, 10), Fraction(1, 6)))
    assert got.exact and got.low <= want <= got.high and got.high - got.low < 1e-12


def test_lattice_bracket_contains_multinomial_enumeration():
    # three irrational loss values; the exact law of the mean of k rows by enumerating counts
    values = np.array([0.0, math.sqrt(2), -2 * math.log2(0.01)])
    probs = np.array([0.7, 0.25, 0.05])
    losses = np.repeat(values, (probs * 100).astype(int))
    k, t = 25, 0.6
    mu = float(values @ probs)
    a, b = np.meshgrid(np.arange(k + 1), np.arange(k + 1), indexing="ij")
    ok = a + b <= k
    counts = np.stack([a[ok], b[ok], k - a[ok] - b[ok]], axis=1)
    pmf = stats.multinomial.pmf(counts, k, probs)
    means = counts @ values / k
    exact = float(pmf[np.abs(means - mu) > t].sum())
    got = lattice_deviation_probability(losses, k, t)
    assert not got.exact
    assert got.low <= exact <= got.high
    assert got.high - got.low < 0.02


def test_lattice_agrees_with_simulation_on_a_continuous_population():
    gen = np.random.default_rng(4)
    losses = gen.exponential(1.0, 5_000).clip(0, 13.29)
    got = lattice_deviation_probability(losses, 300, 0.12)
    sim = simulate_deviation(losses, 300, 0.12, 4_000, seed=8)
    se = math.sqrt(got.high * (1 - got.high) / 4_000)
    assert 0.01 < got.low  # a case where misses do happen
    assert got.low - 4 * se <= sim.probability <= got.high + 4 * se
    assert got.high - got.low < 0.01


# ----------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: hoeffding_size(0, 0.1, 0.05), "range_"),
        (lambda: hoeffding_size(14, -0.1, 0.05), "tolerance"),
        (lambda: hoeffding_size(14, 0.1, 1.0), "alpha"),
        (lambda: hoeffding_size(14, 0.1, "x"), "alpha"),
        (lambda: hoeffding_size([1, 2], 0.1, [0.1, 0.2, 0.3]), "broadcast"),
        (lambda: hoeffding_bound(0, 14, 0.1), "n"),
        (lambda: hoeffding_tolerance(10, 14, 0), "alpha"),
        (lambda: bernstein_size(50, 14, 0.1, 0.05), "variance"),
        (lambda: bernstein_size(-1, 14, 0.1, 0.05), "variance"),
        (lambda: empirical_bernstein_size(1, 14, float("nan"), 0.05), "tolerance"),
        (lambda: empirical_bernstein_radius(1, 1, 14, 0.05), "n"),
        (lambda: normal_size(1, 0, 0.05), "tolerance"),
        (lambda: binomial_deviation_probability(10, 1.2, 0.1), "p"),
        (lambda: binomial_deviation_probability(10.5, 0.2, 0.1), "m"),
        (lambda: binomial_size(1.5, 0.05), "tolerance"),
        (lambda: binomial_size(0.1, 0.05, p=-0.1), "p"),
        (lambda: simulate_deviation([], 10, 0.1), "losses"),
        (lambda: simulate_deviation([1, 2], 0, 0.1), "size"),
        (lambda: simulate_deviation([1, 2], 10, 0.1, reps=0), "reps"),
        (lambda: simulate_deviation([1, np.inf], 10, 0.1), "losses"),
        (lambda: lattice_deviation_probability([], 10, 0.1), "losses"),
        (lambda: lattice_deviation_probability([0.5, 1], 10, -1), "tolerance"),
        (lambda: lattice_deviation_probability([0.5, 1], 10, 0.1, resolution=0), "resolution"),
        (
            lambda: lattice_deviation_probability([0.5, 1], 10**6, 0.1, resolution=1e-6),
            "resolution",
        ),
    ],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ----------------------------------------------------------------- empirical Bernstein, per set
def test_simulate_empirical_bernstein_recomputes_each_sets_radius():
    """Independent recomputation: the same draws, each set's radius from the formula in Python."""
    from heldout.accuracy.deviation import simulate_empirical_bernstein

    population = np.array([0.0, 0.2, 0.2, 0.5, 1.0, 3.0])
    size, reps, u, a = 40, 300, 3.0, 0.2
    got = simulate_empirical_bernstein(population, size, u, a, tolerance=1.0, reps=reps, seed=11)
    rows = population[np.random.default_rng(11).integers(0, population.size, size=(reps, size))]
    misses, over, radii = 0, 0, []
    lt = math.log(4 / a)
    for row in rows:
        mean = sum(row) / size
        var = sum((x - mean) ** 2 for x in row) / (size - 1)
        r = math.sqrt(2 * var * lt / size) + 7 * u * lt / (3 * (size - 1))
        misses += abs(mean - population.mean()) > r
        over += r > 1.0
        radii.append(r)
    assert got.misses == misses and got.reps == reps
    assert got.over_tolerance == pytest.approx(over / reps)
    np.testing.assert_allclose(got.radii, radii, rtol=1e-12)
    assert got.ci.low <= got.probability <= got.ci.high


def test_simulate_empirical_bernstein_keeps_its_promise_and_refuses_a_short_range():
    from heldout.accuracy.deviation import simulate_empirical_bernstein

    losses = np.random.default_rng(3).exponential(size=500).clip(0, 4)
    eps = 0.1
    check = simulate_empirical_bernstein(losses, 30, 4.0, eps, reps=2_000, seed=4)
    assert check.probability <= eps + 3 * math.sqrt(eps * (1 - eps) / 2_000)
    with pytest.raises(ValueError, match="^range_"):
        simulate_empirical_bernstein(losses, 30, 1.0, eps)
    with pytest.raises(ValueError, match="^size"):
        simulate_empirical_bernstein(losses, 1, 4.0, eps)


def test_old_sizing_names_warn_and_still_work():
    with pytest.warns(DeprecationWarning, match="'epsilon' is deprecated"):
        assert hoeffding_size(14, 0.1, epsilon=0.05) == 36152
    with pytest.warns(DeprecationWarning, match="'stable' is deprecated"):
        assert binomial_size(0.2, 0.1, 0.3, stable=False) == binomial_size(
            0.2, 0.1, 0.3, rule="first"
        )
    with pytest.warns(DeprecationWarning, match="'n_rep' is deprecated"):
        sim = simulate_deviation([0, 1], 10, 0.1, n_rep=20, seed=1)
    with pytest.warns(DeprecationWarning, match="use .probability"):
        assert sim["probability"] == sim.probability
    probability, ci = sim  # unpacks like a tuple
    assert probability == sim.probability and ci == sim.ci
