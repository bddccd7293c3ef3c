"""Speed of the nearest-neighbour fast path behind the cross-validation simulations.

The type I error and coverage studies of the cross-validation chapter fit a nearest-neighbour
rule on tens of thousands of training parts.  ``heldout.resampling.cv_scores.predict_splits`` computes
the distances of a data set once and serves every training part from them.  This script
measures training parts per second of that fast path against the baseline of a Python loop
over scikit-learn's ``KNeighborsClassifier`` (brute force) on the same splits, in the same
process, and checks that both predict the same labels.

Run:  .venv/bin/python benchmarks/bench_cv.py  (HELDOUT_QUICK=1 for a shorter run)
"""

from __future__ import annotations

import sys
import time

import numpy as np
from sklearn.neighbors import KNeighborsClassifier

from heldout import config
from heldout.resampling.cv_scores import fit, predict_splits, single_thread, splits
from heldout.resampling.cv_simulation import TwoViews

TARGET = 5.0  # the fast path should be at least this many times faster


def _rate(func, n_parts: int, repeat: int = 3) -> float:
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return n_parts / best


def main() -> None:
    X, y = TwoViews().sample(300, seed=config.SEED)
    X = X[:, :5]
    repeats = 1 if "--tiny" in sys.argv else config.pick(10, 3)  # --tiny: the smoke test
    parts = splits(300, "kfold", k=10, repeats=repeats, seed=1)
    est = KNeighborsClassifier(1, algorithm="brute")

    def baseline():
        return [fit(est, X[tr], y[tr]).predict(X[te]) for tr, te in parts]

    with single_thread():
        fast, _ = predict_splits(KNeighborsClassifier(1), X, y, parts)
        same = all(np.array_equal(a, b) for a, b in zip(fast, baseline(), strict=True))
        fast_rate = _rate(lambda: predict_splits(KNeighborsClassifier(1), X, y, parts), len(parts))
        base_rate = _rate(baseline, len(parts), repeat=1)
    ratio = fast_rate / base_rate
    print(
        f"{'parts':>6} {'fast parts/s':>13} {'sklearn parts/s':>16} {'ratio':>7} {'same labels':>12}"
    )
    print(f"{len(parts):>6} {fast_rate:>13.0f} {base_rate:>16.0f} {ratio:>7.1f} {same!s:>12}")
    met = "met" if ratio >= TARGET and same else "missed"
    print(f"TARGET cv-knn-fast-path: {ratio:.1f}x scikit-learn (target {TARGET:g}x) {met}")


if __name__ == "__main__":
    main()
