"""Speed of the exact size table of the acceptance-testing chapter.

The table: required accuracy 0.50..0.99 x margins 0.005..0.05 x alpha 5%, 1%.
Each exact size needs the binomial tail P(Bin(n, pi0) >= ceil(n (pi0 + d))) at every n
up to a Chernoff horizon (to settle the saw-tooth).  Three ways, in this process:

1. baseline: a Python loop over n calling scipy.stats.binom.sf once per n
   (timed on a few cells and reported as a rate of (cell, n) evaluations per second);
2. one vectorised call of the incomplete beta function over all (cell, n) pairs;
3. heldout.accuracy.acceptance: the vectorised recurrence in n (a segmented cumulative sum).

Prints rates and ratios; checks that 2 and 3 give the same sizes; ends with a ``TARGET``
line (the recurrence at least 100 times the rate of the per-n loop).
Run: .venv/bin/python benchmarks/bench_acceptance.py  [--tiny: a few cells, the smoke test]
"""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy import stats

from heldout._beta import kl
from heldout.accuracy import acceptance as A

REQUIRED = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99]
MARGINS = [0.005, 0.01, 0.02, 0.03, 0.04, 0.05]
ALPHAS = [0.05, 0.01]
TINY = "--tiny" in sys.argv
if TINY:
    REQUIRED, MARGINS, ALPHAS = [0.8, 0.9], [0.03, 0.05], [0.05]


def cells():
    a, p, d = np.meshgrid(ALPHAS, REQUIRED, MARGINS, indexing="ij")
    ok = p + d <= 1 + 1e-12
    return p[ok], d[ok], a[ok]


def horizons(p0, d, a):
    q = np.minimum(p0 + d, 1.0)
    return np.maximum(np.ceil(np.log(1 / a) / kl(q, p0)), 1).astype(np.int64), q


def loop_rate(p0, d, a, budget_n=20_000):
    """Baseline: per-n Python loop with scipy.stats.binom.sf, on the first cells until budget."""
    h, q = horizons(p0, d, a)
    done = 0
    t0 = time.perf_counter()
    for i in np.argsort(h):
        for n in range(1, int(h[i]) + 1):
            k = int(A._ceil(n * q[i]))
            stats.binom.sf(k - 1, n, p0[i])
            done += 1
        if done >= budget_n:
            break
    return done / (time.perf_counter() - t0)


def vector_betainc(p0, d, a):
    h, q = horizons(p0, d, a)
    first, stable = A._scan(h, lambda n, c: A._upper_tail(A._ceil(n * q[c]), n, p0[c]) <= a[c])
    return first, stable, int(h.sum())


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    p0, d, a = cells()
    total = int(horizons(p0, d, a)[0].sum())
    print(f"table: {p0.size} cells, {total:,} (cell, n) tail evaluations per full scan")

    rate_loop = loop_rate(p0, d, a, budget_n=2_000 if TINY else 20_000)
    t_beta, (f_b, s_b, _) = best_of(lambda: vector_betainc(p0, d, a), repeat=2)
    t_rec, (f_r, s_r) = best_of(lambda: A._exact_size_both(p0, d, a), repeat=3)
    assert np.array_equal(f_b, f_r) and np.array_equal(s_b, s_r), "methods disagree"

    rate_beta = total / t_beta
    rate_rec = total / t_rec
    print(
        f"1 per-n Python loop (binom.sf)   : {rate_loop:14,.0f} evaluations/s  (full table ~{total / rate_loop:7.1f} s)"
    )
    print(
        f"2 vectorised incomplete beta     : {rate_beta:14,.0f} evaluations/s  (full table  {t_beta:7.2f} s)"
    )
    print(
        f"3 heldout recurrence (cumsum)    : {rate_rec:14,.0f} evaluations/s  (full table  {t_rec:7.2f} s)"
    )
    print(
        f"ratio 2/1: {rate_beta / rate_loop:8.1f}x   ratio 3/1: {rate_rec / rate_loop:8.1f}x   ratio 3/2: {rate_rec / rate_beta:5.1f}x"
    )
    t_table, _ = best_of(lambda: A.size_table(REQUIRED, MARGINS, ALPHAS), repeat=3)
    print(f"size_table (normal, exact first+stable, true level): {t_table:.2f} s")
    ratio = rate_rec / rate_loop
    print(
        f"TARGET exact size table, recurrence vs per-n loop: {ratio:.0f}x (target >= 100x) "
        f"{'met' if ratio >= 100 else 'missed'}"
    )


if __name__ == "__main__":
    main()
