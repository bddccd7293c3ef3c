"""Cost of the PPI++ interval on 10^6 graded items against numpy doing the same arithmetic.

Run: ``.venv/bin/python benchmarks/bench_judged.py`` (``--tiny`` for the smoke test).

10^4 gold items (people's and the judge's 0/1 grades) and 990,000 items graded by the judge
only, 10^6 graded items in all, in the same process:

1. ``heldout.judged.ppi_mean`` (input checks, PPI++'s tuned weight, the estimate, its
   standard error and interval, the result object) against numpy computing the same means,
   variances, covariance, weight, estimate and standard error directly;
2. ``heldout.judged.rogan_gladen`` against numpy's counts and the delta-method formula
   (reported, with no target: numpy's side is one pass over the judged grades, so the
   package's checks that every grade is a finite 0 or 1, and the copy ``as_floats`` makes,
   cost several times the arithmetic);
3. for reference, ``ppi_py.ppi_mean_ci`` (the authors' package) on the same data, when it is
   installed.

Each pair is checked to agree before its timing is reported.  Figures are ratios of
heldout's time to numpy's (no absolute times); the target for the PPI++ interval is at
most 2.  Each time is the best of several runs (the machine may be shared).
"""

from __future__ import annotations

import math
import sys

import numpy as np
from _timing import timed as _timed

from heldout.judged import ppi_mean, rogan_gladen


def timed(func):
    """Best of nine calls: these calls take microseconds."""
    return _timed(func, repeat=9)


TINY = "--tiny" in sys.argv
GOLD, TOTAL = (1_000, 100_000) if TINY else (10_000, 1_000_000)
TARGET_RATIO = 2.0  # heldout's time over numpy's, at most


def _numpy_ppi(y, fl, fu):
    n, big_n = y.size, fu.size
    my, mfl, mfu = y.mean(), fl.mean(), fu.mean()
    vy, vfl, vfu = y.var(ddof=1), fl.var(ddof=1), fu.var(ddof=1)
    cov = np.cov(y, fl)[0, 1]
    pooled = np.concatenate([fl, fu]).var(ddof=1)
    lam = min(max(cov * (n - 1) / n / ((1 + n / big_n) * pooled), 0.0), 1.0)
    est = lam * mfu + my - lam * mfl
    se = math.sqrt(lam**2 * vfu / big_n + (vy - 2 * lam * cov + lam**2 * vfl) / n)
    return est, se


def _numpy_rg(y, fl, fu):
    n1 = y.sum()
    n0 = y.size - n1
    sens = (y * fl).sum() / n1
    spec = ((1 - y) * (1 - fl)).sum() / n0
    q = fu.mean()
    j = sens + spec - 1
    theta = (q + spec - 1) / j
    var = (
        q * (1 - q) / fu.size
        + theta**2 * sens * (1 - sens) / n1
        + (1 - theta) ** 2 * spec * (1 - spec) / n0
    ) / j**2
    return theta, math.sqrt(var)


def main() -> None:
    gen = np.random.default_rng(0)
    y_all = (gen.random(TOTAL) < 0.8).astype(float)
    f_all = np.where(y_all == 1, gen.random(TOTAL) < 0.95, gen.random(TOTAL) < 0.4).astype(float)
    y, fl, fu = y_all[:GOLD], f_all[:GOLD], f_all[GOLD:]
    print(f"{GOLD:,} gold items and {fu.size:,} judge-only items ({TOTAL:,} graded items)")

    fast_s, fast = timed(lambda: ppi_mean(y, fl, fu))
    base_s, (est, se) = timed(lambda: _numpy_ppi(y, fl, fu))
    assert abs(fast.estimate - est) < 1e-12 and abs(fast.se - se) < 1e-10 * se
    ratio_ppi = fast_s / base_s
    print(f"PPI++ interval: heldout / numpy time {ratio_ppi:5.2f}")

    fast_s, fast_rg = timed(lambda: rogan_gladen(y, fl, fu))
    base_s, (theta, se_rg) = timed(lambda: _numpy_rg(y, fl, fu))
    assert abs(fast_rg.raw - theta) < 1e-12 and abs(fast_rg.se - se_rg) < 1e-10 * se_rg
    ratio_rg = fast_s / base_s
    print(
        f"Rogan-Gladen interval: heldout / numpy time {ratio_rg:5.2f} (no target: checks dominate)"
    )

    try:
        import ppi_py
    except ImportError:
        print("ppi_py is not installed: no comparison with the authors' package")
    else:
        peer_s, (low, high) = timed(lambda: ppi_py.ppi_mean_ci(y, fl, fu, alpha=0.05))
        centre = (float(np.squeeze(low)) + float(np.squeeze(high))) / 2
        assert abs(centre - (fast.low + fast.high) / 2) < 1e-12
        print(
            f"ppi_py.ppi_mean_ci on the same data: heldout / ppi_py time {timed(lambda: ppi_mean(y, fl, fu))[0] / peer_s:5.2f}"
        )

    print(
        f"TARGET ppi_interval_vs_numpy: {ratio_ppi:.2f}x numpy's time (target {TARGET_RATIO:.0f}x) "
        f"{'met' if ratio_ppi <= TARGET_RATIO else 'missed'}"
    )


if __name__ == "__main__":
    main()
