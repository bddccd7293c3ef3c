"""One limit policy: every resample, draw and repetition count, and every product of sizes
that sets an allocation, is refused before any work (issue 44).

Each call below hung or ran out of memory before: it must now raise a ValueError that
names the argument, within a second, allocating nothing of note.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest

from heldout._checks import MAX_DRAWS, MAX_ELEMENTS, as_draws, check_elements
from heldout.accuracy.split import logistic_population
from heldout.comparison.mcs import model_confidence_set
from heldout.dependent.cluster_sizing import cheapest_design
from heldout.metrics.evaluate import auc_best_set
from heldout.resampling.cv_scores import splits
from heldout.resampling.reuse import boosting_attack


def _mcs():

    return model_confidence_set(np.random.default_rng(0).random((50, 3)), reps=10**12)


def _boosting():

    return boosting_attack(100, 1000, train_rows=10**12)


def _cheapest():

    return cheapest_design(0.02, 0.1, 90, 1, accuracy=0.9, max_cluster_size=10**12)


def _population():

    return logistic_population(n_features=10**9)


def _splits():

    return splits(100, "kfold", k=5, repeats=10**12)


def _auc_best():

    return auc_best_set([0.9, 0.8], np.eye(2) * 1e-4, draws=10**12)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (_mcs, "reps"),
        (_boosting, "train_rows"),
        (_cheapest, "max_cluster_size"),
        (_population, "n_features"),
        (_splits, "repeats"),
        (_auc_best, "draws"),
    ],
)
def test_count_arguments_are_capped_before_work(call, name):
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(ValueError, match=name):
        call()
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert elapsed < 1.0
    assert peak < 50e6  # bytes: nothing of the refused size was allocated


def test_the_limits_accept_their_bounds_and_refuse_one_more():
    assert as_draws(MAX_DRAWS, "reps") == MAX_DRAWS
    with pytest.raises(ValueError, match="at most"):
        as_draws(MAX_DRAWS + 1, "reps")
    for bad in (True, 2.5, -1, float("nan"), "10"):
        with pytest.raises(ValueError, match="reps"):
            as_draws(bad, "reps")
    check_elements(MAX_ELEMENTS, "x")
    with pytest.raises(ValueError, match="x would hold"):
        check_elements(MAX_ELEMENTS + 1, "x")
