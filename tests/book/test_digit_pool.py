"""heldout.book.mnist.digit_pool: the pool is disjoint from the book's digits; truths and coverage logic.

No model is fitted here (the chapter fits them once and caches the predictions):
the coverage logic runs on a synthetic pool whose probabilities are drawn here.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score, log_loss, roc_auc_score

from heldout.book.mnist import digit_pool as D


def _synthetic_pool(n=3000, seed=1):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    proba = {}
    for name, sharp in (("logistic", 3.0), ("random_forest", 2.0)):
        logits = rng.normal(size=(n, 10))
        logits[np.arange(n), labels] += sharp
        p = np.exp(logits)
        proba[name] = (p / p.sum(axis=1, keepdims=True)).astype(np.float32)
    return D.Pool(labels, proba, 0, "test", {"logistic": True, "random_forest": True})


def test_truths_are_the_pool_metrics():
    pool = _synthetic_pool()
    t = D.pool_truths(pool, 3)
    y = pool.labels == 3
    s = pool.proba["logistic"][:, 3].astype(float)
    assert t[("auc", "logistic")] == pytest.approx(roc_auc_score(y, s))
    assert t[("f1", "logistic")] == pytest.approx(f1_score(y, pool.predicted("logistic") == 3))
    assert t[("log_loss", "logistic")] == pytest.approx(log_loss(y, s))
    assert t[("macro_f1", "logistic")] == pytest.approx(
        f1_score(pool.labels, pool.predicted("logistic"), average="macro")
    )
    assert t[("auc", "difference")] == pytest.approx(
        t[("auc", "logistic")] - t[("auc", "random_forest")]
    )
    assert t[("row", "logistic")].sum() == pytest.approx(1)


def test_pool_coverage_rows_on_a_synthetic_pool():
    pool = _synthetic_pool()
    rows = D.pool_coverage(pool, 3, test_size=1000, reps=60, bootstrap_reps=10, seed=2)
    keys = {(r["metric"], r["model"], r["method"]) for r in rows}
    assert ("auc", "logistic", "auto") in keys and ("auc", "logistic", "logit") in keys
    assert ("auc", "difference", "mover") in keys and ("log_loss", "logistic", "gamma") in keys
    assert ("f1", "difference", "bca") in keys
    assert ("row", "random_forest", "goodman") in keys
    for r in rows:
        assert 0 <= r["coverage"] <= 1 and r["reps"] >= 10
    exact = [r for r in rows if r["method"] in ("clopper-pearson", "exact")]
    # 60 draws: exact intervals miss at most a handful of times
    assert all(r["coverage"] >= 0.85 for r in exact)


def test_pool_auc_coverage_counts_hits_like_auc_interval():
    from heldout.metrics.auc import auc_interval

    pool = _synthetic_pool()
    rows = D.pool_auc_coverage(pool, (2, 5), test_size=400, reps=30, seed=4)
    keys = {(r["digit"], r["model"], r["method"]) for r in rows}
    assert (2, "logistic", "auto") in keys and (5, "difference", "mover") in keys
    # recount one row by hand with the same draws
    from heldout.config import rng as make_rng

    rng = make_rng(4)
    draws = [rng.integers(0, len(pool), size=400) for _ in range(30)]
    y_all = pool.labels == 5
    s = pool.proba["random_forest"][:, 5].astype(float)
    truth = roc_auc_score(y_all, s)
    hits = [auc_interval(y_all[i], s[i]).contains(truth) for i in draws]
    row = next(
        r for r in rows if (r["digit"], r["model"], r["method"]) == (5, "random_forest", "auto")
    )
    assert row["coverage"] == pytest.approx(np.mean(hits)) and row["truth"] == pytest.approx(truth)


@pytest.mark.mnist
def test_pool_is_the_digits_the_book_leaves_out():
    from heldout.book.mnist.data import article_rows, load_mnist
    from heldout.config import SEED

    try:
        digits = load_mnist()
    except ValueError:
        pytest.skip("MNIST digits not installed")
    images, _ = article_rows(digits)
    order = np.random.default_rng(SEED).permutation(len(digits))
    np.testing.assert_array_equal(images[:50], digits.images[order[:50]])
    book = set(order[:42_000].tolist())
    assert book.isdisjoint(order[42_000:].tolist()) and len(order) - 42_000 == 28_000


def test_kaggle_file_is_refused(monkeypatch):
    from heldout.book.mnist import data

    fake = data.Digits(
        np.zeros((42_000, 784), np.uint8), np.zeros(42_000, np.uint8), "x", "kaggle", False
    )
    monkeypatch.setattr(data, "load_mnist", lambda directory=None: fake)
    with pytest.raises(ValueError, match="70,000"):
        D.pool_predictions()


@pytest.mark.parametrize(
    "kwargs, word",
    [({"digit": 12}, "digit"), ({"test_size": 0}, "test_size"), ({"alpha": 0}, "alpha")],
)
def test_bad_input(kwargs, word):
    with pytest.raises(ValueError, match=word):
        D.pool_coverage(_synthetic_pool(300), **kwargs)


def test_pool_auc_coverage_every_row_one_test_set_at_a_time():
    """issue 37: the vectorised pool experiment against auc_interval and auc_difference per test set.

    The forest's probabilities are rounded to a grid of 0.05 (many ties, as a forest's
    votes give); every row (both models, four methods, the paired difference with MOVER
    and DeLong) must have the coverage and mean width of the one-by-one computation.
    """
    from heldout.config import rng as make_rng
    from heldout.metrics.auc import auc_difference, auc_interval

    pool = _synthetic_pool()
    pool.proba["random_forest"] = np.round(pool.proba["random_forest"] * 20) / 20
    methods = ("logit", "newcombe", "effective", "auto")
    rows = D.pool_auc_coverage(pool, (4,), test_size=300, reps=25, seed=6, methods=methods)
    rng = make_rng(6)
    draws = [rng.integers(0, len(pool), size=300) for _ in range(25)]
    y_all = pool.labels == 4
    sc = {m: pool.proba[m][:, 4].astype(float) for m in pool.proba}
    truth = {m: roc_auc_score(y_all, sc[m]) for m in sc}
    truth["difference"] = truth["logistic"] - truth["random_forest"]
    for r in rows:
        got = []
        for i in draws:
            if r["model"] == "difference":
                e = auc_difference(
                    y_all[i], sc["logistic"][i], sc["random_forest"][i], method=r["method"]
                )
            else:
                e = auc_interval(y_all[i], sc[r["model"]][i], method=r["method"])
            got.append((e.low <= truth[r["model"]] <= e.high, e.high - e.low))
        got = np.array(got, dtype=float)
        assert r["reps"] == 25
        assert r["coverage"] == pytest.approx(got[:, 0].mean(), abs=1e-12), r
        assert r["width"] == pytest.approx(got[:, 1].mean(), rel=1e-9), r
