"""Tests of heldout.resampling.cv_scores: the splits, the paired scores and the kNN fast path."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier

from heldout.resampling.cv_scores import paired_scores, predict_splits, split_correct, splits


@pytest.mark.parametrize(
    "design, kw, count",
    [
        ("kfold", {"k": 7}, 7),
        ("kfold", {"k": 5, "repeats": 3}, 15),
        ("5x2", {}, 10),
        ("resampled", {"repeats": 4, "test_fraction": 0.25}, 4),
    ],
)
def test_splits_partition_the_rows(design, kw, count):
    n = 53
    parts = splits(n, design, seed=3, **kw)
    assert len(parts) == count
    for tr, te in parts:
        assert len(np.intersect1d(tr, te)) == 0 and len(tr) + len(te) == n
    if design in ("kfold", "5x2"):
        per = kw.get("k", 2)
        for r in range(count // per):  # each replication's test parts cover every row once
            tests = np.concatenate([te for _, te in parts[r * per : (r + 1) * per]])
            assert np.array_equal(np.sort(tests), np.arange(n))
            sizes = [len(te) for _, te in parts[r * per : (r + 1) * per]]
            assert max(sizes) - min(sizes) <= 1
    else:
        assert all(len(te) == round(n * 0.25) for _, te in parts)


@pytest.mark.parametrize("k", [1, 3, 4])
def test_knn_fast_path_predicts_what_scikit_learn_predicts(k):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(120, 3))
    y = rng.integers(0, 3, size=120)
    X_new = rng.normal(size=(80, 3))
    parts = splits(120, "kfold", k=6, seed=2)
    fast, fast_new = predict_splits(KNeighborsClassifier(k), X, y, parts, X_new)
    for (tr, te), p, pn in zip(parts, fast, fast_new, strict=True):
        model = clone(KNeighborsClassifier(k, algorithm="brute")).fit(X[tr], y[tr])
        assert np.array_equal(model.predict(X[te]), p)
        assert np.array_equal(model.predict(X_new), pn)


def test_paired_scores_match_a_plain_scikit_learn_loop():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(90, 4))
    y = (X[:, 0] - X[:, 2] + rng.normal(size=90) > 0).astype(int)
    s = paired_scores(
        LogisticRegression(), GaussianNB(), X, y, "5x2", columns_a=[0, 1], columns_b=[2, 3], seed=8
    )
    parts = splits(90, "5x2", seed=8)
    for j, (tr, te) in enumerate(parts):
        a = LogisticRegression().fit(X[tr][:, [0, 1]], y[tr]).predict(X[te][:, [0, 1]])
        b = GaussianNB().fit(X[tr][:, [2, 3]], y[tr]).predict(X[te][:, [2, 3]])
        assert s.scores_a[j] == pytest.approx(np.mean(a == y[te]))
        assert s.scores_b[j] == pytest.approx(np.mean(b == y[te]))
    assert s.test_fraction == 0.5 and s.design == "5x2"


def test_split_correct_is_per_item():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    ca, cb = split_correct(KNeighborsClassifier(1), GaussianNB(), X, y, test_fraction=0.25, seed=1)
    ((tr, te),) = splits(60, "resampled", repeats=1, test_fraction=0.25, seed=1)
    ref = KNeighborsClassifier(1).fit(X[tr], y[tr]).predict(X[te]) == y[te]
    assert np.array_equal(ca, ref) and cb.shape == (15,)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: splits(1, "kfold"), "n"),
        (lambda: splits(10, "kfold", k=1), "k"),
        (lambda: splits(10, "kfold", k=11), "k"),
        (lambda: splits(10, "bootstrap"), "design"),
        (lambda: splits(10, "resampled"), "test_fraction"),
        (lambda: splits(10, "resampled", test_fraction=0.01), "test_fraction"),
        (lambda: splits(10, "resampled", test_fraction=[0.2, 0.3]), "test_fraction"),
        (lambda: splits([10, 12], "kfold"), "n"),
        (lambda: splits(2**64, "kfold"), "n"),
        (lambda: paired_scores(GaussianNB(), GaussianNB(), np.zeros(5), np.zeros(5)), "X"),
        (lambda: paired_scores(GaussianNB(), GaussianNB(), np.zeros((5, 2)), np.zeros(4)), "y"),
        (
            lambda: paired_scores(GaussianNB(), GaussianNB(), np.full((5, 2), np.nan), np.zeros(5)),
            "X",
        ),
        (
            lambda: paired_scores(
                GaussianNB(), GaussianNB(), np.zeros((6, 2)), np.arange(6) % 2, k=2, columns_a=[3]
            ),
            "columns_a",
        ),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()
