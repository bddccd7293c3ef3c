"""heldout.metrics.threshold_optimism against brute force and simulation."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score

from heldout.metrics.threshold_optimism import (
    crossfit_threshold,
    split_threshold,
    tuned_threshold,
)

SCORERS = {"accuracy": accuracy_score, "balanced_accuracy": balanced_accuracy_score, "f1": f1_score}


def _data(seed, n=300):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    return y, (rng.normal(size=n) + 1.2 * y).round(2)


@pytest.mark.parametrize("metric", sorted(SCORERS))
@pytest.mark.parametrize("seed", range(3))
def test_tuned_threshold_is_the_brute_force_maximum(metric, seed):
    y, s = _data(seed)
    r = tuned_threshold(y, s, metric)
    values = [SCORERS[metric](y, (s >= t).astype(int)) for t in np.unique(s)]
    assert r.value == pytest.approx(max(values))
    assert SCORERS[metric](y, (s >= r.threshold).astype(int)) == pytest.approx(r.value)


def test_split_reports_on_the_other_half():
    y, s = _data(4)
    r = split_threshold(y, s, "f1", seed=3)
    assert r.low <= r.value <= r.high and r.method == "split"
    assert r.apparent == pytest.approx(tuned_threshold(y, s, "f1").value)


def test_crossfit_classifies_each_item_with_a_threshold_chosen_without_it():
    y, s = _data(5)
    r = crossfit_threshold(y, s, "accuracy", folds=3, seed=2)
    assert r.threshold.shape == (3,)
    # the reported accuracy is that of items classified by their own fold's threshold
    from heldout.config import rng
    from heldout.metrics.threshold_optimism import _folds

    fold = _folds(y.astype(bool), 3, rng(2))
    called = np.zeros(y.size, bool)
    for j in range(3):
        called[fold == j] = s[fold == j] >= r.threshold[j]
    assert r.value == pytest.approx(accuracy_score(y, called.astype(int)))


def test_the_tuned_maximum_is_optimistic_and_the_remedies_are_not():
    """200 binormal test sets: the in-sample maximum exceeds the true accuracy of its threshold."""
    from heldout.book.operating_coverage import threshold_simulation

    r = threshold_simulation("accuracy", 150, 0.5, 0.8, 200, seed=3)
    assert r.optimism > 0.01
    assert r.split_coverage >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / 200)


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda y, s: tuned_threshold(y, s, "auc"), "metric"),
        (lambda y, s: split_threshold(y, s, fraction=1.0), "fraction"),
        (lambda y, s: split_threshold(y, s, alpha=-1), "alpha"),
        (lambda y, s: crossfit_threshold(y, s, folds=1), "folds"),
        (lambda y, s: crossfit_threshold(y[:6], s[:6], folds=5), "folds"),
    ],
)
def test_bad_input_is_refused_by_name(call, word):
    y, s = _data(0)
    with pytest.raises(ValueError, match=word):
        call(y, s)
