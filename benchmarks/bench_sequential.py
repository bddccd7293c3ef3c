"""Speed of the confidence sequences of heldout.sequential.

The target (issue 16): the betting confidence sequence over 10^6 outcomes in under 1 s;
since issue 30 stated as a ratio measured in this process: at least 20 times the outcomes per
second of the grid baseline (absolute seconds would not catch a 2x regression).
``--tiny``: 20,000 outcomes (the smoke test).
Measured in this process:

1. baseline: the textbook grid computation of the betting sequence (the way research
   code computes it): the capital of every one of 1,001 candidate means, a cumulative
   product over time per candidate, with the paper's truncation c/m; run on 20,000
   outcomes and reported as outcomes per second;
2. heldout.sequential, method="betting", on 10^6 outcomes (a shrinking window of a
   65-point grid, bounds from chords of the concave log-capital);
3. the closed forms on the same 10^6 outcomes (Hoeffding: a few cumulative sums, the
   cheapest possible sequence) and the mixture.

Prints rates and ratios; the last line is the TARGET line for `make bench`.
Run: .venv/bin/python benchmarks/bench_sequential.py
"""

from __future__ import annotations

import sys
import timeit

import numpy as np

from heldout.sequential import confidence_sequence

TINY = "--tiny" in sys.argv  # the smoke test: small sizes
N = 20_000 if TINY else 1_000_000
N_BASE = 2_000 if TINY else 20_000
TARGET_RATIO = 20.0  # betting's outcomes per second over the grid baseline's


def grid_betting(x, alpha=0.05, breaks=1000, c=0.5):
    """Baseline: every candidate of a uniform grid, the paper's m-dependent truncation."""
    n = len(x)
    i = np.arange(1, n + 1.0)
    s = np.cumsum(x)
    sq = (x - (0.5 + s) / (i + 1)) ** 2
    sigma2_prev = (0.25 + np.cumsum(sq) - sq) / i
    lam = np.sqrt(2 * np.log(2 / alpha) / (sigma2_prev * i * np.log1p(i)))
    m = np.linspace(0, 1, breaks + 1)
    inside = np.empty((n, breaks + 1), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for j, mj in enumerate(m):  # one candidate at a time, as research code does
            kp = np.cumprod(1 + np.minimum(lam, c / mj) * (x - mj))
            km = np.cumprod(1 - np.minimum(lam, c / (1 - mj)) * (x - mj))
            inside[:, j] = np.maximum(kp, km) < 2 / alpha
    lower = m[np.argmax(inside, axis=1)]
    upper = m[breaks - np.argmax(inside[:, ::-1], axis=1)]
    return np.maximum.accumulate(lower), np.minimum.accumulate(upper)


def best_of(fn, repeat=3):
    """Smallest wall time of ``repeat`` calls, and the result of the last."""
    out = None

    def call():
        nonlocal out
        out = fn()

    return min(timeit.repeat(call, number=1, repeat=repeat)), out


def main() -> None:
    rng = np.random.default_rng(20261122)
    x = (rng.random(N) < 0.8).astype(float)

    t_base, (lo_b, hi_b) = best_of(lambda: grid_betting(x[:N_BASE]), repeat=1)
    t_bet, cs = best_of(lambda: confidence_sequence(x, 0.05, "betting"))
    t_hoef, _ = best_of(lambda: confidence_sequence(x, 0.05, "hoeffding"))
    t_eb, _ = best_of(lambda: confidence_sequence(x, 0.05, "empirical-bernstein"))
    t_mix, _ = best_of(lambda: confidence_sequence(x, 0.05, "mixture"), repeat=2)

    rate_base = N_BASE / t_base
    rate_bet = N / t_bet
    print(
        f"1 grid baseline (1,001 candidates)  : {rate_base:12,.0f} outcomes/s "
        f"(10^6 outcomes ~{N / rate_base:7.1f} s)"
    )
    print(
        f"2 heldout betting                    : {rate_bet:12,.0f} outcomes/s "
        f"(10^6 outcomes  {t_bet:7.2f} s)"
    )
    print(
        f"3 heldout hoeffding / e-bernstein / mixture: {t_hoef:.2f} s / {t_eb:.2f} s / {t_mix:.2f} s"
    )
    print(f"ratio betting / grid baseline (speed-up): {rate_bet / rate_base:8.1f}x")
    print(f"ratio betting time / hoeffding time     : {t_bet / t_hoef:8.1f}x")
    w_grid = (hi_b - lo_b)[-1]
    w_ours = (cs.upper - cs.lower)[N_BASE - 1]
    print(f"width after {N_BASE:,} outcomes: grid baseline {w_grid:.5f}, heldout {w_ours:.5f}")
    speedup = rate_bet / rate_base
    verdict = "met" if speedup >= TARGET_RATIO else "missed"
    print(
        f"TARGET betting sequence over {N:.0e} outcomes vs the grid baseline: {speedup:.1f}x "
        f"(target >= {TARGET_RATIO:g}x) {verdict}"
    )


if __name__ == "__main__":
    main()
