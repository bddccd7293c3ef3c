"""Cost of pass@k and of the two-level benchmark interval against numpy doing the same arithmetic.

Run: ``.venv/bin/python benchmarks/bench_passk.py`` (``--tiny`` for the smoke test).

On 10^6 graded answers (10^5 questions x 10 samples, 0/1 grades), each in the same process:

1. ``heldout.judged.passk.pass_at_k(scores, k=5)`` against numpy and scipy computing the
   per-question counts, the unbiased estimate :math:`1 - C(n-c, k)/C(n, k)` by log-gamma
   functions, the mean and its standard error over questions;
2. ``heldout.judged.benchmark.benchmark_score`` with answers in long form (one row per
   answer, questions as labels, in shuffled order) against numpy grouping them
   (``np.unique(..., return_inverse=True)``, ``bincount``) and computing the mean of the
   question means and its standard error.

Each pair is checked to agree before its timing is reported.  The figure is the ratio
heldout / numpy (the price of input checks, the interval and the result object); the
target is at most 2.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from _timing import timed

from heldout.judged.benchmark import benchmark_score
from heldout.judged.passk import _unbiased, pass_at_k

TINY = "--tiny" in sys.argv
QUESTIONS, SAMPLES = (1_000, 10) if TINY else (100_000, 10)
TARGET_RATIO = 2.0  # heldout's time over numpy's, at most


def _numpy_passk(y, k):
    # the package's own log-gamma arithmetic (the one copy of the formula), without its
    # input checks, broadcasting and result object: what the ratio prices
    v = _unbiased(float(y.shape[1]), y.sum(axis=1), float(k))
    return v.mean(), v.std(ddof=1) / math.sqrt(v.size)


def _numpy_two_level(y, q):
    _, codes = np.unique(q, return_inverse=True)
    counts = np.bincount(codes)
    means = np.bincount(codes, weights=y) / counts
    return means.mean(), means.std(ddof=1) / math.sqrt(means.size)


def main() -> None:
    gen = np.random.default_rng(0)
    p = gen.beta(0.7, 1.5, size=QUESTIONS)
    y = (gen.random((QUESTIONS, SAMPLES)) < p[:, None]).astype(float)
    n = y.size

    fast_s, fast = timed(lambda: pass_at_k(y, k=5))
    base_s, (m, se) = timed(lambda: _numpy_passk(y, 5))
    assert abs(fast.estimate - m) < 1e-12 and abs(fast.se - se) < 1e-12 * max(se, 1)
    ratio_pk = fast_s / base_s
    print(
        f"pass@5 on {n:,} answers: heldout {fast_s * 1e3:8.1f} ms   numpy {base_s * 1e3:8.1f} ms   ratio {ratio_pk:5.2f}"
    )

    order = gen.permutation(n)
    scores = y.reshape(-1)[order]
    questions = np.repeat(np.arange(QUESTIONS), SAMPLES)[order]
    fast_s, fast = timed(lambda: benchmark_score(scores, questions))
    base_s, (m, se) = timed(lambda: _numpy_two_level(scores, questions))
    assert abs(fast.estimate - m) < 1e-12 and abs(fast.se - se) < 1e-9 * se
    ratio_tl = fast_s / base_s
    print(
        f"two-level interval on {n:,} answers: heldout {fast_s * 1e3:8.1f} ms   numpy {base_s * 1e3:8.1f} ms   ratio {ratio_tl:5.2f}"
    )

    for name, r in (("pass_at_k_vs_numpy", ratio_pk), ("two_level_interval_vs_numpy", ratio_tl)):
        print(
            f"TARGET {name}: {r:.2f}x numpy's time (target {TARGET_RATIO:.0f}x) {'met' if r <= TARGET_RATIO else 'missed'}"
        )


if __name__ == "__main__":
    main()
