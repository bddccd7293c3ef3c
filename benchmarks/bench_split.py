"""Speed of the batched logistic-regression fits behind the variational-split chapter.

The chapter fits thousands of logistic regressions (one per resample and cell).  This
script measures fits per second of ``heldout.accuracy.split.fit_logistic_batch`` (all data sets take
Newton steps together) against the baseline of a Python loop over scikit-learn's
``LogisticRegression(C=1)``, on the same data sets, in the same process, and checks that both
give the same coefficients.

Run:  .venv/bin/python benchmarks/bench_split.py  (HELDOUT_QUICK=1 for a shorter run)

Ends with a ``TARGET`` line: the batched fits at least 3 times the rate of the loop at
every size.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from sklearn.linear_model import LogisticRegression

from heldout import config
from heldout.accuracy import split as sp


def _rate(func, n_fits: int, repeat: int = 3) -> float:
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return n_fits / best


def main() -> None:
    pop = sp.logistic_population()
    gen = config.rng()
    tiny = "--tiny" in sys.argv  # the smoke test: small sizes
    n_sets = 5 if tiny else config.pick(200, 40)
    print(
        f"{'rows':>6} {'data sets':>9} {'batched fits/s':>15} {'sklearn fits/s':>15} {'ratio':>7} {'max |coef diff|':>16}"
    )
    ratios = []
    for rows in (100, 400) if tiny else (100, 400, 1600):
        X, y = pop.draw(gen, (n_sets, rows))
        coef, _ = sp.fit_logistic_batch(X, y)
        ref = np.array(
            [
                LogisticRegression(C=1.0, tol=1e-10, max_iter=1000).fit(X[r], y[r]).coef_[0]
                for r in range(n_sets)
            ]
        )
        diff = np.max(np.abs(coef - ref))
        batched = _rate(lambda X=X, y=y: sp.fit_logistic_batch(X, y), n_sets)
        baseline = _rate(
            lambda X=X, y=y: [LogisticRegression(C=1.0).fit(X[r], y[r]) for r in range(n_sets)],
            n_sets,
            repeat=1,
        )
        print(
            f"{rows:>6} {n_sets:>9} {batched:>15.0f} {baseline:>15.0f} {batched / baseline:>7.1f} {diff:>16.1e}"
        )
        ratios.append(batched / baseline)
    worst = min(ratios)
    print(
        f"TARGET batched logistic fits vs a scikit-learn loop (slowest size): {worst:.1f}x "
        f"(target >= 3x) {'met' if worst >= 3 else 'missed'}"
    )


if __name__ == "__main__":
    main()
