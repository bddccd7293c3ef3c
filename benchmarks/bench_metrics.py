"""Metric intervals at scale: DeLong on 10^7 scores, the paired BCa bootstrap, ``heldout evaluate``.

Run: ``.venv/bin/python benchmarks/bench_metrics.py`` (``--quick`` for smaller sizes).
Each timing is printed with a ratio against a baseline measured in the same process:

* DeLong: the usual midrank implementation of Sun and Xu's algorithm (three calls
  of ``scipy.stats.rankdata``), on the same 10^7 scores; and the O(n1 n0)
  definition on 2 x 10^4 scores, both giving the same variance;
* paired BCa bootstrap of F1: ``scipy.stats.bootstrap`` resampling the items
  (percentile method, which skips the O(n^2) jackknife BCa would need), per resample;
* ``heldout evaluate`` on a 10^7-row CSV with two models: the time to read the
  file's bytes (the I/O floor), and the peak memory of the command;
* the cluster bootstrap of the AUC (``heldout evaluate --cluster``) on 10^5 items in
  2,000 clusters with 2,000 resamples: against gathering each resample's items and
  recomputing the AUC from them, per resample.

The last lines are ``TARGET`` lines for ``make bench``.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy import stats

from heldout.metrics.auc import auc, delong
from heldout.metrics.bootstrap import bootstrap_interval, cluster_bootstrap_interval


def _timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - start, out


def _midrank_delong(y, s):
    """Sun and Xu's fast DeLong with midranks from scipy (the common implementation)."""
    x, z = s[y], s[~y]
    n1, n0 = x.size, z.size
    tz = stats.rankdata(np.concatenate([x, z]))
    tx, ty = stats.rankdata(x), stats.rankdata(z)
    v10 = (tz[:n1] - tx) / n0
    v01 = 1 - (tz[n1:] - ty) / n1
    return v10.mean(), v10.var(ddof=1) / n1 + v01.var(ddof=1) / n0


def _definition_delong(y, s):
    x, z = s[y], s[~y]
    psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    return v10.mean(), v10.var(ddof=1) / x.size + v01.var(ddof=1) / z.size


def bench_delong(n: int) -> float:
    rng = np.random.default_rng(0)
    y = rng.random(n) < 0.2
    s = np.round(rng.normal(size=n) + y, 4)  # ties included
    t_ours, d = _timed(delong, y, s)
    t_mid, (a_mid, v_mid) = _timed(_midrank_delong, y, s)
    assert math.isclose(d.auc, a_mid, rel_tol=1e-12) and math.isclose(d.cov, v_mid, rel_tol=1e-9)
    small = 20_000
    t_small, _ = _timed(delong, y[:small], s[:small])
    t_def, (a_def, v_def) = _timed(_definition_delong, y[:small], s[:small])
    d_small = delong(y[:small], s[:small])
    assert math.isclose(d_small.cov, v_def, rel_tol=1e-9)
    print(
        f"DeLong on {n:,} scores: {t_ours:.2f} s; scipy-midrank version {t_mid:.2f} s "
        f"(ratio {t_mid / t_ours:.1f}x)"
    )
    print(
        f"DeLong on {small:,} scores: {1e3 * t_small:.1f} ms; O(n1 n0) definition "
        f"{1e3 * t_def:.0f} ms (ratio {t_def / t_small:.0f}x)"
    )
    return t_ours


def bench_bootstrap(n: int, resamples: int) -> float:
    rng = np.random.default_rng(1)
    y = rng.random(n) < 0.3
    a = np.where(rng.random(n) < 0.85, y, ~y)
    b = np.where(rng.random(n) < 0.80, y, ~y)
    t_ours, d = _timed(bootstrap_interval, "f1", y, a, b, n_resamples=resamples, seed=1)

    def f1_diff(yy, aa, bb, axis=-1):
        def f1(p):
            tp = np.sum(yy & p, axis=axis)
            return 2 * tp / (2 * tp + np.sum(~yy & p, axis=axis) + np.sum(yy & ~p, axis=axis))

        return f1(aa) - f1(bb)

    base_resamples = max(resamples // 10, 50)
    t_base, _ = _timed(
        stats.bootstrap,
        (y, a, b),
        f1_diff,
        paired=True,
        vectorized=True,
        n_resamples=base_resamples,
        method="percentile",
        batch=10,
        random_state=2,
    )
    per_ours, per_base = t_ours / resamples, t_base / base_resamples
    print(
        f"paired BCa bootstrap of F1, {n:,} items, {resamples} resamples: {t_ours:.3f} s "
        f"[{d.low:+.4f}, {d.high:+.4f}]; scipy.stats.bootstrap per resample "
        f"{1e3 * per_base:.1f} ms vs {1e3 * per_ours:.3f} ms (ratio {per_base / per_ours:.0f}x)"
    )
    return t_ours


def bench_cluster_bootstrap(n: int, clusters: int, resamples: int) -> float:
    rng = np.random.default_rng(3)
    cl = rng.integers(0, clusters, n)
    y = rng.random(n) < 0.2
    s = np.round(rng.normal(size=n) + y * (1 + rng.normal(size=clusters)[cl]), 3)
    t_ours, e = _timed(
        cluster_bootstrap_interval, "auc", y, s, clusters=cl, n_resamples=resamples, seed=1
    )
    members = np.split(np.argsort(cl, kind="stable"), np.cumsum(np.bincount(cl))[:-1])

    def gather_once():
        idx = np.concatenate([members[k] for k in rng.integers(0, clusters, clusters)])
        return auc(y[idx], s[idx])

    base = 20
    t_base, _ = _timed(lambda: [gather_once() for _ in range(base)])
    per_ours, per_base = t_ours / resamples, t_base / base
    print(
        f"cluster bootstrap of the AUC, {n:,} items in {clusters:,} clusters, {resamples} "
        f"resamples: {t_ours:.2f} s [{e.low:.4f}, {e.high:.4f}]; gathering items per resample "
        f"{1e3 * per_base:.1f} ms vs {1e3 * per_ours:.2f} ms (ratio {per_base / per_ours:.0f}x)"
    )
    return t_ours


def _write_csv(path: str, n: int) -> None:
    """A label and two models' scores with six decimals, written with numpy bytes (fast)."""
    rng = np.random.default_rng(2)
    with open(path, "wb") as fh:
        fh.write(b"label,model_a,model_b\n")
        step = 1_000_000
        for start in range(0, n, step):
            m = min(step, n - start)
            y = rng.random(m) < 0.2
            rows = np.empty((m, 20), dtype=np.uint8)
            rows[:, 0] = ord("0") + y
            rows[:, [1, 10]] = ord(",")
            rows[:, 19] = ord("\n")
            for col, shift in ((2, 1.5), (11, 1.0)):
                p = 1 / (1 + np.exp(-(rng.normal(size=m) + shift * y - 1.5)))
                digits = np.minimum(np.round(p * 1e6), 999_999).astype(np.int64)
                rows[:, col] = ord("0")
                rows[:, col + 1] = ord(".")
                for k in range(6):
                    rows[:, col + 7 - k] = ord("0") + digits % 10
                    digits //= 10
            fh.write(rows.tobytes())


def bench_evaluate(n: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "predictions.csv")
        _write_csv(path, n)
        size_mb = os.path.getsize(path) / 2**20
        t_io, _ = _timed(lambda: open(path, "rb").read().count(b"\n"))
        # the child reports its own peak memory (VmHWM; a forked child's ru_maxrss can
        # include the parent's pages from before exec)
        code = (
            "import sys, resource; from heldout.cli import main; "
            f"rc = main(['evaluate', {path!r}, '--json']); "
            "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')] "
            "if sys.platform.startswith('linux') else []; "
            "kb = int(hwm[0].split()[1]) if hwm else "
            "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
            "sys.stderr.write(f'PEAK_KB {kb}\\n'); sys.exit(rc)"
        )
        t_cli, proc = _timed(
            subprocess.run, [sys.executable, "-c", code], capture_output=True, check=False
        )
    if proc.returncode != 0:
        raise SystemExit(proc.stderr.decode())
    peak_mb = int(proc.stderr.decode().split("PEAK_KB")[1].split()[0]) / 1024
    print(
        f"heldout evaluate on {n:,} rows x 2 models ({size_mb:.0f} MB CSV): {t_cli:.1f} s end "
        f"to end, peak memory {peak_mb:.0f} MB ({peak_mb * 2**20 / n:.0f} bytes per row); "
        f"reading the bytes alone {t_io:.2f} s (ratio {t_cli / t_io:.0f}x)"
    )
    return t_cli, peak_mb


def main() -> None:
    quick = "--quick" in sys.argv
    n_delong = 10**6 if quick else 10**7
    n_boot = 10**5
    n_eval = 10**6 if quick else 10**7
    t_eval, _ = bench_evaluate(n_eval)  # first, before this process holds large arrays
    t_delong = bench_delong(n_delong)
    t_boot = bench_bootstrap(n_boot, 2000)
    t_cluster = bench_cluster_bootstrap(n_boot, 2000, 2000)
    for name, figure, target in (
        (f"delong_{n_delong:.0e}_scores", t_delong, 5.0),
        ("paired_bca_f1_2000x1e5", t_boot, 5.0),
        ("cluster_bootstrap_auc_2000x1e5", t_cluster, 5.0),
        (f"evaluate_{n_eval:.0e}_rows_2_models", t_eval, 60.0),
    ):
        verdict = "met" if figure < target else "missed"
        print(f"TARGET {name}: {figure:.2f} s (target {target:g} s) {verdict}")


if __name__ == "__main__":
    main()
