"""Tests of heldout.comparison.compare against mpmath, scipy, statsmodels, brute force and simulation."""

from __future__ import annotations

import itertools
import math
import threading

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportions_ztest

from heldout.comparison import _beta_compare as _BC
from heldout.comparison import compare as C


def _mp_prob_greater(a1, b1, a2, b2, dps=20):
    """P(X1 > X2) by high-precision quadrature of f1(x) F2(x)."""
    with mp.workdps(dps):
        a1, b1, a2, b2 = (mp.mpf(v) for v in (a1, b1, a2, b2))

        def f(x):
            return (
                x ** (a1 - 1)
                * (1 - x) ** (b1 - 1)
                / mp.beta(a1, b1)
                * mp.betainc(a2, b2, 0, x, regularized=True)
            )

        pts = sorted({mp.mpf(0), a1 / (a1 + b1), a2 / (a2 + b2), mp.mpf(1)})
        return float(mp.quad(f, pts))


PRIOR_AB = {
    "uniform": (1, 1),
    "haldane": (0, 0),
    "jeffreys": (0.5, 0.5),
    (2, 3): (2, 3),
    (0.3, 1.7): (0.3, 1.7),
}


@pytest.mark.parametrize(
    "ka,na,kb,nb,prior",
    [
        (96, 100, 98, 100, "uniform"),
        (96, 100, 98, 100, "haldane"),
        (96, 100, 98, 100, "jeffreys"),
        (3, 10, 7, 12, "jeffreys"),
        (0, 10, 10, 10, "jeffreys"),
        (50, 60, 20, 25, (2, 3)),
        (9, 20, 11, 20, (0.3, 1.7)),
        (460, 500, 470, 500, "uniform"),
    ],
)
def test_prob_better_matches_mpmath(ka, na, kb, nb, prior):
    a0, b0 = PRIOR_AB[prior]
    ref = _mp_prob_greater(ka + a0, na - ka + b0, kb + a0, nb - kb + b0)
    assert C.prob_better(ka, na, kb, nb, prior=prior) == pytest.approx(ref, abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 300),
    st.integers(1, 300),
    st.integers(1, 300),
    st.integers(1, 300),
)
def test_finite_sum_agrees_with_quadrature(a1, b1, a2, b2):
    # two independent routes inside the package: the finite sum (whole parameters) and
    # the logit-scale quadrature with saddle-point densities
    args = [np.array([float(v)]) for v in (a1, b1, a2, b2)]
    total, covered = _BC._closed_form(*args)
    assert covered[0]
    with np.errstate(all="ignore"):
        quad = _BC._block(*args)
    assert total[0] == pytest.approx(quad[0], abs=2e-12)
    assert C.prob_greater_beta(a1, b1, a2, b2) + C.prob_greater_beta(
        a2, b2, a1, b1
    ) == pytest.approx(1.0, abs=1e-12)


def _window(a1, b1, b2, n):
    """Indices [lo, hi) of the terms t_i (i < n) within e^-120 of the largest.

    The dropped terms sum to less than n e^-120 times the largest (below 1e-45 for the
    sums here), so the 40-digit sum over the window keeps every digit the tests compare;
    long sums (10^6 terms) then cost a window of tens of thousands.  Floats only locate it.
    """
    if n <= 20_000:
        return 0, n
    i = np.arange(1, n, dtype=float)
    steps = np.log((a1 + i - 1) / (a1 + b1 + b2 + i - 1) * (b2 + i - 1) / i)
    log_t = np.concatenate([[0.0], np.cumsum(steps)])
    keep = np.flatnonzero(log_t >= log_t.max() - 120.0)
    return int(keep[0]), int(keep[-1]) + 1


def _mp_closed_form(a1, b1, a2, b2, dps=40):
    """P(X1 > X2) from the finite sum with the fewest terms, in 40-digit arithmetic.

    P(X2 > X1) = sum_{i < a2} t_i, t_0 = B(a1, b1 + b2) / B(a1, b1),
    t_{i+1} / t_i = (a1 + i)(b2 + i) / ((a1 + b1 + b2 + i)(1 + i)).
    """

    def g(a1, b1, a2, b2):
        n = int(a2)
        lo, hi = _window(float(a1), float(b1), float(b2), n)
        a1, b1, b2 = mp.mpf(a1), mp.mpf(b1), mp.mpf(b2)
        # t_lo in closed form: t_0 times the product of the first lo ratios (log-gammas)
        t = mp.exp(
            mp.log(mp.beta(a1, b1 + b2) / mp.beta(a1, b1))
            + mp.loggamma(a1 + lo) - mp.loggamma(a1) + mp.loggamma(b2 + lo) - mp.loggamma(b2)
            + mp.loggamma(a1 + b1 + b2) - mp.loggamma(a1 + b1 + b2 + lo) - mp.loggamma(lo + 1)
        )  # fmt: skip
        s = t
        for i in range(lo + 1, hi):
            t *= (a1 + i - 1) / (a1 + b1 + b2 + i - 1) * (b2 + i - 1) / i
            s += t
        return s

    whole = [float(v).is_integer() for v in (a1, b1, a2, b2)]
    forms = []
    if whole[0]:
        forms.append((a1, lambda: g(a2, b2, a1, b1)))
    if whole[3]:
        forms.append((b2, lambda: g(b1, a1, b2, a2)))
    if whole[2]:
        forms.append((a2, lambda: 1 - g(a1, b1, a2, b2)))
    if whole[1]:
        forms.append((b1, lambda: 1 - g(b2, a2, b1, a1)))
    with mp.workdps(dps):
        return float(min(forms, key=lambda f: f[0])[1]())


def _random_cases(seed, count):
    """Parameters log-uniform in [0.2, 1e9], half with close means; b2 a small whole number
    (so that the 40-digit reference is a short sum)."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        a1, b1 = 10 ** rng.uniform(-0.7, 9, size=2)
        if rng.random() < 0.7:
            n2 = (a1 + b1) * 10 ** rng.uniform(-1, 1)
            m = np.clip(a1 / (a1 + b1) * (1 + rng.normal(0, 3) / np.sqrt(a1 + 1)), 1e-9, 1 - 1e-9)
            a2 = max(m * n2, 0.2)
        else:
            a2 = 10 ** rng.uniform(-0.7, 9)
        cases.append((a1, b1, a2, float(rng.integers(1, 150))))
    return cases


@pytest.mark.parametrize("seed", [0, 1])
def test_prob_greater_beta_matches_40_digit_reference_up_to_1e9(seed):
    # issue 19: the quadrature path (forced: no finite sum) against 40-digit mpmath
    cases = _random_cases(seed, 60)
    args = [np.array(v) for v in zip(*cases, strict=True)]
    with np.errstate(all="ignore"):
        quad = _BC._block(*args)
    ref = np.array([_mp_closed_form(*c) for c in cases])
    assert np.max(np.abs(quad - ref)) < 1e-12
    # and the public, vectorised function (which may take either route)
    assert np.max(np.abs(C.prob_greater_beta(*args) - ref)) < 1e-12


@pytest.mark.parametrize(
    "a1,b1,a2,b2",
    [
        (1e6, 1e6, 1e6 + 1500, 1e6 - 1500),  # the size
        (9.7e8, 30, 9.4e8, 31),
        (1e9, 40, 8e8, 35),
        (7, 3e8, 9, 3e8),  # scipy's betainc errs by 6e-10 near here
        (4091, 111, 4071, 131),
    ],
)
def test_prob_greater_beta_large_parameters(a1, b1, a2, b2):
    ref = _mp_closed_form(a1, b1, a2, b2)
    assert C.prob_greater_beta(a1, b1, a2, b2) == pytest.approx(ref, abs=2e-12)


@pytest.mark.parametrize(
    "a1,b1,a2,b2",
    [
        (0.5, 10.5, 10.5, 0.5),
        (0.3, 1.7, 2.5, 3.5),
        (0.5, 100.5, 1.5, 99.5),
        (0.5, 0.5, 0.5, 0.5),
        (96.5, 4.5, 98.5, 2.5),
    ],
)
def test_prob_greater_beta_small_non_integer_parameters(a1, b1, a2, b2):
    with mp.workdps(30):
        x1, y1, x2, y2 = (mp.mpf(v) for v in (a1, b1, a2, b2))

        def f(x):
            return (
                x ** (x1 - 1)
                * (1 - x) ** (y1 - 1)
                / mp.beta(x1, y1)
                * mp.betainc(x2, y2, 0, x, regularized=True)
            )

        ref = float(mp.quad(f, [0, 0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1]))
    assert C.prob_greater_beta(a1, b1, a2, b2) == pytest.approx(ref, abs=1e-11)


def test_prob_greater_beta_is_vectorised():
    rng = np.random.default_rng(7)
    a = rng.integers(1, 5000, 300).astype(float) + rng.choice([0.0, 0.5], 300)
    b = rng.integers(1, 5000, 300).astype(float)
    vec = C.prob_greater_beta(a, b, a[::-1], b[::-1])
    one = [
        C.prob_greater_beta(x, y, z, w) for x, y, z, w in zip(a, b, a[::-1], b[::-1], strict=True)
    ]
    assert vec.shape == (300,)
    assert vec == pytest.approx(one, abs=1e-13)
    grid = C.prob_better(np.arange(90, 101)[:, None], 100, np.arange(90, 101)[None, :], 100)
    assert grid.shape == (11, 11)
    assert np.allclose(grid + grid.T, 1.0, atol=1e-12)


def test_prob_better_broadcasts_and_orders():
    vals = C.prob_better([90, 95, 98], 100, 95, 100)
    assert vals.shape == (3,)
    assert vals[0] < vals[1] < vals[2]
    assert vals[1] == pytest.approx(0.5, abs=1e-12)


def test_prob_better_mc_within_its_standard_error():
    exact = C.prob_better(96, 100, 98, 100, prior="haldane")
    est, se = C.prob_better_mc(96, 100, 98, 100, prior="haldane", draws=200_000, seed=1)
    assert se == pytest.approx(np.sqrt(est * (1 - est) / 200_000))
    assert abs(est - exact) < 4 * se


def test_mc_draws_needed():
    assert C.mc_draws_needed(0.2, 0.001) == 160_000
    assert C.mc_draws_needed(0.5, 0.01) == 2_500


table = st.tuples(st.integers(1, 60), st.integers(1, 60)).flatmap(
    lambda n: st.tuples(st.integers(0, n[0]), st.just(n[0]), st.integers(0, n[1]), st.just(n[1]))
)


@settings(max_examples=30, deadline=None)
@given(table)
def test_fisher_matches_scipy(t):
    ka, na, kb, nb = t
    for alt in ("less", "greater", "two-sided"):
        ref = stats.fisher_exact([[ka, kb], [na - ka, nb - kb]], alternative=alt).pvalue
        assert C.fisher_test(ka, na, kb, nb, alternative=alt) == pytest.approx(
            ref, rel=1e-9, abs=1e-14
        )


def test_fisher_small_tables_by_summing_agree_with_scipy_and_large_ones_too():
    """One table of up to 100,000 support values is summed term by term (no scipy.stats,
    for the start-up of ``heldout compare --a --b``); scipy's hypergeometric is the
    reference, in the tails too, and on either side of the switch."""
    rng = np.random.default_rng(42)
    for _ in range(300):
        na, nb = (int(v) for v in rng.integers(1, 5000, 2))
        ka, kb = int(rng.integers(0, na + 1)), int(rng.integers(0, nb + 1))
        for alt in ("less", "greater", "two-sided"):
            ref = stats.fisher_exact([[ka, kb], [na - ka, nb - kb]], alternative=alt).pvalue
            got = C.fisher_test(ka, na, kb, nb, alternative=alt)
            assert got == pytest.approx(ref, rel=1e-9, abs=1e-300)
    big = (150_000, 300_000, 151_000, 300_000)  # support above the switch: scipy's path
    ref = stats.fisher_exact([[big[0], big[2]], [big[1] - big[0], big[3] - big[2]]]).pvalue
    assert C.fisher_test(*big, alternative="two-sided") == pytest.approx(ref, rel=1e-7)


def test_fisher_vectorised_equals_scalar():
    ka = np.array([90, 96, 99])
    vec = C.fisher_test(ka, 100, 98, 100)
    assert vec == pytest.approx([C.fisher_test(int(k), 100, 98, 100) for k in ka])


@settings(max_examples=30, deadline=None)
@given(table)
def test_chi2_matches_scipy_and_statsmodels(t):
    ka, na, kb, nb = t
    succ, fail = ka + kb, na + nb - ka - kb
    for corr in (True, False):
        two = C.chi2_test(ka, na, kb, nb, "two-sided", correction=corr)
        if succ == 0 or fail == 0:
            assert two == 1.0
            continue
        ref = stats.chi2_contingency([[ka, kb], [na - ka, nb - kb]], correction=corr).pvalue
        assert two == pytest.approx(ref, rel=1e-9, abs=1e-14)
        less = C.chi2_test(ka, na, kb, nb, "less", correction=corr)
        greater = C.chi2_test(ka, na, kb, nb, "greater", correction=corr)
        assert less + greater == pytest.approx(1.0)
        if ka / na < kb / nb:  # the article's halving is right in this direction
            assert less == pytest.approx(ref / 2, rel=1e-9, abs=1e-14)
    if 0 < succ and 0 < fail and ka / na != kb / nb:
        # uncorrected one-sided test is the pooled two-proportion z-test
        _, ref_z = proportions_ztest([ka, kb], [na, nb], alternative="smaller")
        assert C.chi2_test(ka, na, kb, nb, "less", correction=False) == pytest.approx(
            ref_z, rel=1e-8, abs=1e-14
        )


def test_article_chi2_halving():
    two = stats.chi2_contingency([[96, 98], [4, 2]])[1]
    assert C.chi2_test(96, 100, 98, 100) == pytest.approx(two / 2)
    # in the other direction halving is wrong: 1 - p/2
    assert C.chi2_test(98, 100, 96, 100) == pytest.approx(1 - two / 2)


@pytest.mark.parametrize("b,c", [(0, 0), (3, 7), (12, 4), (40, 41)])
def test_paired_prob_better(b, c):
    # uniform prior: the binomial identity
    assert C.paired_prob_better(b, c) == pytest.approx(
        stats.binom.cdf(b, b + c + 1, 0.5), rel=1e-12
    )
    # jeffreys: high-precision integral of the Beta density above 1/2
    with mp.workdps(30):
        a_, b_ = mp.mpf(b) + 0.5, mp.mpf(c) + 0.5
        ref = mp.quad(lambda x: x ** (a_ - 1) * (1 - x) ** (b_ - 1), [0.5, 1]) / mp.beta(a_, b_)
    assert C.paired_prob_better(b, c, prior="jeffreys") == pytest.approx(float(ref), abs=1e-12)


def test_prob_best_two_models_equals_prob_better():
    pb = C.prob_best([96, 98], 100)
    assert pb[0] == pytest.approx(C.prob_better(96, 100, 98, 100), abs=1e-10)
    assert pb.sum() == pytest.approx(1.0, abs=1e-10)


def test_prob_best_three_models_mpmath_and_simulation():
    k, n = np.array([96, 98, 97]), 100
    a, b = k + 1, n - k + 1
    with mp.workdps(20):

        def f(x, i):
            out = x ** (a[i] - 1) * (1 - x) ** (b[i] - 1) / mp.beta(a[i], b[i])
            for j in range(3):
                if j != i:
                    out *= mp.betainc(a[j], b[j], 0, x, regularized=True)
            return out

        ref = [float(mp.quad(lambda x, i=i: f(x, i), [0, 0.9, 0.97, 1])) for i in range(3)]
    got = C.prob_best(k, n)
    assert got == pytest.approx(ref, abs=1e-10)
    est, se = C.prob_best_mc(k, n, draws=100_000, seed=5)
    assert np.all(np.abs(est - got) < 4 * se)


def test_best_bounds_bracket_the_exact_value():
    k = np.array([960, 965, 958, 950, 966])
    exact = C.prob_best(k, 1000)
    bb = C.best_bounds(k, 1000)
    assert np.all(bb.lower <= exact + 1e-12)
    assert np.all(exact <= bb.upper + 1e-12)
    assert np.all(bb.upper <= bb.article_sum + 1e-12)
    assert bb.article_sum.max() > 1  # the article's bound can exceed 1


def test_required_size_article_numbers():
    # the article: 0.25 / 0.01^2 = 2500 and "around 10000" for p = 0.99, sigma = 0.1%
    assert C.required_size(0.5, 0.01) == 2500
    assert C.required_size(0.99, 0.001) == 9900
    assert C.required_size(0.5, 0.01, models=2) == 4 * 2500


def test_pick_best_probability_brute_force():
    # enumerate all outcomes of three binomials with n = 6
    n, p, g, m = 6, 0.7, 0.2, 2
    pmf_x = stats.binom.pmf(np.arange(n + 1), n, p)
    pmf_y = stats.binom.pmf(np.arange(n + 1), n, p - g)
    total = 0.0
    for x, y1, y2 in itertools.product(range(n + 1), repeat=3):
        top = max(x, y1, y2)
        if x == top:
            ties = 1 + (y1 == top) + (y2 == top)
            total += pmf_x[x] * pmf_y[y1] * pmf_y[y2] / ties
    assert C.pick_best_probability(p, g, n, models=m) == pytest.approx(total, rel=1e-12)


def test_pick_best_probability_simulation():
    exact = C.pick_best_probability(0.96, 0.01, 2000, models=3)
    sim = C.simulate_pick_best([0.96, 0.95, 0.95, 0.95], 2000, reps=40_000, seed=2)
    assert abs(sim - exact) < 4 * np.sqrt(exact * (1 - exact) / 40_000)


def test_required_size_exact_is_the_smallest():
    n = C.required_size_exact(0.9, 0.02, models=2, power=0.9)
    assert C.pick_best_probability(0.9, 0.02, n, 2) >= 0.9
    assert C.pick_best_probability(0.9, 0.02, n - 1, 2) < 0.9


def test_article_size_resolves_gap_with_about_76_percent():
    # N = p(1-p)/sigma^2 makes the gap one standard error of a single score, so the
    # difference of two independent scores is 1/sqrt(2) of its standard error.
    n = C.required_size(0.5, 0.01)
    prob = C.pick_best_probability(0.5, 0.01, n, 1)
    assert prob == pytest.approx(stats.norm.cdf(1 / np.sqrt(2)), abs=0.01)


def test_simulate_power_null_and_alternative():
    # under the null (equal accuracies) the exact tests keep their level
    null = C.simulate_power(0.9, 0.9, 0.06, 1000, alpha=0.05, reps=4000, seed=11)
    assert null.mcnemar <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)
    assert null.fisher <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)
    with pytest.warns(DeprecationWarning):
        assert null["mcnemar"] == null.mcnemar  # the old dict interface still works
    # with few disagreements the paired test is far more powerful
    alt = C.simulate_power(0.92, 0.90, 0.04, 1000, alpha=0.05, reps=4000, seed=12)
    assert alt.mcnemar > alt.fisher + 0.2
    # normal-approximation power of the one-sided McNemar test (d = 40, b ~ Bin(40, 0.75))
    d, share = 0.04 * 1000, 0.75
    approx = stats.norm.sf(
        (stats.norm.isf(0.05) * 0.5 * np.sqrt(d) - (share - 0.5) * d)
        / np.sqrt(d * share * (1 - share))
    )
    assert alt.mcnemar == pytest.approx(approx, abs=0.1)


def test_paired_cell_probs():
    probs = C.paired_cell_probs(0.92, 0.90, 0.04)
    assert probs.sum() == pytest.approx(1)
    assert probs[0] + probs[1] == pytest.approx(0.92)
    assert probs[0] + probs[2] == pytest.approx(0.90)
    assert probs[1] + probs[2] == pytest.approx(0.04)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: C.prob_better(97, 96, 98, 100), "correct_a"),
        (lambda: C.prob_better(96, 100, -1, 100), "correct_b"),
        (lambda: C.prob_better(96, 100, 98, 100, prior="flat"), "prior"),
        (lambda: C.prob_better(100, 100, 98, 100, prior="haldane"), "improper"),
        (lambda: C.prob_better([], 100, 98, 100), "correct_a"),
        (lambda: C.prob_better(96, 2**63, 98, 100), "n_a"),
        (lambda: C.prob_better(1e300, 1e300, 98, 100), "correct_a"),
        (lambda: C.prob_better(float("nan"), 100, 98, 100), "correct_a"),
        (lambda: C.prob_greater_beta([], 1, 1, 1), "a1"),
        (lambda: C.prob_greater_beta(1, float("nan"), 1, 1), "b1"),
        (lambda: C.prob_greater_beta(1, 1, -2, 1), "a2"),
        (lambda: C.prob_greater_beta([1, 2], 1, [1, 2, 3], 1), "broadcast"),
        (lambda: C.prob_better_mc([96, 97], 100, 98, 100), "correct_a"),
        (lambda: C.prob_better_mc(96, 100, 98, 100, draws=0), "draws"),
        (lambda: C.fisher_test(96, 100, 98, 100, alternative="bigger"), "alternative"),
        (lambda: C.fisher_test(96, 100, 98, 2**63), "n_b"),
        (lambda: C.fisher_test(10**11, 10**12, 10**11, 10**12), "1e10"),
        (lambda: C.chi2_test(96, 100, 98.5, 100), "correct_b"),
        (lambda: C.chi2_test(96, 100, [], 100), "correct_b"),
        (lambda: C.paired_prob_better([], 3), "only_a_correct"),
        (lambda: C.mcnemar_exact(-2, 3), "only_a_correct"),
        (lambda: C.mcnemar_exact(2, 2**63), "only_b_correct"),
        (lambda: C.disagreements([1, 0, 1], [1, 0]), "same shape"),
        (lambda: C.disagreements([1, 2], [1, 0]), "correct_a"),
        (lambda: C.disagreements([], []), "correct_a"),
        (lambda: C.prob_best([96], 100), "correct"),
        (lambda: C.prob_best([96, 98], [100, 100, 100]), "broadcast"),
        (lambda: C.holm([0.1, 1.2]), "pvalues"),
        (lambda: C.holm([]), "pvalues"),
        (lambda: C.holm([0.1, float("nan")]), "pvalues"),
        (lambda: C.required_size(1.5, 0.01), "accuracy"),
        (lambda: C.required_size(0.9, 0.01, models=2.5), "models"),
        (lambda: C.required_size(0.9, -0.01), "gap"),
        (lambda: C.required_size([], 0.01), "accuracy"),
        (lambda: C.required_size(0.5, 1e-300), "overflows"),
        (lambda: C.required_size_exact(0.9, 0.01, power=0.4), "power"),
        (lambda: C.required_size_exact([0.9, 0.8], 0.01), "accuracy"),
        (lambda: C.required_size_exact(0.9, 0.01, models=[1, 2]), "models"),
        (lambda: C.required_size_exact(0.9, 0.01, models=2**63), "models"),
        (lambda: C.pick_best_probability(0.9, 0.01, [10, 20]), "n"),
        (lambda: C.pick_best_probability(0.9, 0.01, float("nan")), "n"),
        (lambda: C.paired_cell_probs(0.9, 0.8, 0.05), "disagreement"),
        (lambda: C.simulate_power(0.9, 0.9, 0.05, 100, alpha=1.5), "alpha"),
        (lambda: C.simulate_power(0.9, 0.9, 0.05, 100, alpha=0), "alpha"),
        (lambda: C.simulate_pick_best([0.9], 100), "accuracies"),
        (lambda: C.mc_draws_needed(0.5, []), "se"),
        (lambda: C.required_size_paired(0.01, [0.1, float("nan")]), "disagreement"),
    ],
)
def test_bad_input_names_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def _finishes_within(fn, seconds):
    """Run fn in a thread; True when it returned within ``seconds`` (a hang fails the test)."""
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault("value", fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    return "value" in out, out.get("value")


def test_fisher_test_does_not_hang_at_huge_n():
    # issue 19: the two-sided p-value summed the whole support; now bisection
    for n in (10**6, 10**9, 4 * 10**9):
        ka, kb = n // 10, n // 10 + int(np.sqrt(n) / 3)
        done, two = _finishes_within(
            lambda ka=ka, n=n, kb=kb: C.fisher_test(ka, n, kb, n, "two-sided"), 60
        )
        assert done
        one = C.fisher_test(ka, n, kb, n, "less")
        # symmetric enough at this size that two-sided = 2 x one-sided; the normal
        # approximation (continuity-corrected chi-squared) agrees to four digits
        assert two == pytest.approx(2 * one, rel=1e-4)
        assert one == pytest.approx(C.chi2_test(ka, n, kb, n, "less"), rel=1e-3)


def test_moved_names_stay_importable_from_compare():
    from heldout.comparison import multiple, paired, predictions

    assert C.mcnemar_exact is paired.mcnemar_exact
    assert C.disagreements is paired.disagreements
    assert C.holm is multiple.holm and C.bonferroni is multiple.bonferroni
    assert not hasattr(C, "best_set")  # best imports compare: the best-model names live in best
    assert C.correctness is predictions.correctness
    b, c = C.disagreements([1, 1, 0], [0, 1, 1])  # result objects still unpack
    assert (b, c) == (1, 1)
    for name in C.__all__:
        assert hasattr(C, name)


def test_required_size_paired_by_simulation():
    gap, d, power = 0.01, 0.05, 0.9
    n = C.required_size_paired(gap, d, power=power)
    assert n == int(np.ceil(stats.norm.ppf(power) ** 2 * (d - gap**2) / gap**2 - 1e-9))
    probs = C.paired_cell_probs(0.91, 0.90, d)
    rng = np.random.default_rng(9)
    cells = rng.multinomial(n, probs, size=20_000)
    won = np.mean(cells[:, 1] > cells[:, 2]) + 0.5 * np.mean(cells[:, 1] == cells[:, 2])
    # normal approximation with a lattice: within 2 points of the target
    assert won == pytest.approx(power, abs=0.02)
    with pytest.raises(ValueError, match="disagreement"):
        C.required_size_paired(0.05, 0.01)


def test_pick_best_probability_large_n_no_cancellation():
    # one rival: P = sum_k P(X = k) (P(Y < k) + P(Y = k) / 2), no powers to cancel
    n, p, g = 16_000, 0.96, 0.01
    k = np.arange(n + 1)
    direct = np.sum(
        stats.binom.pmf(k, n, p)
        * (stats.binom.cdf(k - 1, n, p - g) + stats.binom.pmf(k, n, p - g) / 2)
    )
    assert C.pick_best_probability(p, g, n, 1) == pytest.approx(direct, abs=1e-12)
    # many rivals: against a seeded simulation
    exact = C.pick_best_probability(p, g, n, 30)
    sim = C.simulate_pick_best([p] + [p - g] * 30, n, reps=20_000, seed=3)
    assert abs(sim - exact) < 4 * np.sqrt(exact * (1 - exact) / 20_000) + 1e-4


def test_required_size_has_no_floating_point_off_by_one():
    # issue 25: 64^2 * 0.96 * 0.04 / 0.01^2 = 1,572,864 exactly (rational arithmetic)
    from fractions import Fraction

    exact = Fraction(64**2) * Fraction(96, 100) * Fraction(4, 100) / Fraction(1, 100) ** 2
    assert exact.denominator == 1
    assert C.required_size(0.96, 0.01, 64) == int(exact) == 1_572_864
    for m in (1, 2, 4, 8, 16, 32, 64):
        want = math.ceil(Fraction(m**2) * Fraction(96, 100) * Fraction(4, 100) * 10_000)
        assert C.required_size(0.96, 0.01, m) == want


def test_required_size_exact_64_rivals_against_mpmath():
    # the smallest N whose pick probability reaches 0.95, with 64 rivals at 0.95 and the
    # best at 0.96: the same sum as pick_best_probability, in 30-digit arithmetic
    mp.mp.dps = 30

    def pick(n, m=64):
        p, q = mp.mpf("0.96"), mp.mpf("0.95")
        total, below = mp.mpf(0), mp.mpf(0)
        for k in range(n + 1):
            px = mp.binomial(n, k) * p**k * (1 - p) ** (n - k)
            g = mp.binomial(n, k) * q**k * (1 - q) ** (n - k)
            if g > 0:
                total += px * ((below + g) ** (m + 1) - below ** (m + 1)) / ((m + 1) * g)
            below += g
        return total

    n = C.required_size_exact(0.96, 0.01, 64)
    assert pick(n - 1) < mp.mpf("0.95") <= pick(n)
    assert n == 7494  # issue 25 said 7,495: the 30-digit sum says 7,494 reaches 0.95
