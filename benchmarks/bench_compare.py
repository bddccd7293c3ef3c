"""Exact P(p_A > p_B) against the article's sampling estimate: speed and accuracy.

Run: ``.venv/bin/python benchmarks/bench_compare.py``.  The baseline is the
source article's method (draw 10**6 pairs from the two Beta posteriors and
count), run in the same process.  Printed: calls per second, the speed ratio
and the absolute error of each method against 30-digit mpmath integration.
"""

from __future__ import annotations

import time

import mpmath as mp
import numpy as np

from heldout import compare

CASES = [(96, 100, 98, 100), (4090, 4200, 4070, 4200), (9738, 10000, 9690, 10000)]


def _rate(fn, min_seconds: float = 0.5) -> float:
    calls, start = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds and calls >= 3:
            return calls / elapsed


def _reference(ka, na, kb, nb) -> float:
    a1, b1, a2, b2 = (mp.mpf(v) for v in (ka + 1, na - ka + 1, kb + 1, nb - kb + 1))
    with mp.workdps(30):

        def f(x):
            return (
                x ** (a1 - 1)
                * (1 - x) ** (b1 - 1)
                / mp.beta(a1, b1)
                * mp.betainc(a2, b2, 0, x, regularized=True)
            )

        return float(mp.quad(f, sorted({mp.mpf(0), a1 / (a1 + b1), a2 / (a2 + b2), mp.mpf(1)})))


def main() -> None:
    draws = 10**6
    rng = np.random.default_rng(0)
    print(
        f"{'case':>24} {'exact calls/s':>14} {'MC(1e6) calls/s':>16} {'speed ratio':>12} {'exact err':>10} {'MC err':>9}"
    )
    for ka, na, kb, nb in CASES:
        ref = _reference(ka, na, kb, nb)

        def mc(ka=ka, na=na, kb=kb, nb=nb):
            return np.mean(
                rng.beta(ka + 1, na - ka + 1, draws) > rng.beta(kb + 1, nb - kb + 1, draws)
            )

        def exact(ka=ka, na=na, kb=kb, nb=nb):
            return compare.prob_better(ka, na, kb, nb)

        exact_rate = _rate(exact)
        mc_rate = _rate(mc)
        err_exact = abs(compare.prob_better(ka, na, kb, nb) - ref)
        err_mc = abs(mc() - ref)
        case = f"{ka}/{na} vs {kb}/{nb}"
        print(
            f"{case:>24} {exact_rate:14.0f} {mc_rate:16.2f} {exact_rate / mc_rate:11.0f}x {err_exact:10.1e} {err_mc:9.1e}"
        )
    jeff_rate = _rate(lambda: compare.prob_better(96, 100, 98, 100, prior="jeffreys"))
    mc_jeff_rate = _rate(lambda: np.mean(rng.beta(96.5, 4.5, draws) > rng.beta(98.5, 2.5, draws)))
    print(
        f"Jeffreys prior, 96/100 vs 98/100 (adaptive quadrature path): {jeff_rate:.0f} calls/s, "
        f"{jeff_rate / mc_jeff_rate:.0f}x the rate of 10**6-draw sampling"
    )


if __name__ == "__main__":
    main()
