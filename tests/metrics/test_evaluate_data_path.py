"""evaluate's cached per-model work gives the numbers of the public functions it stands for.

``evaluate`` computes each scored model's per-item losses once, hands booleans to the
paired bootstrap and counts classes instead of sorting (issue 30).  Each entry must equal
what the plain public call returns on the same data (the path before the caching).
"""

from __future__ import annotations

import numpy as np
import pytest

from heldout.metrics.bootstrap import bootstrap_interval
from heldout.metrics.evaluate import _distinct, evaluate
from heldout.metrics.scores import score_difference, score_interval


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    n = 3000
    y = (rng.random(n) < 0.3).astype(int)
    a = np.clip(0.3 + 0.35 * y + rng.normal(0, 0.2, n), 0, 1)
    b = np.clip(0.35 + 0.25 * y + rng.normal(0, 0.25, n), 0, 1)
    return y, a, b


def test_proper_scores_match_score_interval_and_score_difference(data):
    y, a, b = data
    r = evaluate(y, {"a": a, "b": b}, n_resamples=300, seed=2)
    for which in ("brier", "log_loss"):
        for name, p in (("a", a), ("b", b)):
            e = r["models"][name]["metrics"][which]
            ref = score_interval(y, p, which, 0.05, "gamma")
            assert (e["value"], e["low"], e["high"]) == (ref.value, ref.low, ref.high)
        d = r["pairs"][0]["metrics"][which]
        ref = score_difference(y, a, b, which, 0.05)
        assert (d["value"], d["low"], d["high"], d["p_value"]) == (
            ref.value,
            ref.low,
            ref.high,
            ref.p_value,
        )


@pytest.mark.parametrize("metric", ["precision", "recall", "specificity", "npv", "f1"])
def test_paired_bootstrap_matches_the_call_on_integer_labels(data, metric):
    y, a, b = data
    r = evaluate(y, {"a": a, "b": b}, n_resamples=300, seed=2)
    la, lb = (a >= 0.5).astype(np.int64), (b >= 0.5).astype(np.int64)
    ref = bootstrap_interval(metric, y, la, lb, alpha=0.05, n_resamples=300, seed=2)
    d = r["pairs"][0]["metrics"][metric]
    assert (d["value"], d["low"], d["high"]) == (ref.value, ref.low, ref.high)


def test_distinct_is_np_unique():
    rng = np.random.default_rng(4)
    for values in (
        rng.integers(-5, 7, 1000),
        rng.integers(0, 10**9, 500),  # wide range: sorted by np.unique
        np.array([3, 3, 3]),
        np.array([], dtype=np.int64),
    ):
        np.testing.assert_array_equal(_distinct(values), np.unique(values))


def test_multiclass_classes_are_found(data):
    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, 400)
    pred = np.where(rng.random(400) < 0.7, y, rng.integers(0, 5, 400))
    r = evaluate(y, {"m": pred}, n_resamples=100, seed=1)
    assert r["classes"] == np.union1d(y, pred).tolist()
