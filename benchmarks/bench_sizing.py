"""Speed of heldout.accuracy.sizing against straightforward baselines, measured in the same process.

Run: ``.venv/bin/python benchmarks/bench_sizing.py`` (add ``HELDOUT_QUICK=1`` for a shorter run).

1. ``hoeffding_size`` on a grid of (t, epsilon) pairs vs a Python loop with ``math``.
2. ``binomial_size`` for the worst case over p (exact supremum by branch and bound over
   blocks of sizes and boxes of rates) vs the plain exact computation: at every m below
   the Hoeffding size, the supremum over p from every breakpoint limit (scipy.stats).
3. ``simulate_deviation`` vs one ``rng.choice`` call per simulated test set.

Each pair is checked to give the same answer before its timing is reported.  Each
prints a final ``TARGET`` line (ratios measured in this process, never absolute times).
"""

from __future__ import annotations

import math
import sys

import numpy as np
from _timing import timed
from scipy import stats

from heldout.accuracy.deviation import simulate_deviation
from heldout.accuracy.sizing import binomial_size, hoeffding_size
from heldout.config import pick as _pick

TINY = "--tiny" in sys.argv  # the smoke test: small sizes


def pick(full, quick_value):
    """The quick size, smaller still (a tenth) with --tiny."""
    value = _pick(full, quick_value)
    if TINY and isinstance(value, int):
        return max(value // 10, 20)
    return value


def bench_hoeffding() -> float:
    t = np.geomspace(0.001, 1, pick(1_000, 200))
    eps = np.geomspace(1e-6, 0.5, 200)
    tt, ee = np.meshgrid(t, eps)
    fast_s, fast = timed(lambda: hoeffding_size(13.29, tt, ee))
    slow_s, slow = timed(
        lambda: [
            math.ceil(math.log(2 / e) * 13.29**2 / (2 * x**2))
            for x, e in zip(tt.ravel(), ee.ravel(), strict=True)
        ],
        repeat=1,
    )
    assert np.array_equal(fast.ravel(), slow)
    n = tt.size
    print(
        f"hoeffding_size   : {n / fast_s:12,.0f} sizes/s   python loop {n / slow_s:12,.0f} sizes/s"
        f"   ratio {slow_s / fast_s:6.1f}x"
    )
    return slow_s / fast_s


def _plain_worst_size(t: float, eps: float) -> int:
    """Stable worst-case size by brute force: every m, every breakpoint limit, scipy.stats."""
    m_max = hoeffding_size(1, t, eps)
    last_failing = 0
    for m in range(1, m_max):  # every size; vectorised over the breakpoints of each
        j = np.arange(math.floor(m * t + 1e-9) + 1, math.floor(m * (1 + t) + 1e-9) + 1)
        i = np.arange(0, math.floor(m * (1 - t) + 1e-9) + 1)
        pj, pi = j / m - t, i / m + t
        keep_j, keep_i = (pj > 0) & (pj < 1), (pi > 0) & (pi < 1)
        j, pj, i, pi = j[keep_j], pj[keep_j], i[keep_i], pi[keep_i]
        c = math.floor(2 * m * t + 1e-9) + 1
        left = stats.binom.sf(j - 1, m, pj) + stats.binom.cdf(j - c, m, pj)
        right = stats.binom.sf(i + c - 1, m, pi) + stats.binom.cdf(i, m, pi)
        if max(left.max(initial=0.0), right.max(initial=0.0)) > eps:
            last_failing = m
    return last_failing + 1


def bench_binomial(t: float = 0.05, eps: float = 0.05) -> float:
    fast_s, fast = timed(lambda: binomial_size(t, eps))
    slow_s, slow = timed(lambda: _plain_worst_size(t, eps), repeat=1)
    assert fast == slow, (fast, slow)
    print(
        f"binomial_size    : {fast_s * 1e3:10.1f} ms          full scan   {slow_s * 1e3:10.1f} ms"
        f"          ratio {slow_s / fast_s:6.1f}x   (t={t}, worst case over p, n={fast})"
    )
    return slow_s / fast_s


def bench_simulation() -> float:
    gen = np.random.default_rng(1)
    losses = gen.exponential(1.0, 50_000).clip(0, 13.29)
    size, n_rep = pick(5_000, 2_000), pick(2_000, 500)

    def loop():
        rng = np.random.default_rng(2)
        return np.array([rng.choice(losses, size).mean() for _ in range(n_rep)])

    fast_s, fast = timed(lambda: simulate_deviation(losses, size, 0.1, n_rep, seed=2))
    slow_s, slow = timed(loop, repeat=1)
    # different random streams: compare the spread, which both must estimate
    assert abs(fast["sd"] / slow.std(ddof=1) - 1) < 0.15
    draws = size * n_rep
    print(
        f"simulate_deviation: {draws / fast_s:11,.0f} rows/s    choice loop {draws / slow_s:11,.0f} rows/s"
        f"    ratio {slow_s / fast_s:6.1f}x"
    )
    return slow_s / fast_s


def _target(name: str, figure: float, target: float) -> None:
    verdict = "met" if figure >= target else "missed"
    print(f"TARGET {name}: {figure:.1f}x (target >= {target:g}x) {verdict}")


if __name__ == "__main__":
    _target("hoeffding_size vs a Python loop", bench_hoeffding(), 10)
    _target(
        "binomial_size worst case vs the plain exact scan",
        bench_binomial(t=0.1 if TINY else pick(0.04, 0.05)),
        5,
    )
    # memory-bound either way: the target is only that blocking costs nothing
    _target("simulate_deviation vs an rng.choice loop", bench_simulation(), 0.9)
