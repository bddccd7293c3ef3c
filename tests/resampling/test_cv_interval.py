"""Tests of heldout.resampling.cv_interval: the intervals against literal re-implementations, and coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier

from heldout.resampling.cv_interval import naive_cv_interval, nested_cv_interval, simulate_coverage
from heldout.resampling.cv_scores import splits
from heldout.resampling.cv_simulation import TwoViews


def _data(n=60, seed=3):
    X, y = TwoViews(features=3).sample(n, seed=seed)
    return X[:, :3], y


def test_naive_interval_by_hand():
    X, y = _data()
    ci = naive_cv_interval(LogisticRegression(), X, y, k=6, alpha=0.1, seed=4)
    losses, folds = [], []
    for tr, te in splits(60, "kfold", k=6, seed=4):
        e = (LogisticRegression().fit(X[tr], y[tr]).predict(X[te]) != y[te]).astype(float)
        losses.extend(e)
        folds.append(e.mean())
    m = sum(losses) / 60
    s = math.sqrt(sum((v - m) ** 2 for v in losses) / 59)
    z = stats.norm.ppf(0.95)
    assert ci.low == pytest.approx(m - z * s / math.sqrt(60))
    assert ci.high == pytest.approx(m + z * s / math.sqrt(60))
    assert np.allclose(ci.fold_scores, folds)


def test_nested_interval_matches_the_algorithm_written_out():
    """Bates, Hastie and Tibshirani's Algorithm 1 and interval, fit by fit, with scikit-learn."""
    X, y = _data(48, seed=5)
    K, R, alpha = 4, 3, 0.1
    ci = nested_cv_interval(LogisticRegression(), X, y, k=K, reps=R, alpha=alpha, seed=9)
    gen = np.random.default_rng(9)
    a, b, e_in_all, e_out_all = [], [], [], []
    for _ in range(R):
        folds = [te for _, te in splits(48, "kfold", k=K, seed=gen)]
        for k in range(K):
            rest = [j for j in range(K) if j != k]
            e_in = []
            for j in rest:  # inner cross-validation on the folds other than k
                train = np.concatenate([folds[i] for i in rest if i != j])
                model = LogisticRegression().fit(X[train], y[train])
                e_in.extend(model.predict(X[folds[j]]) != y[folds[j]])
            train = np.concatenate([folds[i] for i in rest])
            e_out = LogisticRegression().fit(X[train], y[train]).predict(X[folds[k]]) != y[folds[k]]
            e_in, e_out = np.array(e_in, float), np.array(e_out, float)
            a.append((e_in.mean() - e_out.mean()) ** 2)
            b.append(np.var(e_out, ddof=1) / len(e_out))
            e_in_all.append(e_in)
            e_out_all.append(e_out)
    mse = np.mean(a) - np.mean(b)
    err_ncv = np.concatenate(e_in_all).mean()
    err_cv = np.concatenate(e_out_all).mean()
    se_naive = np.concatenate(e_out_all).std(ddof=1) / math.sqrt(48)
    se = min(max(math.sqrt(max(mse, 0) * (K - 1) / K), se_naive), math.sqrt(K) * se_naive)
    centre = err_ncv - (1 + (K - 2) / K) * (err_ncv - err_cv)
    z = stats.norm.ppf(1 - alpha / 2)
    assert ci.mse == pytest.approx(mse)
    assert ci.err_ncv == pytest.approx(err_ncv) and ci.err_cv == pytest.approx(err_cv)
    assert ci.low == pytest.approx(centre - z * se) and ci.high == pytest.approx(centre + z * se)


def test_knn_takes_the_fast_path_with_the_same_answer():
    X, y = _data(50, seed=6)
    fast = nested_cv_interval(KNeighborsClassifier(1), X, y, k=5, reps=2, seed=1)
    slow = nested_cv_interval(
        KNeighborsClassifier(1, algorithm="kd_tree"), X, y, k=5, reps=2, seed=1
    )
    assert (fast.low, fast.high) == pytest.approx((slow.low, slow.high))


def test_coverage_simulation():
    sim = simulate_coverage(
        TwoViews(),
        KNeighborsClassifier(1),
        n=150,
        reps=60,
        k=5,
        nested_k=5,
        nested_reps=4,
        alpha=0.1,
        eval_rows=2000,
        seed=2,
    )
    cov = sim.coverage[("nested", "Err_XY")]
    assert cov >= 0.9 - 4 * math.sqrt(0.09 / 60)
    width = lambda iv: np.mean(iv[:, 1] - iv[:, 0])  # noqa: E731
    assert width(sim.naive) < width(sim.nested)
    assert sim.err == pytest.approx(sim.err_xy.mean())
    inside = (sim.naive[:, 0] <= sim.err_xy) & (sim.err_xy <= sim.naive[:, 1])
    assert sim.coverage[("naive", "Err_XY")] == inside.mean()
    assert sim.fold_scores.shape == (60, 5)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda X, y: naive_cv_interval(LogisticRegression(), X, y, k=1), "k"),
        (lambda X, y: naive_cv_interval(LogisticRegression(), X, y, k=40), "k=40"),
        (lambda X, y: naive_cv_interval(LogisticRegression(), X, y, alpha=0), "alpha"),
        (lambda X, y: naive_cv_interval(LogisticRegression(), X, y, loss="hinge"), "loss"),
        (lambda X, y: nested_cv_interval(LogisticRegression(), X, y, k=2), "k"),
        (lambda X, y: nested_cv_interval(LogisticRegression(), X, y, reps=0), "reps"),
        (lambda X, y: nested_cv_interval(LogisticRegression(), X[:, 0], y), "X"),
        (lambda X, y: simulate_coverage(TwoViews(), LogisticRegression(), view="c"), "view"),
        (lambda X, y: simulate_coverage("data", LogisticRegression()), "problem"),
    ],
)
def test_bad_input(call, name):
    X, y = _data()
    with pytest.raises(ValueError, match=name):
        call(X, y)
