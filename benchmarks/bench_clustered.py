"""Speed of heldout.dependent.clustered against straightforward baselines, measured in the same process.

Run: ``.venv/bin/python benchmarks/bench_clustered.py`` (add ``HELDOUT_QUICK=1`` for a shorter run).

1. ``cluster_bootstrap`` (cluster sums, one ``bincount`` of the drawn clusters per chunk of
   resamples, two matrix products) vs the textbook loop: for each resample draw the
   clusters, gather their items and average them.
2. ``simulate_coverage`` (every simulated test set at once, from cluster sums) vs a loop of
   ``clustered_mean`` calls on item-level data, one per simulated test set.

Each pair is checked to agree (in distribution for the bootstrap, exactly for the
coverage) before its timing is reported.  The chapter's coverage grid runs thousands of
simulated test sets with hundreds of resamples each; the vectorised forms are what make
it fit in the book's time budget.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from _timing import timed
from scipy import stats

from heldout.config import pick
from heldout.dependent.clustered import (
    cluster_bootstrap,
    clustered_mean,
    simulate_clustered,
    simulate_coverage,
)

TINY = "--tiny" in sys.argv  # the smoke test: small sizes
TARGET_BOOTSTRAP = 20.0  # times faster than the loop
TARGET_COVERAGE = 20.0


def bench_bootstrap() -> float:
    gen = np.random.default_rng(0)
    g, b = (100, 100) if TINY else (pick(1_000, 300), pick(2_000, 500))
    sizes = gen.integers(1, 40, size=g)
    ids = np.repeat(np.arange(g), sizes)
    y = (gen.random(ids.size) < 0.9).astype(float)
    members = [np.flatnonzero(ids == c) for c in range(g)]

    def loop():
        rng = np.random.default_rng(1)
        means = np.empty(b)
        for i in range(b):
            drawn = rng.integers(0, g, size=g)
            means[i] = y[np.concatenate([members[c] for c in drawn])].mean()
        return means

    fast_s, fast = timed(lambda: cluster_bootstrap(y, ids, n_resamples=b, seed=1))
    slow_s, slow = timed(loop, repeat=1)
    # same distribution: standard deviations within 4 Monte Carlo standard errors
    assert abs(fast.se / slow.std(ddof=1) - 1) < 4 / math.sqrt(b), (fast.se, slow.std(ddof=1))
    ratio = slow_s / fast_s
    print(
        f"cluster_bootstrap: {b / fast_s:12,.0f} resamples/s   loop {b / slow_s:10,.0f} resamples/s"
        f"   ratio {ratio:6.1f}x   ({ids.size:,} items in {g:,} clusters)"
    )
    return ratio


def bench_coverage() -> float:
    reps, g, m, p, rho = 100 if TINY else pick(2_000, 400), 50, 10, 0.9, 0.1
    fast_s, fast = timed(
        lambda: simulate_coverage(p, rho, m, g, reps=reps, n_resamples=None, seed=5)
    )

    def loop():
        gen = np.random.default_rng(5)  # the same stream as simulate_coverage's
        sums = simulate_clustered(p, rho, np.full(g, m), reps, gen)
        ids = np.repeat(np.arange(g), m)
        covered = 0
        for row in sums:
            y = np.concatenate([np.r_[np.ones(int(s)), np.zeros(m - int(s))] for s in row])
            r = clustered_mean(y, ids, method="t")
            covered += r.low <= p <= r.high
        return covered / reps

    slow_s, slow = timed(loop, repeat=1)
    assert slow == fast.clustered_t, (slow, fast.clustered_t)
    ratio = slow_s / fast_s
    print(
        f"simulate_coverage: {reps / fast_s:12,.0f} test sets/s  loop {reps / slow_s:10,.0f} test sets/s"
        f"  ratio {ratio:6.1f}x   (3 intervals vs 1, {g} clusters of {m})"
    )
    return ratio


def main() -> None:
    stats.t.isf(0.025, 10)  # warm scipy up outside the timings
    b = bench_bootstrap()
    c = bench_coverage()
    print(
        f"TARGET cluster_bootstrap_speedup: {b:.0f}x (target {TARGET_BOOTSTRAP:.0f}x) "
        f"{'met' if b >= TARGET_BOOTSTRAP else 'missed'}"
    )
    print(
        f"TARGET coverage_simulation_speedup: {c:.0f}x (target {TARGET_COVERAGE:.0f}x) "
        f"{'met' if c >= TARGET_COVERAGE else 'missed'}"
    )


if __name__ == "__main__":
    main()
