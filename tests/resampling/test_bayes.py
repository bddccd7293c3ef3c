"""heldout.resampling.bayes against baycomp's own output and by simulation."""

from __future__ import annotations

import baycomp
import numpy as np
import pytest
from scipy import optimize, stats

from heldout.resampling.bayes import _signed_rank_from_weights, correlated_t_rope, signed_rank_rope
from heldout.resampling.cv import corrected_t


@pytest.mark.parametrize(
    "folds,runs,rope", [(5, 1, 0.01), (10, 1, 0.0), (10, 3, 0.02), (2, 5, 0.005)]
)
def test_correlated_t_matches_baycomp(folds, runs, rope):
    rng = np.random.default_rng(folds * runs)
    a = 0.85 + 0.02 * rng.standard_normal(folds * runs)
    b = a - 0.01 + 0.015 * rng.standard_normal(folds * runs)
    res = correlated_t_rope(a, b, test_fraction=1 / folds, rope=rope)
    # baycomp's differences are y - x: its "left" is A better when x = a, y = b
    ref = baycomp.CorrelatedTTest.probs(a, b, rope=rope, runs=runs)
    if rope == 0:
        assert (res.a_better, res.b_better) == pytest.approx(ref, abs=1e-12)
    else:
        assert (res.a_better, res.equivalent, res.b_better) == pytest.approx(ref, abs=1e-12)


def test_without_rope_it_is_the_corrected_t_test():
    # P(A better) >= 0.95 exactly when the one-sided corrected t-test rejects at 5 %,
    # so the rule inherits that test's level (simulated in test_cv_simulation)
    rng = np.random.default_rng(1)
    for _ in range(20):
        a, b = rng.random(10), rng.random(10)
        res = correlated_t_rope(a, b, 0.1, rope=0.0)
        p = corrected_t(a, b, 0.1, alternative="greater").p_value
        assert res.a_better == pytest.approx(1 - p, abs=1e-12)


def test_constant_differences_are_a_point_mass_like_baycomp():
    a, b = np.full(5, 0.9), np.full(5, 0.88)
    res = correlated_t_rope(a, b, 0.2, rope=0.01)
    assert (res.a_better, res.equivalent, res.b_better) == (1.0, 0.0, 0.0)
    ref = baycomp.CorrelatedTTest.probs(a, b, rope=0.01)
    assert (res.a_better, res.equivalent, res.b_better) == pytest.approx(ref)


@pytest.mark.parametrize("rope", [0.0, 0.01])
def test_signed_rank_matches_baycomp_on_the_same_draws(rope):
    rng = np.random.default_rng(2)
    a = 0.8 + 0.1 * rng.random(12)
    b = a - 0.01 + 0.02 * rng.standard_normal(12)
    weights = np.random.RandomState(7).dirichlet(np.r_[0.5, np.ones(12)], 20_000)
    ours = _signed_rank_from_weights(a - b, rope, weights)
    ref = baycomp.SignedRankTest.probs(a, b, rope=rope, random_state=7, nsamples=20_000)
    if rope == 0:
        assert (ours.a_better, ours.b_better) == pytest.approx(ref, abs=1e-12)
    else:
        assert (ours.a_better, ours.equivalent, ours.b_better) == pytest.approx(ref, abs=1e-12)


def test_signed_rank_own_draws_within_monte_carlo_error_of_baycomp():
    a = np.array([0.91, 0.85, 0.78, 0.95, 0.88, 0.70, 0.83, 0.90])
    b = np.array([0.89, 0.86, 0.74, 0.93, 0.85, 0.69, 0.80, 0.88])
    ours = signed_rank_rope(a, b, rope=0.01, draws=50_000, seed=3)
    ref = baycomp.SignedRankTest.probs(a, b, rope=0.01, random_state=4, nsamples=50_000)
    se = np.sqrt(2 * 0.25 / 50_000)
    assert np.all(np.abs(np.array([ours.a_better, ours.equivalent, ours.b_better]) - ref) <= 4 * se)


def test_signed_rank_level_by_simulation():
    # What the test estimates: which region holds the largest share of the pairwise means
    # (z_i + z_j) / 2 of the differences.  With normal differences (sd 0.02, rope 0.01)
    # "above" and "inside" hold equal shares at mu* = 0.00825; there, declaring "A better"
    # (probability >= 0.95) is an error.  Its rate on 10 data sets stays within alpha +
    # 3 SEs (R = 500; book numbers with R = 2,000: 0.044 on 10 data sets, 0.050 on 30).
    sd, r = 0.02 / np.sqrt(2), 0.01
    mu = optimize.brentq(
        lambda m: stats.norm.sf(r, m, sd) - (stats.norm.cdf(r, m, sd) - stats.norm.cdf(-r, m, sd)),
        0,
        0.03,
    )
    assert mu == pytest.approx(0.00825, abs=1e-4)
    reps, rng = 500, np.random.default_rng(3)
    hits = sum(
        signed_rank_rope(rng.normal(mu, 0.02, 10), np.zeros(10), r, draws=2000, seed=rng).a_better
        >= 0.95
        for _ in range(reps)
    )
    assert hits / reps <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: correlated_t_rope([1, 2], [1, 2, 3], 0.2), "same number"),
        (lambda: correlated_t_rope([1, 2], [1, 2], 1.2), "test_fraction"),
        (lambda: correlated_t_rope([1, 2], [1, 3], 0.2, rope=-1), "rope"),
        (lambda: signed_rank_rope([1], [2]), "at least 2"),
        (lambda: signed_rank_rope([1, 2], [2, 1], prior=0), "prior"),
        (lambda: signed_rank_rope([1, 2], [2, 1], draws=5), "draws"),
        (lambda: signed_rank_rope([1, 2], [2, 1], seed="x"), "seed"),
    ],
)
def test_bad_input_names_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
