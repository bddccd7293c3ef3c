"""Methods that a peer library also computes: our time over the peer's, in this process.

Run:  .venv/bin/python benchmarks/bench_peers.py   [--tiny]

Each pair computes the same thing on the same data, timed as the CPU time of this
process (``time.process_time``, best of several runs: a busy machine disturbs it less
than the wall clock), and the same answer is checked before any figure is printed:

* Holm's and Benjamini-Yekutieli's adjusted p-values of ``m`` p-values against
  ``statsmodels.stats.multitest.multipletests`` (equal to 1e-12), m = 10^3, 10^4, 10^5;
* the model confidence set of continuous losses (``n`` items x 5 models, 1,000
  resamples, statistic T_R) against ``arch.bootstrap.MCS`` with one-item blocks (the
  same set of models), n = 10^3 and 10^4;
* the Bayesian correlated t-test of ``J`` per-split differences against
  ``baycomp.two_on_single`` (equal to 1e-9), J = 10, 100, 1,000.

Targets (issue 42): every ratio at most 1 (ours no slower than the peer's) at every size.
``--tiny``: the smallest size of each, few runs (the smoke test of ``make test``).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from functools import partial  # noqa: E402

import numpy as np  # noqa: E402

from heldout.comparison.mcs import model_confidence_set  # noqa: E402
from heldout.comparison.multiple import adjust  # noqa: E402
from heldout.resampling.bayes import correlated_t_rope  # noqa: E402

TINY = "--tiny" in sys.argv
TARGET = 1.0


def _best(fn, runs: int) -> float:
    """CPU seconds of one call: the best of ``runs`` timings of a loop of calls that lasts
    at least 20 ms (a single fast call is below the clock's resolution)."""
    start = time.process_time()
    fn()
    once = time.process_time() - start
    loops = max(1, int(0.02 / max(once, 1e-6)))
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        for _ in range(loops):
            fn()
        best = min(best, (time.process_time() - start) / loops)
    return max(best, 1e-9)


def _line(name: str, ratio: float) -> str:
    met = "met" if ratio <= TARGET else "missed"
    return f"TARGET {name}: {ratio:.3g}x the peer (target {TARGET:g}x) {met}"


def multiple_testing(rng) -> list[str]:
    from statsmodels.stats.multitest import multipletests

    lines = []
    for m in (10**3,) if TINY else (10**3, 10**4, 10**5):
        p = rng.random(m) ** 3
        for ours, theirs in (("holm", "holm"), ("by", "fdr_by")):
            ref = multipletests(p, method=theirs)[1]
            assert np.allclose(adjust(p, ours), ref, rtol=1e-12, atol=0)
            runs = 3 if TINY else 15
            ratio = _best(partial(adjust, p, ours), runs) / _best(
                partial(multipletests, p, method=theirs), runs
            )
            print(f"{ours:>5} m = {m:>7,}: {ratio:.2f}x statsmodels")
            lines.append(_line(f"{ours} m={m}", ratio))
    return lines


def confidence_set(rng) -> list[str]:
    from arch.bootstrap import MCS

    lines = []
    for n in (10**3,) if TINY else (10**3, 10**4):
        losses = rng.gamma(2.0, size=(n, 5)) + np.array([0.0, 0.01, 0.02, 0.05, 0.1])

        def ours():
            return model_confidence_set(losses, 0.1, reps=1000, seed=1)  # noqa: B023

        def theirs():
            mcs = MCS(losses, 0.1, reps=1000, block_size=1, bootstrap="circular", seed=1)  # noqa: B023
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mcs.compute()
            return mcs

        same = sorted(ours().models.tolist()) == sorted(theirs().included)
        ratio = _best(ours, 2 if TINY else 5) / _best(theirs, 2 if TINY else 5)
        print(f"  MCS n = {n:>7,} x 5: {ratio:.2f}x arch (same set: {same})")
        lines.append(_line(f"mcs n={n}", ratio))
    return lines


def correlated_t(rng) -> list[str]:
    import baycomp

    lines = []
    for j in (10,) if TINY else (10, 100, 1000):
        x = rng.normal(0.8, 0.02, j)
        y = x + rng.normal(0.005, 0.01, j)
        res = correlated_t_rope(x, y, 0.1, 0.01)
        ref = baycomp.two_on_single(x, y, rope=0.01, runs=max(1, j // 10))
        assert np.allclose([res.a_better, res.equivalent, res.b_better], ref, atol=1e-9)
        runs = 3 if TINY else 15
        ratio = _best(partial(correlated_t_rope, x, y, 0.1, 0.01), runs) / _best(
            partial(baycomp.two_on_single, x, y, rope=0.01, runs=max(1, j // 10)), runs
        )
        print(f"corr. t J = {j:>5,}: {ratio:.2f}x baycomp")
        lines.append(_line(f"correlated-t J={j}", ratio))
    return lines


def main() -> None:
    rng = np.random.default_rng(42)
    lines = multiple_testing(rng) + confidence_set(rng) + correlated_t(rng)
    print()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
