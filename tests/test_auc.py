"""heldout.auc against the O(n^2) definition, scikit-learn, scipy and simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

from heldout import auc as A


def _definition(y, scores):
    """DeLong's quantities straight from the definition: psi over all n1 x n0 pairs."""
    y = np.asarray(y, bool)
    s = np.atleast_2d(np.asarray(scores, float))
    v10, v01 = [], []
    for row in s:
        x, z = row[y], row[~y]
        psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
    v10, v01 = np.array(v10), np.array(v01)
    n1, n0 = v10.shape[1], v01.shape[1]
    cov = (
        np.cov(v10, ddof=1).reshape(len(s), len(s)) / n1
        + np.cov(v01, ddof=1).reshape(len(s), len(s)) / n0
    )
    return v10.mean(axis=1), cov, v10, v01


def _data(seed, n, prevalence=0.4, decimals=1, models=1):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < prevalence
    y[:2] = [True, False]
    s = rng.normal(size=(models, n)) + 1.0 * y
    return y, np.round(s, decimals)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 120),
    decimals=st.sampled_from([0, 1, 3]),
)
def test_auc_and_placements_match_definition_and_sklearn(seed, n, decimals):
    y, s = _data(seed, n, decimals=decimals)
    auc_def, cov_def, v10_def, v01_def = _definition(y, s)
    v10, v01 = A.placement_values(y, s[0])
    np.testing.assert_allclose(v10, v10_def[0], atol=1e-12)
    np.testing.assert_allclose(v01, v01_def[0], atol=1e-12)
    assert A.auc(y, s[0]) == pytest.approx(roc_auc_score(y, s[0]), abs=1e-12)
    d = A.delong(y, s[0])
    assert d.auc == pytest.approx(auc_def[0], abs=1e-12)
    if v10.size > 1 and v01.size > 1:
        assert d.cov == pytest.approx(cov_def[0, 0], abs=1e-14)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_delong_covariance_of_three_models_matches_definition(seed):
    y, s = _data(seed, 150, models=3, decimals=1)
    s[1] = s[0] + np.round(np.random.default_rng(seed).normal(size=150), 1)  # correlated
    auc_def, cov_def, _, _ = _definition(y, s)
    d = A.delong(y, s)
    np.testing.assert_allclose(d.auc, auc_def, atol=1e-12)
    np.testing.assert_allclose(d.cov, cov_def, atol=1e-14)
    for i in range(3):
        assert d.auc[i] == pytest.approx(roc_auc_score(y, s[i]), abs=1e-12)


def test_auc_difference_matches_independent_z_test():
    y, s = _data(7, 300, models=2, decimals=2)
    auc_def, cov_def, _, _ = _definition(y, s)
    var = cov_def[0, 0] + cov_def[1, 1] - 2 * cov_def[0, 1]
    z = (auc_def[0] - auc_def[1]) / math.sqrt(var)
    d = A.auc_difference(y, s[0], s[1], alpha=0.1)
    assert d.value == pytest.approx(auc_def[0] - auc_def[1], abs=1e-12)
    assert d.statistic == pytest.approx(z, rel=1e-9)
    assert d.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9)
    half = stats.norm.isf(0.05) * math.sqrt(var)
    assert d.high - d.value == pytest.approx(half, rel=1e-9)


def test_identical_models_give_zero_difference_and_p_one():
    y, s = _data(8, 100)
    d = A.auc_difference(y, s[0], s[0])
    assert (d.value, d.low, d.high, d.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_logit_interval_formula_and_range():
    y, s = _data(9, 400, decimals=3)
    e = A.auc_interval(y, s[0], alpha=0.05)
    d = A.delong(y, s[0])
    z = stats.norm.isf(0.025)
    lo = d.auc / (1 - d.auc)
    half = z * math.sqrt(d.cov) / (d.auc * (1 - d.auc))
    assert e.low == pytest.approx(lo * math.exp(-half) / (1 + lo * math.exp(-half)), rel=1e-12)
    assert e.high == pytest.approx(lo * math.exp(half) / (1 + lo * math.exp(half)), rel=1e-12)
    w = A.auc_interval(y, s[0], method="wald")
    assert w.high - w.value == pytest.approx(z * math.sqrt(d.cov), rel=1e-12)
    # near 1 the Wald interval passes 1, the logit one does not
    y2 = np.r_[np.ones(20, bool), np.zeros(20, bool)]
    s2 = np.r_[np.linspace(0.5, 3, 20), np.linspace(-3, 0.6, 20)]
    assert A.auc_interval(y2, s2, method="wald").high > 1
    assert A.auc_interval(y2, s2).high < 1


def test_perfect_separation_gives_a_point_interval():
    e = A.auc_interval([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])
    assert (e.value, e.low, e.high, e.se) == (1.0, 1.0, 1.0, 0.0)


def test_binormal_q_matches_bivariate_normal_cdf():
    for a in (0.55, 0.7, 0.85, 0.97):
        h = stats.norm.ppf(a)
        ref = stats.multivariate_normal(mean=[0, 0], cov=[[1, 0.5], [0.5, 1]]).cdf([h, h])
        assert A._binormal_q(np.array(a)) == pytest.approx(ref, abs=1e-6)


def test_variance_models_at_half_and_obuchowski_null():
    n1, n0 = 40, 90
    # continuous scores, A = 1/2: Var = (n1 + n0 + 1) / (12 n1 n0) exactly
    for method in ("hanley-mcneil", "binormal"):
        assert A.auc_variance(0.5, n1, n0, method) == pytest.approx((n1 + n0 + 1) / (12 * n1 * n0))
    # Obuchowski's V at A = 1/2 is 0.0792 (1 + 1/kappa), the constant pROC uses
    assert A.auc_variance(0.5, n1, n0, "obuchowski") * n1 == pytest.approx(
        0.0792 * (1 + n1 / n0), rel=1e-12
    )


def test_hanley_mcneil_formula_by_hand():
    a, n1, n0 = 0.8, 50, 120
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    ref = (a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n0 - 1) * (q2 - a * a)) / (n1 * n0)
    assert A.auc_variance(a, n1, n0) == pytest.approx(ref, rel=1e-14)


def test_binormal_variance_matches_simulation():
    rng = np.random.default_rng(10)
    n1, n0, a = 30, 70, 0.85
    mu = math.sqrt(2) * stats.norm.ppf(a)
    reps = 20_000
    x = rng.normal(mu, 1, (reps, n1))
    z = rng.normal(0, 1, (reps, n0))
    ranks = stats.rankdata(np.hstack([x, z]), axis=1)[:, :n1].sum(axis=1)
    aucs = (ranks - n1 * (n1 + 1) / 2) / (n1 * n0)
    var = aucs.var(ddof=1)
    se_of_var = var * math.sqrt(2 / (reps - 1))
    assert abs(A.auc_variance(a, n1, n0, "binormal") - var) < 4 * se_of_var
    # Hanley-McNeil assumes other score distributions: here it is visibly off
    assert abs(A.auc_variance(a, n1, n0, "hanley-mcneil") - var) > 4 * se_of_var


def test_auc_size_is_the_smallest_that_works():
    for method in A.AUC_VARIANCE_METHODS:
        s = A.auc_size(0.85, 0.03, 0.2, method=method)
        z = stats.norm.isf(0.025)
        assert s.n == s.n_positive + s.n_negative
        assert s.n_negative == math.ceil(s.n_positive * 4 - 1e-9)
        ok = z * math.sqrt(A.auc_variance(0.85, s.n_positive, s.n_negative, method)) <= 0.03
        before = z * math.sqrt(
            A.auc_variance(0.85, s.n_positive - 1, math.ceil((s.n_positive - 1) * 4), method)
        )
        assert ok and before > 0.03
    assert A.auc_size(0.85, 0.03, 0.2, method="obuchowski").n_positive == math.ceil(
        stats.norm.isf(0.025) ** 2
        * 0.0099
        * math.exp(-((1.414 * stats.norm.ppf(0.85)) ** 2) / 2)
        * (
            (5 * (1.414 * stats.norm.ppf(0.85)) ** 2 + 8)
            + ((1.414 * stats.norm.ppf(0.85)) ** 2 + 8) / 4
        )
        / 0.03**2
    )


def test_auc_size_vectorises():
    s = A.auc_size([0.7, 0.9], 0.05, [0.1, 0.5])
    assert s.n.shape == (2,)
    assert s.n[0] == A.auc_size(0.7, 0.05, 0.1).n and s.n[1] == A.auc_size(0.9, 0.05, 0.5).n


def test_binormal_size_gives_the_width_in_simulation():
    s = A.auc_size(0.8, 0.05, 0.3, method="binormal")
    rng = np.random.default_rng(11)
    mu = math.sqrt(2) * stats.norm.ppf(0.8)
    halves = []
    for _ in range(300):
        y = np.r_[np.ones(s.n_positive, bool), np.zeros(s.n_negative, bool)]
        sc = rng.normal(size=s.n) + mu * y
        e = A.auc_interval(y, sc, method="wald")
        halves.append(e.high - e.value)
    assert np.mean(halves) == pytest.approx(0.05, rel=0.04)


def test_power_size_gives_the_power_in_simulation():
    s = A.auc_power_size(0.75, 0.3, null_auc=0.65, power=0.8, method="binormal")
    rng = np.random.default_rng(12)
    mu = math.sqrt(2) * stats.norm.ppf(0.75)
    se0 = math.sqrt(A.auc_variance(0.65, s.n_positive, s.n_negative, "binormal"))
    z = stats.norm.isf(0.05)
    reps = 1500
    y = np.r_[np.ones(s.n_positive, bool), np.zeros(s.n_negative, bool)]
    sc = rng.normal(size=(reps, s.n)) + mu * y
    ranks = stats.rankdata(sc, axis=1)[:, : s.n_positive].sum(axis=1)
    aucs = (ranks - s.n_positive * (s.n_positive + 1) / 2) / (s.n_positive * s.n_negative)
    power = np.mean((aucs - 0.65) / se0 > z)
    assert abs(power - 0.8) < 4 * math.sqrt(0.16 / reps) + 0.01


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda: A.auc([1, 1, 1], [0.1, 0.2, 0.3]), "negative"),
        (lambda: A.auc([0, 0], [0.1, 0.2]), "positive"),
        (lambda: A.auc([0, 1, 2], [0.1, 0.2, 0.3]), "binary"),
        (lambda: A.auc([0, 1], [0.1, np.nan]), "NaN"),
        (lambda: A.auc([0, 1], [0.1, np.inf]), "infinite"),
        (lambda: A.auc([0, 1, 1], [0.1, 0.2]), "labels have 3"),
        (lambda: A.auc([], []), "empty"),
        (lambda: A.auc([0, 1], ["a", "b"]), "numbers"),
        (lambda: A.auc_interval([0, 1], [0.1, 0.2], alpha=1.5), "alpha"),
        (lambda: A.auc_interval([0, 1], [0.1, 0.2], alpha=[0.1, 0.2]), "single number"),
        (lambda: A.auc_interval([0, 1], [0.1, 0.2], method="exact"), "method"),
        (lambda: A.auc_size(0.85, 0.0, 0.2), "half_width"),
        (lambda: A.auc_size(1.0, 0.03, 0.2), "auc"),
        (lambda: A.auc_size(0.85, 0.03, 1.0), "prevalence"),
        (lambda: A.auc_size(0.85, 1e-9, 0.2), "exceeds"),
        (lambda: A.auc_power_size(0.6, 0.3, null_auc=0.7), "exceed null_auc"),
        (lambda: A.auc_variance(0.8, 0, 10), "n_positive"),
        (lambda: A.auc_variance(0.8, 10, 2**64), "n_negative"),
    ],
)
def test_bad_input_raises_value_error_naming_it(call, word):
    with pytest.raises(ValueError, match=word):
        call()
