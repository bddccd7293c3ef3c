"""Benchmark: the vectorised exact test set bound against the article's Appendix C bisection.

Run:  .venv/bin/python benchmarks/bench_bounds.py  [--pairs 1000000] [--baseline 300] [--tiny]

Both methods get the same kind of input: pairs (k, m) with m uniform on 1..149 (the
largest size the article's factorial table allows) and k uniform on 0..m.  The
vectorised `heldout.accuracy.bounds.exact_upper` runs on all pairs in one call; the article's
loop-based program (re-implemented faithfully as `heldout.accuracy.bounds.appendix_c_bound`)
runs on a subsample, since it needs seconds per hundred pairs.  The script prints
rates (bounds per second of CPU time on one core) and their ratio, measured in this process, and checks that
the answers agree.  A second line times the exact bound for m up to 1e9, and the
KL relaxation, on the same number of pairs.  Target (issue 3): >= 1e5 exact bounds
per second on one core.

Issue 19: every exact bound is now a checked root (SciPy's inverse incomplete beta is
grossly wrong at some parameters).  The check must not cost speed: the exact bound's
rate is printed as a ratio to raw ``scipy.special.betainccinv`` on the same pairs, timed
alternately in this process (best of five), for m <= 149 and for m log-uniform up to
1e9 (the workload of the issue).  Target: each ratio at least 0.95.

Issue 30: the same ratio on every band of sizes, m uniform on 1..149 and on 1..1,000 (the
most common test sizes), and log-uniform up to 1e5 and up to 1e9: the checked bound is
never slower than the raw inverse (at least 0.95, the allowance for timing noise on a
shared machine).  ``--tiny``: 20,000 pairs and 30 for the loop (the smoke test).
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core

import numpy as np  # noqa: E402
from scipy import special  # noqa: E402

from heldout.accuracy import bounds as b  # noqa: E402
from heldout.config import SEED  # noqa: E402


def _rate(func, n_items: int, repeat: int = 1) -> float:
    """Items per second of CPU time (``time.process_time``), best of ``repeat`` runs.

    CPU time rather than wall time, so that other jobs sharing the machine do not
    distort the figures; the script runs single-threaded, so it is one core's rate.
    """
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        func()
        best = min(best, time.process_time() - t0)
    return n_items / best


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pairs", type=int, default=1_000_000, help="pairs for the vectorised bound"
    )
    parser.add_argument("--baseline", type=int, default=300, help="pairs for the Appendix C loop")
    parser.add_argument("--tiny", action="store_true", help="small sizes (the smoke test)")
    args = parser.parse_args(argv)
    if args.tiny:
        args.pairs, args.baseline = 20_000, 30

    rng = np.random.default_rng(SEED)
    m = rng.integers(1, 150, size=args.pairs)
    k = np.floor(rng.random(args.pairs) * (m + 1)).astype(np.int64)
    delta = 0.05

    rate_vec = _rate(lambda: b.exact_upper(k, m, delta), args.pairs, repeat=3)

    kb, mb = k[: args.baseline], m[: args.baseline]
    out_c = np.empty(args.baseline)
    out_fixed = np.empty(args.baseline)

    def article():
        for i in range(args.baseline):
            out_c[i] = b.appendix_c_bound(int(kb[i]), int(mb[i]), delta)

    def article_fixed():
        for i in range(args.baseline):
            out_fixed[i] = b.appendix_c_bound(int(kb[i]), int(mb[i]), delta, fixed=True)

    rate_c = _rate(article, args.baseline)
    rate_fixed = _rate(article_fixed, args.baseline)
    ours = b.exact_upper(kb, mb, delta)
    ours_km1 = b.exact_upper(np.maximum(kb - 1, 0), mb, delta)
    ours_km1 = np.where(kb == 0, 0.0, ours_km1)
    err_fixed = np.max(np.abs(out_fixed - ours))
    err_c = np.max(np.abs(out_c - ours_km1))

    print(f"exact_upper (vectorised), {args.pairs:,} pairs, m <= 149: {rate_vec:,.0f} bounds/s")
    print(f"Appendix C as printed (sums i < k),   {args.baseline} pairs: {rate_c:,.0f} bounds/s")
    print(
        f"Appendix C corrected (sums i <= k),   {args.baseline} pairs: {rate_fixed:,.0f} bounds/s"
    )
    print(
        f"speed-up over the article's program: {rate_vec / rate_c:,.0f}x (corrected: {rate_vec / rate_fixed:,.0f}x)"
    )
    print(f"agreement: corrected program vs exact_upper max |diff| = {err_fixed:.1e}")
    print(f"agreement: printed program vs exact_upper(k - 1) max |diff| = {err_c:.1e}")

    big_m = np.exp(rng.uniform(0, np.log(1e9), size=args.pairs)).astype(np.int64) + 1
    big_k = np.floor(rng.random(args.pairs) * (big_m + 1)).astype(np.int64)
    rate_big = _rate(lambda: b.exact_upper(big_k, big_m, delta), args.pairs)
    rate_kl = _rate(lambda: b.kl_upper(big_k, big_m, delta), args.pairs)
    print(f"exact_upper, {args.pairs:,} pairs, m log-uniform up to 1e9: {rate_big:,.0f} bounds/s")
    print(f"kl_upper (vectorised bisection), same pairs: {rate_kl:,.0f} bounds/s")
    print(
        f"TARGET exact bounds per second (m <= 149): {rate_vec:,.0f} (target >= 100,000) "
        f"{'met' if rate_vec >= 1e5 else 'missed'}"
    )
    mid_m = rng.integers(1, 1001, size=args.pairs)
    mid_k = np.floor(rng.random(args.pairs) * (mid_m + 1)).astype(np.int64)
    wide_m = np.exp(rng.uniform(0, np.log(1e5), size=args.pairs)).astype(np.int64) + 1
    wide_k = np.floor(rng.random(args.pairs) * (wide_m + 1)).astype(np.int64)
    bands = (
        ("m <= 149", k, m),
        ("m <= 1,000", mid_k, mid_m),
        ("m log-uniform to 1e5", wide_k, wide_m),
        ("m log-uniform to 1e9", big_k, big_m),
    )
    for label, kk, mm in bands:
        ratio = _ratio_to_raw(kk, mm, delta)
        print(
            f"TARGET checked exact bound / raw betainccinv ({label}): {ratio:.2f} "
            f"(target >= 0.95) {'met' if ratio >= 0.95 else 'missed'}"
        )


def _ratio_to_raw(k: np.ndarray, m: np.ndarray, delta: float, rounds: int = 5) -> float:
    """Rate of ``exact_upper`` over the rate of raw ``betainccinv`` on the same pairs.

    Both are timed alternately ``rounds`` times (CPU time, best of each), so a slow spell
    on the shared machine hurts both alike.  The raw call gets the pairs with ``k < m``
    (``k = m`` is the trivial bound 1), already converted to floats.
    """
    inner = k < m
    a, bb = (k[inner] + 1).astype(float), (m[inner] - k[inner]).astype(float)
    d = np.full(a.shape, delta)
    best_ours = best_raw = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        b.exact_upper(k, m, delta)
        t1 = time.process_time()
        special.betainccinv(a, bb, d)
        t2 = time.process_time()
        best_ours, best_raw = min(best_ours, t1 - t0), min(best_raw, t2 - t1)
    return best_raw / best_ours


if __name__ == "__main__":
    main()
