"""Tests of heldout.resampling.cv_simulation: the problem, and the tests' type I error by simulation.

Tolerances: a rate estimated from ``reps`` data sets has Monte Carlo standard error
``sqrt(alpha (1 - alpha) / reps)`` under the level; a test "holds its level" here when its
rate is at most ``alpha + 4`` such errors, and "is inflated" when a one-sided binomial test
of the rejection count against ``alpha`` has p-value below 1e-4.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.neighbors import KNeighborsClassifier

from heldout.resampling.cv_simulation import TESTS, TwoViews, simulate_tests


def test_two_views_distribution():
    p = TwoViews(features=3, separation_a=2.0, separation_b=1.0, shared=0.6)
    X, y = p.sample(200_000, seed=1)
    s = 2 * y - 1
    # class means +-mu, |2 mu| = separation
    mu_a = (X[:, :3] * s[:, None]).mean(axis=0)
    assert np.allclose(mu_a, 1.0 / math.sqrt(3), atol=0.01)
    assert np.allclose((X[:, 3:] * s[:, None]).mean(axis=0), 0.5 / math.sqrt(3), atol=0.01)
    # within-class: unit variances, correlation `shared` between matching coordinates
    Z = X - np.concatenate([mu_a, (X[:, 3:] * s[:, None]).mean(axis=0)]) * s[:, None]
    assert np.allclose(Z.var(axis=0), 1.0, atol=0.02)
    assert np.corrcoef(Z[:, 0], Z[:, 3])[0, 1] == pytest.approx(0.6, abs=0.01)
    assert abs(np.corrcoef(Z[:, 0], Z[:, 4])[0, 1]) < 0.01
    # the Bayes rule on view A errs with probability Phi(-separation/2)
    err = np.mean((X[:, :3].sum(axis=1) > 0) != (y == 1))
    assert err == pytest.approx(stats.norm.cdf(-1.0), abs=4 * math.sqrt(0.16 * 0.84 / 200_000))
    assert p.bayes_error("a") == pytest.approx(stats.norm.cdf(-1.0))


@pytest.fixture(scope="module")
def null_sim():
    return simulate_tests(
        TwoViews(shared=0.5),
        KNeighborsClassifier(1),
        KNeighborsClassifier(1),
        n=300,
        reps=400,
        seed=20261122,
    )


def test_corrected_tests_and_mcnemar_hold_their_level(null_sim):
    tol = 0.05 + 4 * math.sqrt(0.05 * 0.95 / null_sim.reps)
    for key in ("corrected_kfold", "corrected_resampled", "mcnemar"):
        assert null_sim.rejection[key] <= tol, (key, null_sim.rejection[key])


def test_naive_tests_are_inflated(null_sim):
    for key in ("naive_kfold", "naive_resampled"):
        count = round(null_sim.rejection[key] * null_sim.reps)
        assert stats.binom.sf(count - 1, null_sim.reps, 0.05) < 1e-4, (key, null_sim.rejection[key])
    assert null_sim.rejection["naive_resampled"] > 0.3  # badly


def test_rates_are_the_shares_of_small_p_values(null_sim):
    assert set(null_sim.rejection) == set(TESTS)
    for key, p in null_sim.p_values.items():
        assert p.shape == (400,) and np.all((p >= 0) & (p <= 1))
        assert null_sim.rejection[key] == np.mean(p <= 0.05)
        r = null_sim.rejection[key]
        assert null_sim.se[key] == pytest.approx(math.sqrt(r * (1 - r) / 400))


def test_null_holds_and_alternative_is_detected():
    """By symmetry the true gap is zero; with a useless view B it is positive and power rises."""
    kw = dict(n=200, reps=80, track_truth=True, eval_rows=1000, seed=7)
    null = simulate_tests(TwoViews(), KNeighborsClassifier(1), KNeighborsClassifier(1), **kw)
    for key in ("corrected_kfold", "5x2cv", "mcnemar"):
        assert abs(null.true_gap[key]) <= 4 * null.true_gap_se[key] + 1e-9
    alt = simulate_tests(
        TwoViews(separation_b=0.0), KNeighborsClassifier(1), KNeighborsClassifier(1), **kw
    )
    for key in ("corrected_kfold", "corrected_resampled", "mcnemar"):
        assert alt.true_gap[key] > 4 * alt.true_gap_se[key]
        assert alt.rejection[key] > null.rejection[key] + 0.2


@pytest.mark.parametrize(
    "kw, name",
    [
        ({"n": 5}, "n"),
        ({"reps": 0}, "reps"),
        ({"k": 1}, "k"),
        ({"alpha": 1.5}, "alpha"),
        ({"resample_fraction": 0}, "resample_fraction"),
        ({"resamples": [3, 4]}, "resamples"),
    ],
)
def test_bad_input(kw, name):
    with pytest.raises(ValueError, match=name):
        simulate_tests(TwoViews(), KNeighborsClassifier(1), KNeighborsClassifier(1), **kw)


@pytest.mark.parametrize(
    "kw, name",
    [
        ({"features": 0}, "features"),
        ({"separation_a": -1}, "separation_a"),
        ({"shared": 1.2}, "shared"),
        ({"separation_b": [1, 2]}, "separation_b"),
    ],
)
def test_bad_problem(kw, name):
    with pytest.raises(ValueError, match=name):
        TwoViews(**kw)


def test_default_repetitions_make_the_verdict_stable_and_the_se_is_printed(null_sim):
    # issue 25: the default is sized for the book's rule (2 se <= 0.01 at alpha 0.05)
    import inspect

    default = inspect.signature(simulate_tests).parameters["reps"].default
    assert 2 * math.sqrt(0.05 * 0.95 / default) <= 0.01 + 1e-12
    assert null_sim.level_se == pytest.approx(math.sqrt(0.05 * 0.95 / 400))
    rows = null_sim.summary()
    assert [label for label, _, _ in rows] == [TESTS[k][0] for k in null_sim.rejection]
    for (_, rate, se), key in zip(rows, null_sim.rejection, strict=True):
        assert rate == null_sim.rejection[key]
        assert se == pytest.approx(math.sqrt(rate * (1 - rate) / 400))
