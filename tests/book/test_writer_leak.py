"""heldout.book.mnist.writer_leak: the split designs' invariants and the cached refits (small data only)."""

from __future__ import annotations

import numpy as np
import pytest

from heldout.book.mnist import writer_leak as wl


def _groups(seed=0, g=60):
    gen = np.random.default_rng(seed)
    return np.repeat(np.arange(g), gen.integers(2, 30, size=g))


def test_group_split_keeps_groups_whole_and_sizes_near_fractions():
    groups = _groups()
    s = wl.group_split(groups, (0.8, 0.1, 0.1), seed=3)
    parts = [set(groups[p].tolist()) for p in (s.train, s.val, s.test)]
    assert not (parts[0] & parts[1]) and not (parts[0] & parts[2]) and not (parts[1] & parts[2])
    assert np.array_equal(np.sort(np.concatenate([s.train, s.val, s.test])), np.arange(groups.size))
    biggest = np.bincount(groups).max()
    for part, f in ((s.val, 0.1), (s.test, 0.1)):
        assert f * groups.size <= part.size < f * groups.size + biggest


def test_leak_design_invariants():
    groups = _groups(1)
    d = wl.leak_design(groups, test_groups=0.25, seed=4)
    test_groups = set(d.test_groups.tolist())
    assert set(groups[d.test].tolist()) == test_groups
    assert not set(groups[d.train_disjoint].tolist()) & test_groups
    assert len(d.train_leaky) == len(d.train_disjoint)
    assert not set(d.test.tolist()) & set(d.train_leaky.tolist())
    seen = np.setdiff1d(np.flatnonzero(np.isin(groups, d.test_groups)), d.test)
    assert np.isin(seen, d.train_leaky).all()
    for g in test_groups:  # half of each test group, rounded up, is in the test set
        m = int(np.sum(groups == g))
        assert int(np.sum(groups[d.test] == g)) == (m + 1) // 2


def test_fit_predict_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("HELDOUT_CACHE_DIR", str(tmp_path))
    gen = np.random.default_rng(0)
    centres = gen.integers(0, 256, size=(3, 784))
    y = np.repeat(np.arange(3), 20)
    X = np.clip(centres[y] + gen.normal(0, 5, size=(60, 784)), 0, 255).astype(np.uint8)
    Xt = centres.astype(np.uint8)
    for model in wl.LEAK_MODELS:
        first = wl.fit_predict(model, X, y, Xt)
        assert first.tolist() == [0, 1, 2]
    assert len(list((tmp_path / "predictions").glob("*.npz"))) == 2
    import sklearn.neighbors

    def boom(*args, **kwargs):
        raise AssertionError("refitted instead of reading the cache")

    monkeypatch.setattr(sklearn.neighbors, "KNeighborsClassifier", boom)
    assert wl.fit_predict("knn_3", X, y, Xt).tolist() == [0, 1, 2]


def test_bad_input():
    with pytest.raises(ValueError, match="fractions"):
        wl.group_split(_groups(), (0.5, 0.3, 0.3))
    with pytest.raises(ValueError, match="groups"):
        wl.group_split([1, 1, 2, 2], (0.8, 0.1, 0.1))
    with pytest.raises(ValueError, match="test_groups"):
        wl.leak_design(_groups(), test_groups=1.5)
    with pytest.raises(ValueError, match="model"):
        wl.fit_predict("cnn", np.zeros((2, 784), np.uint8), [0, 1], np.zeros((1, 784), np.uint8))
