"""Tests of heldout.compare against mpmath, scipy, statsmodels, brute force and simulation."""

from __future__ import annotations

import itertools

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportions_ztest

from heldout import compare as C


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


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 300),
    st.integers(1, 300),
    st.integers(1, 300),
    st.integers(1, 300),
)
def test_closed_form_sum_agrees_with_quadrature(a1, b1, a2, b2):
    # two independent routes: the finite sum (integer parameters) and adaptive quadrature
    exact = C.prob_greater_beta(a1, b1, a2, b2)
    quad = C._prob_greater_quad(float(a1), float(b1), float(a2), float(b2))
    assert exact == pytest.approx(quad, abs=1e-10)
    assert exact + C.prob_greater_beta(a2, b2, a1, b1) == pytest.approx(1.0, abs=1e-12)


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


def test_disagreements_brute_force():
    rng = np.random.default_rng(3)
    a = rng.random(500) < 0.9
    b = rng.random(500) < 0.85
    only_a = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    assert C.disagreements(a, b) == (only_a, only_b)
    assert C.disagreements(a.astype(int), b.astype(float)) == (only_a, only_b)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 80), st.integers(0, 80))
def test_mcnemar_matches_statsmodels_and_binomtest(b, c):
    two = C.mcnemar_exact(b, c)
    ref = mcnemar([[10, b], [c, 10]], exact=True).pvalue
    assert two == pytest.approx(ref, rel=1e-9)
    if b + c > 0:
        assert C.mcnemar_exact(b, c, "greater") == pytest.approx(
            stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue, rel=1e-9
        )
        assert C.mcnemar_exact(b, c, "less") == pytest.approx(
            stats.binomtest(b, b + c, 0.5, alternative="less").pvalue, rel=1e-9
        )
    else:
        assert C.mcnemar_exact(b, c, "less") == 1.0


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


def test_holm_and_bonferroni_match_statsmodels():
    rng = np.random.default_rng(4)
    for size in (1, 2, 5, 12, 40):
        p = rng.random(size) ** 3
        p[: size // 3] = p[0]  # ties
        assert C.holm(p) == pytest.approx(multipletests(p, method="holm")[1], abs=1e-12)
        assert C.bonferroni(p) == pytest.approx(multipletests(p, method="bonferroni")[1], abs=1e-12)


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
    assert null["mcnemar"] <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)
    assert null["fisher"] <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)
    # with few disagreements the paired test is far more powerful
    alt = C.simulate_power(0.92, 0.90, 0.04, 1000, alpha=0.05, reps=4000, seed=12)
    assert alt["mcnemar"] > alt["fisher"] + 0.2
    # normal-approximation power of the one-sided McNemar test (d = 40, b ~ Bin(40, 0.75))
    d, share = 0.04 * 1000, 0.75
    approx = stats.norm.sf(
        (stats.norm.isf(0.05) * 0.5 * np.sqrt(d) - (share - 0.5) * d)
        / np.sqrt(d * share * (1 - share))
    )
    assert alt["mcnemar"] == pytest.approx(approx, abs=0.1)


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
        (lambda: C.fisher_test(96, 100, 98, 100, alternative="bigger"), "alternative"),
        (lambda: C.chi2_test(96, 100, 98.5, 100), "correct_b"),
        (lambda: C.mcnemar_exact(-2, 3), "only_a_correct"),
        (lambda: C.disagreements([1, 0, 1], [1, 0]), "same shape"),
        (lambda: C.disagreements([1, 2], [1, 0]), "correct_a"),
        (lambda: C.prob_best([96], 100), "correct"),
        (lambda: C.holm([0.1, 1.2]), "pvalues"),
        (lambda: C.required_size(1.5, 0.01), "accuracy"),
        (lambda: C.required_size(0.9, -0.01), "gap"),
        (lambda: C.required_size_exact(0.9, 0.01, power=0.4), "power"),
        (lambda: C.prob_better_mc(96, 100, 98, 100, draws=0), "draws"),
        (lambda: C.paired_cell_probs(0.9, 0.8, 0.05), "disagreement"),
    ],
)
def test_bad_input_names_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


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
