"""Tests of heldout.accuracy.lost against brute force, exact arithmetic, scipy and seeded simulation.

The module is imported as ``lost`` (its functions are named ``test_accuracy`` etc.,
which pytest would otherwise collect as tests).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import heldout.accuracy.lost as lost
import heldout.accuracy.lost_fitted as lost_fitted

SEED = 7_2026


# --------------------------------------------------------------------------- brute force helpers
def all_splits(n: int, n2: int) -> np.ndarray:
    """Boolean test masks for every subset of size n2 of n rows, shape (C(n, n2), n)."""
    masks = np.zeros((math.comb(n, n2), n), dtype=bool)
    for i, subset in enumerate(itertools.combinations(range(n), n2)):
        masks[i, list(subset)] = True
    return masks


def cp_scipy(k: int, m: int, level: float) -> tuple[float, float]:
    """Clopper-Pearson interval from scipy's beta quantiles (independent of heldout.accuracy.bounds)."""
    alpha = 1 - level
    low = 0.0 if k == 0 else stats.beta.ppf(alpha / 2, k, m - k + 1)
    high = 1.0 if k == m else stats.beta.ppf(1 - alpha / 2, k + 1, m - k)
    return low, high


# --------------------------------------------------------------------------- identity and bounds
@pytest.mark.parametrize(("n", "n2"), [(9, 3), (8, 5), (7, 1)])
def test_identity_and_bounds_by_enumerating_every_split(n, n2):
    """For every number K of correct rows and every possible test set: identity exact, bounds tight."""
    n1 = n - n2
    masks = all_splits(n, n2)
    for n_correct in range(n + 1):
        correct = np.arange(n) < n_correct  # which rows are right does not matter, only the split
        a = (masks & correct).sum(axis=1) / n2  # test accuracy of every split
        t = (~masks & correct).sum(axis=1) / n1 if n1 else np.zeros(len(masks))
        p = n_correct / n
        np.testing.assert_allclose(lost.data_accuracy(t, a, n1, n2), p, rtol=0, atol=1e-12)
        np.testing.assert_allclose(lost.test_accuracy(p, t, n1, n2), a, rtol=0, atol=1e-12)
        low, high = lost.test_accuracy_bounds(p, n1, n2)
        assert low == pytest.approx(a.min(), abs=1e-12)
        assert high == pytest.approx(a.max(), abs=1e-12)
        # the closed form of the issue: [max(0, (N p - N1)/N2), min(1, N p / N2)]
        assert low == pytest.approx(max(0, (n_correct - n1) / n2), abs=1e-12)
        assert high == pytest.approx(min(1, n_correct / n2), abs=1e-12)
        # training at least as good as test: the attainable maximum is then max{a : t >= a}
        ok = t >= a - 1e-12
        lo2, hi2 = lost.test_accuracy_bounds(p, n1, n2, train_at_least_test=True)
        assert lo2 == pytest.approx(a[ok].min(), abs=1e-12)
        assert a[ok].max() <= hi2 + 1e-12
        assert hi2 - a[ok].max() < 1 / n2  # tight up to the count granularity


def test_bounds_with_an_assumed_training_range_by_enumeration():
    n, n2 = 10, 4
    n1 = n - n2
    masks = all_splits(n, n2)
    correct = np.arange(n) < 7
    a = (masks & correct).sum(axis=1) / n2
    t = (~masks & correct).sum(axis=1) / n1
    for t_lo, t_hi in [(3 / 6, 5 / 6), (4 / 6, 1.0), (0.5, 0.5)]:
        ok = (t >= t_lo - 1e-12) & (t <= t_hi + 1e-12)
        low, high = lost.test_accuracy_bounds(
            0.7, n1, n2, train_accuracy_low=t_lo, train_accuracy_high=t_hi
        )
        assert (low, high) == pytest.approx((a[ok].min(), a[ok].max()), abs=1e-12)


def test_identity_in_exact_rational_arithmetic():
    # 800 training rows at 99.5 %, 200 test rows at 81.5 %: p = (796 + 163) / 1000
    p = Fraction(796 + 163, 1000)
    assert lost.data_accuracy(0.995, 0.815, 800, 200) == pytest.approx(float(p), abs=1e-15)
    assert lost.test_accuracy(float(p), 0.995, 800, 200) == pytest.approx(0.815, abs=1e-12)
    # the CLI example: p = 0.95, N1 = 800, N2 = 200
    assert lost.test_accuracy_bounds(0.95, 800, 200) == pytest.approx((0.75, 1.0), abs=1e-12)
    assert lost.test_accuracy(0.95, 1.0, 800, 200) == pytest.approx(0.75, abs=1e-12)
    # an error d in the assumed training accuracy moves the answer by d N1 / N2
    d = 0.01
    shift = lost.test_accuracy(0.95, 1.0 - d, 800, 200) - lost.test_accuracy(0.95, 1.0, 800, 200)
    assert shift == pytest.approx(d * 800 / 200, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    n1=st.integers(0, 500),
    n2=st.integers(1, 500),
    t=st.floats(0, 1),
    a=st.floats(0, 1),
)
def test_round_trip_and_containment(n1, n2, t, a):
    p = (n1 * t + n2 * a) / (n1 + n2)
    p = min(max(p, 0.0), 1.0)
    assert lost.data_accuracy(t, a, n1, n2) == pytest.approx(p, abs=1e-12)
    assert lost.test_accuracy(p, t, n1, n2) == pytest.approx(a, abs=1e-9)
    low, high = lost.test_accuracy_bounds(p, n1, n2)
    assert low - 1e-9 <= a <= high + 1e-9


# --------------------------------------------------------------------------- the article's estimator
def test_one_batch_over_all_subsets_has_mean_p_and_the_stated_variance():
    """k = 1: average over all C(N, N2) equally likely batches, exactly."""
    n, n2 = 11, 4
    correct = np.array([1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0], dtype=bool)
    acc = (all_splits(n, n2) & correct).sum(axis=1) / n2
    p = correct.mean()
    mom = lost.estimator_moments(p, n, n2, 1)
    assert acc.mean() == pytest.approx(mom.a_hat_mean, abs=1e-12)
    assert acc.std() == pytest.approx(mom.a_hat_sd, abs=1e-12)
    # the hypergeometric distribution gives the same
    hyper = stats.hypergeom(n, int(correct.sum()), n2)
    assert mom.a_hat_sd == pytest.approx(hyper.std() / n2, rel=1e-12)


@pytest.mark.parametrize("method", ["rows", "counts"])
@pytest.mark.parametrize("k", [1, 10])
def test_estimators_expectation_matches_formula_by_simulation(method, k):
    """E[a_hat] = p, E[alpha_printed] = p/k^2, E[alpha_intended] = p; sd as stated.

    Tolerance: 5 standard errors for the means (R = 20000 draws), 5 % for the sds
    (the sd of a sample sd is about sd / sqrt(2R) = 0.5 %).
    """
    n, n2, reps = 60, 12, 20_000
    correct = np.zeros(n, dtype=bool)
    correct[:48] = True  # p = 0.8
    test_mask = np.zeros(n, dtype=bool)
    test_mask[40:52] = True  # the real test set: rows 40..47 right, 48..51 wrong: a = 8/12
    a, p = correct[test_mask].mean(), correct.mean()
    assert (a, p) == (8 / 12, 0.8)
    draws = lost.batch_accuracy(correct, n2, k, reps=reps, method=method, seed=SEED)
    mom = lost.estimator_moments(p, n, n2, k)
    se = mom.a_hat_sd / np.sqrt(reps)
    assert abs(draws.mean() - p) < 5 * se
    assert draws.std(ddof=1) == pytest.approx(mom.a_hat_sd, rel=0.05)
    printed = lost.corrected_alpha(draws, p, k, method="printed")
    intended = lost.corrected_alpha(draws, p, k, method="intended")
    assert abs(printed.mean() - p / k**2) < 5 * se / k
    assert abs(intended.mean() - p) < 5 * se * k
    assert mom.alpha_printed_mean == pytest.approx(p / k**2)
    if k > 1:
        # the article's claim E[alpha] = a fails, far beyond simulation noise
        assert abs(intended.mean() - a) > 20 * se * k
        assert abs(printed.mean() - a) > 0.5


def test_corrected_alpha_algebra():
    # under the article's own assumption E[a_hat] = a/k + p(1 - 1/k):
    a, p, k = 0.7, 0.9, 5
    claimed = lost.article_expectation(a, p, k)
    assert claimed == pytest.approx(a / k + p * (1 - 1 / k))
    assert lost.corrected_alpha(claimed, p, k, method="printed") == pytest.approx(a / k**2)  # not a
    assert lost.corrected_alpha(claimed, p, k, method="intended") == pytest.approx(a)
    assert lost.corrected_alpha(0.9, 0.9, 1) == pytest.approx(0.9)


# --------------------------------------------------------------------------- the key assumption
@pytest.mark.parametrize(
    ("n", "n2", "k"), [(10, 3, 1), (10, 3, 120), (569, 114, 10**6), (30, 15, 7)]
)
def test_prob_test_set_drawn_against_mpmath(n, n2, k):
    with mpmath.workdps(50):  # scoped: a global setting would leak into other test modules
        c = mpmath.binomial(n, n2)
        exact = 1 - (1 - 1 / c) ** k
        log10_c = mpmath.log10(c)
    assert lost.prob_test_set_drawn(n, n2, k) == pytest.approx(float(exact), rel=1e-10)
    assert lost.log10_subsets(n, n2) == pytest.approx(float(log10_c), rel=1e-12)


def test_batches_needed_by_search():
    for n, n2, q in [(10, 3, 0.5), (8, 2, 0.9), (6, 3, 0.99), (5, 5, 0.5)]:
        k = int(lost.batches_needed(n, n2, q))
        miss = 1 - 1 / Fraction(math.comb(n, n2))
        assert 1 - miss**k >= q
        assert k == 1 or 1 - miss ** (k - 1) < q
    # huge C: log10 k = log10 C + log10 ln 2 for q = 1/2
    assert lost.batches_needed(569, 114, 0.5, log10=True) == pytest.approx(
        float(mpmath.log10(mpmath.binomial(569, 114)) + mpmath.log10(mpmath.log(2))), rel=1e-12
    )


def test_expectation_given_drawn_by_enumerating_all_batch_triples():
    """Exact E[a_hat | test set among k = 3 batches] over all C^3 ordered triples."""
    n, n2, k = 6, 2, 3
    masks = all_splits(n, n2)
    correct = np.array([1, 0, 1, 1, 0, 1], dtype=bool)
    test = masks[4]
    acc = (masks & correct).sum(axis=1) / n2
    is_test = np.all(masks == test, axis=1)
    idx = np.array(list(itertools.product(range(len(masks)), repeat=k)))
    a_hat = acc[idx].mean(axis=1)
    drawn = is_test[idx].any(axis=1)
    a, p = correct[test].mean(), correct.mean()
    exact = a_hat[drawn].mean()
    assert lost.expectation_given_drawn(a, p, n, n2, k) == pytest.approx(exact, abs=1e-12)
    assert drawn.mean() == pytest.approx(lost.prob_test_set_drawn(n, n2, k), abs=1e-12)
    assert a_hat.mean() == pytest.approx(p, abs=1e-12)  # unconditionally E[a_hat] = p
    # the article's formula is not exact here (the test set can come twice; the others avoid it)
    assert abs(lost.article_expectation(a, p, k) - exact) > 1e-3


def test_key_assumption_simulation_on_a_tiny_data_set():
    """N = 10, N2 = 3: C = 120 test sets; with k = 120 batches P(drawn) = 1 - (119/120)^120."""
    correct = np.array([1, 0, 0, 1, 1, 1, 1, 1, 1, 0], dtype=bool)
    test_mask = np.arange(10) < 3
    reps = 20_000
    res = lost.simulate_key_assumption(correct, test_mask, 120, reps, seed=SEED)
    prob = res.prob_drawn
    assert prob == pytest.approx(1 - (119 / 120) ** 120, rel=1e-12)
    assert abs(res.drawn.mean() - prob) < 5 * math.sqrt(prob * (1 - prob) / reps)
    # copies J ~ Binomial(k, 1/C): E[J] = k/C = 1, var about 1
    assert abs(res.copies.mean() - 1.0) < 5 * math.sqrt(1.0 / reps)
    drawn = res.drawn
    sub = res.a_hat[drawn]
    assert abs(sub.mean() - res.expectation_given_drawn) < 5 * sub.std() / math.sqrt(sub.size)
    sd = lost.estimator_moments(0.7, 10, 3, 120).a_hat_sd
    assert abs(res.a_hat.mean() - 0.7) < 5 * sd / math.sqrt(reps)


def test_edge_case_where_the_test_set_is_the_whole_data_set():
    """N2 = N: one possible test set, always drawn; every batch is the whole data set."""
    correct = np.array([1, 0, 1, 1, 0], dtype=bool)
    assert lost.prob_test_set_drawn(5, 5, 3) == 1.0
    assert lost.batches_needed(5, 5, 0.9) == 1.0
    assert lost.expectation_given_drawn(0.6, 0.6, 5, 5, 4) == pytest.approx(0.6)
    draws = lost.batch_accuracy(correct, 5, 3, reps=10, seed=SEED)
    np.testing.assert_allclose(draws, 0.6)
    assert lost.estimator_moments(0.6, 5, 5, 3).a_hat_sd == 0.0
    assert lost.test_accuracy_bounds(0.6, 0, 5) == pytest.approx((0.6, 0.6))


# --------------------------------------------------------------------------- confidence interval
def test_interval_is_the_union_of_clopper_pearson_over_possible_test_counts():
    n1, n2, level = 40, 25, 0.9
    for n_correct in [0, 10, 30, 50, 65]:
        p = n_correct / (n1 + n2)
        counts = range(max(0, n_correct - n1), min(n2, n_correct) + 1)  # every admissible K2
        ends = np.array([cp_scipy(k2, n2, level) for k2 in counts])
        low, high = lost.test_accuracy_interval(p, n1, n2, alpha=1 - level)
        assert low == pytest.approx(ends[:, 0].min(), abs=1e-9)
        assert high == pytest.approx(ends[:, 1].max(), abs=1e-9)
    # with the training accuracy known, it is the interval of the one known count
    low, high = lost.test_accuracy_interval(0.95, 800, 200, train_accuracy=1.0, alpha=0.05)
    assert (low, high) == pytest.approx(cp_scipy(150, 200, 0.95), abs=1e-9)


def test_interval_coverage_whatever_the_training_rows_do():
    """The model's accuracy on new data is pi; test count ~ Binomial(N2, pi); training rows arbitrary."""
    gen = np.random.default_rng(SEED)
    n1, n2, pi, level, reps = 150, 40, 0.8, 0.9, 4000
    # a memoriser, an anti-memoriser, and training counts that vary at random
    for train_correct in (n1, 0, gen.integers(0, n1 + 1, reps)):
        k2 = gen.binomial(n2, pi, reps)
        p = (train_correct + k2) / (n1 + n2)
        low, high = lost.test_accuracy_interval(p, n1, n2, alpha=1 - level)
        cover = np.mean((low <= pi) & (pi <= high))
        assert cover >= level - 3 * math.sqrt(level * (1 - level) / reps)
    # with the training accuracy known the interval is exactly the Clopper-Pearson one
    k2 = gen.binomial(n2, pi, reps)
    low, _ = lost.test_accuracy_interval(
        (n1 + k2) / (n1 + n2), n1, n2, train_accuracy=1.0, alpha=1 - level
    )
    expected_low = np.array([cp_scipy(int(j), n2, level)[0] for j in k2[:50]])
    np.testing.assert_allclose(low[:50], expected_low, atol=1e-9)


def test_exact_coverage_agrees_with_simulation_and_is_at_least_the_level():
    gen = np.random.default_rng(SEED + 1)
    n1, n2, level, reps = 90, 30, 0.9, 20_000
    pis = np.array([0.05, 0.5, 0.83, 0.97])
    for k1, known in [(n1, False), (0, False), (45, True)]:
        exact = lost.interval_coverage(pis, n1, n2, k1, alpha=1 - level, train_known=known)
        assert np.all(exact >= level - 1e-12)
        for pi, c in zip(pis, exact, strict=True):
            k2 = gen.binomial(n2, pi, reps)
            t = k1 / n1 if known else None
            low, high = lost.test_accuracy_interval(
                (k1 + k2) / (n1 + n2), n1, n2, train_accuracy=t, alpha=1 - level
            )
            sim = np.mean((low <= pi) & (pi <= high))
            assert abs(sim - c) < 5 * math.sqrt(max(c * (1 - c), 1e-4) / reps)


# --------------------------------------------------------------------------- fresh data
def test_fresh_expected_width_against_a_direct_sum():
    for m, pi in [(30, 0.8), (200, 0.75), (1, 0.5)]:
        direct = sum(
            stats.binom.pmf(j, m, pi) * (cp_scipy(j, m, 0.95)[1] - cp_scipy(j, m, 0.95)[0])
            for j in range(m + 1)
        )
        assert lost.fresh_expected_width(m, pi) == pytest.approx(direct, abs=1e-9)
    both = lost.fresh_expected_width(np.array([30, 200]), 0.8)
    assert both[0] == pytest.approx(lost.fresh_expected_width(30, 0.8), abs=1e-12)


def test_fresh_rows_for_width_is_the_first_size_that_reaches_it():
    for w, pi in [(0.25, 0.875), (0.1, 0.9), (0.5, 0.5)]:
        m = int(lost.fresh_rows_for_width(w, pi))
        assert lost.fresh_expected_width(m, pi) <= w
        assert lost.fresh_expected_width(m - 1, pi) > w if m > 1 else True
    assert lost.fresh_rows_for_width(1e-6, 0.5, max_rows=100) == float("inf")


# --------------------------------------------------------------------------- fitted models
def test_simulate_fitted_identity_and_memorisation():
    X, y = lost_fitted.example_data("noisy")
    sim = lost_fitted.simulate_fitted(X, y, "1nn", batches=(1, 5), reps=4, seed=SEED)
    n, n1, n2 = sim.rows, sim.train_rows, sim.test_rows
    assert (n1, n2) == (480, 120)
    np.testing.assert_allclose(
        n * sim.data_accuracy, n1 * sim.train_accuracy + n2 * sim.test_accuracy, atol=1e-9
    )
    # 1-NN memorises (the data have no duplicated inputs)
    np.testing.assert_array_equal(sim.train_accuracy, 1.0)
    np.testing.assert_allclose(
        lost.test_accuracy(sim.data_accuracy, 1.0, n1, n2), sim.test_accuracy
    )
    # one-batch a_hat is a batch accuracy: a multiple of 1/N2
    np.testing.assert_allclose(sim.a_hat[:, 0] * n2, np.round(sim.a_hat[:, 0] * n2), atol=1e-9)
    records = lost_fitted.summarise_fitted(sim)
    names = {(r.estimator, r.batches) for r in records}
    assert ("alpha_printed", 5) in names and ("identity_t=1", 0) in names
    ident = next(r for r in records if r.estimator == "identity_t=1")
    assert ident.rmse == pytest.approx(0.0, abs=1e-12)


def test_logistic_regression_does_not_memorise():
    X, y = lost_fitted.example_data("noisy")
    sim = lost_fitted.simulate_fitted(X, y, "logistic", batches=(2,), reps=2, seed=SEED)
    assert np.all(sim.train_accuracy < 0.95)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: lost.test_accuracy_bounds(0.95, 800, 200, rows=1001), "rows"),
        (lambda: lost.test_accuracy_bounds(1.2, 800, 200), "data_accuracy"),
        (lambda: lost.test_accuracy_bounds(0.95, -1, 200), "train_rows"),
        (lambda: lost.test_accuracy_bounds(0.95, 800, 0), "test_rows"),
        (
            lambda: lost.test_accuracy_bounds(
                0.95, 800, 200, train_accuracy_low=0.9, train_accuracy_high=0.8
            ),
            "train_accuracy_low",
        ),
        (
            lambda: lost.test_accuracy_bounds(0.5, 800, 200, train_accuracy_low=0.9),
            "train_accuracy_low",
        ),
        (lambda: lost.test_accuracy(0.95, -0.1, 800, 200), "train_accuracy"),
        (lambda: lost.test_accuracy(0.5, 1.0, 800, 200), "train_accuracy"),  # would need a < 0
        (lambda: lost.test_accuracy(0.95, 1.0, 800.5, 200), "train_rows"),
        (lambda: lost.data_accuracy(0.9, 1.5, 800, 200), "test_accuracy"),
        (lambda: lost.batch_accuracy([1, 0, 1], 4, 2), "test_rows"),
        (lambda: lost.batch_accuracy([1, 0, 2], 2, 2), "correct"),
        (lambda: lost.batch_accuracy([1, 0, 1], 2, 0), "batches"),
        (lambda: lost.batch_accuracy([1, 0, 1], 2, 1, method="fast"), "method"),
        (lambda: lost.corrected_alpha(0.9, 0.9, 2, method="fixed"), "method"),
        (lambda: lost.corrected_alpha(1.9, 0.9, 2), "a_hat"),
        (lambda: lost.prob_test_set_drawn(10, 11, 1), "test_rows"),
        (lambda: lost.batches_needed(10, 3, 1.0), "probability"),
        (lambda: lost.test_accuracy_interval(0.95, 800, 200, alpha=1.5), "alpha"),
        (lambda: lost.fresh_expected_width(0, 0.9), "fresh_rows"),
        (lambda: lost.interval_coverage(0.9, 10, 5, 11), "train_correct"),
        (lambda: lost.fresh_rows_for_width(-0.1, 0.9), "width"),
        (lambda: lost_fitted.make_model("svm"), "model"),
        (lambda: lost_fitted.example_data("iris"), "name"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ----------------------------------------------------------------- huge N (issue 19)
@pytest.mark.parametrize(
    ("rows", "test_rows"),
    [(10**18, 1), (10**18, 2), (10**18, 5 * 10**17), (10**9, 10**6), (10**6, 999), (2**63 - 1, 3)],
)
def test_log10_subsets_is_exact_for_huge_n(rows, test_rows):
    with mpmath.workdps(40):
        ref = mpmath.log10(mpmath.binomial(rows, test_rows))
    assert lost.log10_subsets(rows, test_rows) == pytest.approx(float(ref), rel=1e-14)


def test_prob_drawn_and_batches_needed_at_n_1e18():
    """They returned 1.0 and 1 at N = 1e18 (gammaln lost every digit); the true values:"""
    with mpmath.workdps(60):
        c = mpmath.binomial(10**18, 2)
        p_ref = 1 - (1 - 1 / c) ** (10**9)
        c1 = mpmath.mpf(10**18)
        k_ref = mpmath.ceil(mpmath.log(mpmath.mpf("0.5")) / mpmath.log(1 - 1 / c1))
    assert lost.prob_test_set_drawn(10**18, 2, 10**9) == pytest.approx(float(p_ref), rel=1e-13)
    assert lost.batches_needed(10**18, 1) == pytest.approx(float(k_ref), rel=1e-14)
    with pytest.raises(ValueError, match=r"^the number of batches exceeds 2\*\*63 - 1 for rows"):
        lost.batches_needed(10**18, 5 * 10**17)
    assert lost.batches_needed(10**18, 5 * 10**17, log10=True) == pytest.approx(
        lost.log10_subsets(10**18, 5 * 10**17) + math.log10(math.log(2)), rel=1e-15
    )


def test_fresh_expected_width_strided_sum_matches_the_full_sum():
    """Above 4096 counts in the window every s-th count is summed; the summand is smooth."""
    from heldout.accuracy.bounds import interval

    m, pi = 2_000_000, 0.9
    j = np.arange(int(m * pi - 12_000), int(m * pi + 12_000))
    lo, hi = interval(j, m, alpha=0.05)
    full = float(np.sum(stats.binom.pmf(j, m, pi) * (hi - lo)))
    assert lost.fresh_expected_width(m, pi) == pytest.approx(full, rel=1e-10)


@pytest.mark.parametrize("m", [10**12, 10**15, 10**18, 2**63 - 1])
def test_fresh_expected_width_at_huge_n_is_the_normal_width(m):
    """At huge m the Clopper-Pearson width is 2 z sqrt(pi (1 - pi) / m) to O(1/m)."""
    import time

    start = time.process_time()
    width = lost.fresh_expected_width(m, 0.9)
    assert time.process_time() - start < 10  # it used to run out of memory
    want = 2 * stats.norm.isf(0.025) * math.sqrt(0.9 * 0.1 / m)
    assert width == pytest.approx(want, rel=1e-5)
