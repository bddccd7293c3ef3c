"""Speed of heldout.sizing against straightforward baselines, measured in the same process.

Run: ``.venv/bin/python benchmarks/bench_sizing.py`` (add ``HELDOUT_QUICK=1`` for a shorter run).

1. ``hoeffding_size`` on a grid of (t, epsilon) pairs vs a Python loop with ``math``.
2. ``binomial_size`` (worst p on a grid; Chernoff screening + early stop) vs the plain
   exact computation at every m below the Hoeffding size and every grid p.
3. ``simulate_deviation`` vs one ``rng.choice`` call per simulated test set.

Each pair is checked to give the same answer before its timing is reported.
"""

from __future__ import annotations

import math
import time

import numpy as np
from scipy import stats

from heldout.config import pick
from heldout.sizing import binomial_size, hoeffding_size, simulate_deviation


def _timed(func, repeat=3):
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        out = func()
        best = min(best, time.perf_counter() - start)
    return best, out


def bench_hoeffding() -> None:
    t = np.geomspace(0.001, 1, pick(1_000, 200))
    eps = np.geomspace(1e-6, 0.5, 200)
    tt, ee = np.meshgrid(t, eps)
    fast_s, fast = _timed(lambda: hoeffding_size(13.29, tt, ee))
    slow_s, slow = _timed(
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


def bench_binomial(t: float = 0.05, eps: float = 0.05, grid: int = 201) -> None:
    def plain():
        m_max = hoeffding_size(1, t, eps)
        m = np.arange(1, m_max)[:, None]
        ps = np.linspace(0, 0.5, grid)[None, :]
        upper = np.floor(m * (ps + t) + 1e-9)
        lower = np.ceil(m * (ps - t) - 1e-9)
        prob = stats.binom.sf(upper, m, ps) + stats.binom.cdf(lower - 1, m, ps)
        failing = np.flatnonzero(prob.max(axis=1) > eps)
        return int(failing[-1] + 2)

    fast_s, fast = _timed(lambda: binomial_size(t, eps, grid=grid))
    slow_s, slow = _timed(plain, repeat=1)
    assert fast == slow, (fast, slow)
    print(
        f"binomial_size    : {fast_s * 1e3:10.1f} ms          full scan   {slow_s * 1e3:10.1f} ms"
        f"          ratio {slow_s / fast_s:6.1f}x   (t={t}, worst p over {grid} points, n={fast})"
    )


def bench_simulation() -> None:
    gen = np.random.default_rng(1)
    losses = gen.exponential(1.0, 50_000).clip(0, 13.29)
    size, n_rep = pick(5_000, 2_000), pick(2_000, 500)

    def loop():
        rng = np.random.default_rng(2)
        return np.array([rng.choice(losses, size).mean() for _ in range(n_rep)])

    fast_s, fast = _timed(lambda: simulate_deviation(losses, size, 0.1, n_rep, seed=2))
    slow_s, slow = _timed(loop, repeat=1)
    # different random streams: compare the spread, which both must estimate
    assert abs(fast["sd"] / slow.std(ddof=1) - 1) < 0.15
    draws = size * n_rep
    print(
        f"simulate_deviation: {draws / fast_s:11,.0f} rows/s    choice loop {draws / slow_s:11,.0f} rows/s"
        f"    ratio {slow_s / fast_s:6.1f}x"
    )


if __name__ == "__main__":
    bench_hoeffding()
    bench_binomial(t=pick(0.02, 0.05))
    bench_simulation()
