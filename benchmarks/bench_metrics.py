"""Metric intervals at scale: DeLong on 10^7 scores, the paired BCa bootstrap, ``heldout evaluate``.

Run: ``.venv/bin/python benchmarks/bench_metrics.py`` (``--quick`` for smaller sizes,
``--tiny`` for the smoke test, ``--evaluate-only`` and ``--repeat N`` to time only
``heldout evaluate``; ``--help`` lists them).  Each timing is printed with a ratio
against a baseline measured in the same process, and every TARGET is such a ratio
(issue 30):

* DeLong: the usual midrank implementation of Sun and Xu's algorithm (three calls
  of ``scipy.stats.rankdata``), on the same 10^7 scores; and the O(n1 n0)
  definition on 2 x 10^4 scores, both giving the same variance;
* DeLong on two models' 10^7 full-precision scores (no decimal grid: the sorted path):
  its CPU time over that of one ``numpy.argsort`` of each model's scores (issue 42);
* paired BCa bootstrap of F1: ``scipy.stats.bootstrap`` resampling the items
  (percentile method, which skips the O(n^2) jackknife BCa would need), per resample;
* ``heldout evaluate`` on a 10^7-row CSV with two models (scores with six decimals): its
  CPU time over the CPU time of ``pyarrow.csv.read_csv`` reading the same file, both
  measured in one child process after its imports (see :func:`bench_evaluate` for exactly
  what is counted), target at most 2; its peak memory above the interpreter with its
  modules loaded, over the size of the numeric columns (rows x columns x 8 bytes), target
  at most 2; and the same data as Parquet, whose CPU time over the CSV's must be at most 1
  (no worse than CSV); and a copy of the CSV with full-precision scores (17 digits, no
  decimal grid, so DeLong's placement values need sorts): its peak memory over the numeric
  columns, target at most 2, and its CPU time over pyarrow's read of that file, target at
  most 2 (issue 42);
* the cluster bootstrap of the AUC (``heldout evaluate --cluster``) on 10^5 items in
  2,000 clusters with 2,000 resamples: against gathering each resample's items and
  recomputing the AUC from them, per resample.

The last lines are ``TARGET`` lines for ``make bench``: the five of ``evaluate`` above,
then DeLong at least twice the midrank implementation, DeLong on two models'
full-precision scores (the sorted path) in at most the CPU time of one ``numpy.argsort``
of each model's scores, the paired bootstrap at least 10 times ``scipy.stats.bootstrap``
per resample, the cluster bootstrap at least 10 times the gathering of items.
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
    small = min(20_000, n // 10)
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
    return t_mid / t_ours


def _cpu_timed(fn, *args, **kwargs):
    start = time.process_time()
    out = fn(*args, **kwargs)
    return time.process_time() - start, out


def bench_delong_full_precision(n: int) -> float:
    """DeLong on two models' full-precision scores (no decimal grid: the sorted path).

    CPU time of ``delong`` on both models over the CPU time of one ``numpy.argsort``
    of each model's scores, the first step of every sort-based DeLong (the midrank one
    ranks each model's scores three times); the midrank version is timed on one model
    and checked against ours.  The target is meant at 10^7 scores: 10^6 of them fit the
    processor's cache, where one argsort costs a third as much per item.
    """
    rng = np.random.default_rng(6)
    y = rng.random(n) < 0.2
    s = rng.normal(size=(2, n)) + np.array([[1.2], [0.8]]) * y
    t_ours, d = _cpu_timed(delong, y, s)
    t_sort = sum(_cpu_timed(np.argsort, row)[0] for row in s)
    t_mid, (a_mid, v_mid) = _cpu_timed(_midrank_delong, y, s[0])
    assert math.isclose(d.auc[0], a_mid, rel_tol=1e-12)
    assert math.isclose(d.cov[0, 0], v_mid, rel_tol=1e-9)
    print(
        f"DeLong on {n:,} full-precision scores x 2 models: {t_ours:.2f} s CPU; one argsort "
        f"of each model's scores {t_sort:.2f} s (ratio {t_ours / t_sort:.2f}); scipy-midrank "
        f"version on one model {t_mid:.2f} s"
    )
    return t_ours / t_sort


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
    return per_base / per_ours


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
    return per_base / per_ours


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


_CHILD = (
    "import sys, time\n"
    "def rss(field):\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith(field):\n"
    "            return int(line.split()[1])\n"
    "import io, contextlib\n"
    "import numpy, scipy.special, pyarrow, pyarrow.csv, pyarrow.parquet\n"
    "from heldout.cli import main\n"
    "from heldout.metrics import evaluate, prediction_files, auc, bootstrap, scores, rates, fscore\n"
    "base = rss('VmRSS')\n"
    "start, wall = time.process_time(), time.perf_counter()\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    rc = main(['evaluate', sys.argv[2], '--json'])\n"
    "cpu, cpu_wall = time.process_time() - start, time.perf_counter() - wall\n"
    "peak = rss('VmHWM') - base\n"
    "start, wall = time.process_time(), time.perf_counter()\n"
    "table = pyarrow.csv.read_csv(sys.argv[1])\n"
    "read, read_wall = time.process_time() - start, time.perf_counter() - wall\n"
    "assert rc == 0 and table.num_rows > 0\n"
    "sys.stderr.write(f'EVAL_CPU {cpu} READ_CPU {read} PEAK_KB {peak} '\n"
    "                 f'EVAL_WALL {cpu_wall} READ_WALL {read_wall}\\n')\n"
)


_PANDAS = (
    "import sys, time, pandas\n"
    "start = time.process_time()\n"
    "pandas.read_csv(sys.argv[1])\n"
    "sys.stderr.write(f'READ_CPU {time.process_time() - start}\\n')\n"
)


def _child(code: str, *args: str) -> dict:
    """The figures a child process running ``code`` writes on its stderr (``NAME value``)."""
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    words = proc.stderr.split()
    return {words[i]: float(words[i + 1]) for i in range(len(words) - 1) if words[i].isupper()}


def _write_full_precision(csv_path: str, path: str) -> None:
    """The same file with every score perturbed off the six-decimal grid (17 digits)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pacsv.read_csv(csv_path)
    rng = np.random.default_rng(5)
    cols = {"label": table.column("label")}
    for name in ("model_a", "model_b"):
        s = table.column(name).to_numpy()
        cols[name] = pa.array(np.clip(s + rng.uniform(-4e-7, 4e-7, s.size), 0.0, 1.0))
    pacsv.write_csv(pa.table(cols), path)


def bench_evaluate(n: int, repeat: int) -> tuple[float, float, float, float, float]:
    """CPU ratio to pyarrow's read, memory ratio to the numeric columns, Parquet/CSV CPU, and
    the memory and CPU ratios of a full-precision file.

    Each run is one child process that imports numpy, scipy, pyarrow and heldout's
    metric modules first (start-up is not counted: issue 30 has its own start-up target),
    then measures, with ``time.process_time`` (user + system CPU of every thread):

    * ``heldout evaluate FILE --json`` through the command line's ``main``, FILE the CSV,
      the same data as Parquet or the full-precision copy; its peak memory is the rise of
      the peak resident set (``VmHWM``) over the resident set after the imports, so it
      counts the columns, every temporary and whatever the readers' allocators keep;
    * then, in the same process, ``pyarrow.csv.read_csv`` of the same CSV (the
      full-precision copy for that file) with its defaults
      (every column, multithreaded): the baseline.  evaluate runs first, so the baseline
      profits from no memory evaluate set up, and both read a file the page cache holds
      (it was just written).

    CPU ratio: the median over ``repeat`` runs of evaluate's CPU on the CSV over the
    baseline's in the same process (a pair measured seconds apart, so a slow spell of the
    shared machine hits both; the ratio of the fastest runs is printed beside it); runs
    alternate CSV, Parquet and full precision, and the Parquet figure is its fastest run
    over the CSV's; memory ratio: the larger peak (CSV or Parquet) over the numeric
    columns, rows x 3 columns x 8 bytes.  The scores are written with six decimals, as many
    prediction files are; the full-precision copy (no decimal grid, so DeLong's placements
    need sorts) has the same numeric columns: its largest peak over them is the fourth
    figure, and the median of its paired CPU ratios (over the pyarrow read of that file)
    the fifth.
    """
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "predictions.csv")
        _write_csv(path, n)
        parquet = os.path.join(tmp, "predictions.parquet")
        pq.write_table(pacsv.read_csv(path), parquet)
        size_mb = os.path.getsize(path) / 2**20
        full = os.path.join(tmp, "full_precision.csv")
        _write_full_precision(path, full)
        best = {"csv": math.inf, "parquet": math.inf, "full": math.inf, "pyarrow": math.inf}
        peak_kb = {"csv": 0.0, "parquet": 0.0, "full": 0.0}
        paired = []  # evaluate of the CSV over the read of the CSV, in the same process
        paired_full = []  # the same for the full-precision copy and its own read
        for run in range(repeat):  # alternately, so a slow spell hits every one
            ratios, peaks, walls = [], [], []
            for name, target in (("csv", path), ("parquet", parquet), ("full", full)):
                got = _child(_CHILD, full if name == "full" else path, target)
                peaks.append(got["PEAK_KB"] / 1024)
                walls.append(got["EVAL_WALL"] / got["READ_WALL"])
                best[name] = min(best[name], got["EVAL_CPU"])
                if name != "full":
                    best["pyarrow"] = min(best["pyarrow"], got["READ_CPU"])
                peak_kb[name] = max(peak_kb[name], got["PEAK_KB"])
                ratios.append(got["EVAL_CPU"] / got["READ_CPU"])
            paired.append(ratios[0])
            paired_full.append(ratios[2])
            print(
                f"  run {run + 1}: evaluate / pyarrow read, CPU: CSV {ratios[0]:.2f}, "
                f"Parquet {ratios[1]:.2f}, full precision {ratios[2]:.2f} (wall {walls[0]:.2f}, "
                f"{walls[1]:.2f}, {walls[2]:.2f}); peak memory CSV {peaks[0]:.0f} MB, Parquet "
                f"{peaks[1]:.0f} MB, full precision {peaks[2]:.0f} MB"
            )
        t_pandas = _child(_PANDAS, path)["READ_CPU"]
    columns_mb = n * 3 * 8 / 2**20
    cpu_ratio = float(np.median(paired))
    mem_ratio = max(peak_kb["csv"], peak_kb["parquet"]) / 1024 / columns_mb
    full_ratio = peak_kb["full"] / 1024 / columns_mb
    pq_ratio = best["parquet"] / best["csv"]
    print(
        f"heldout evaluate on {n:,} rows x 2 models ({size_mb:.0f} MB CSV): {best['csv']:.2f} s CPU; "
        f"pyarrow read alone {best['pyarrow']:.2f} s CPU (median of the paired ratios "
        f"{cpu_ratio:.2f}, ratio of the fastest runs {best['csv'] / best['pyarrow']:.2f}); "
        f"pandas read alone {t_pandas:.2f} s CPU (ratio {best['csv'] / t_pandas:.2f})"
    )
    print(
        f"  peak memory above the loaded interpreter: CSV {peak_kb['csv'] / 1024:.0f} MB, Parquet "
        f"{peak_kb['parquet'] / 1024:.0f} MB; numeric columns {columns_mb:.0f} MB (ratio {mem_ratio:.2f})"
    )
    print(f"  from Parquet: {best['parquet']:.2f} s CPU (ratio to CSV {pq_ratio:.2f})")
    print(
        f"  full-precision scores (no decimal grid): {best['full']:.2f} s CPU, median of the "
        f"paired ratios to its pyarrow read {float(np.median(paired_full)):.2f}; "
        f"peak {peak_kb['full'] / 1024:.0f} MB (ratio {full_ratio:.2f})"
    )
    return cpu_ratio, mem_ratio, pq_ratio, full_ratio, float(np.median(paired_full))


def main(argv=None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tiny",
        action="store_true",
        help="the smoke test: evaluate and DeLong on 10^5 rows, one evaluate run",
    )
    parser.add_argument(
        "--quick", action="store_true", help="evaluate and DeLong on 10^6 rows (default 10^7)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="paired evaluate runs per file (default 5; 1 with --tiny)",
    )
    parser.add_argument(
        "--evaluate-only",
        action="store_true",
        help="only the evaluate figures and their five TARGET lines",
    )
    args = parser.parse_args(argv)
    tiny, quick = args.tiny, args.quick
    n_delong = 10**5 if tiny else 10**6 if quick else 10**7
    n_boot = 10**4 if tiny else 10**5
    resamples = 200 if tiny else 2000
    n_eval = 10**5 if tiny else 10**6 if quick else 10**7
    repeat = args.repeat if args.repeat is not None else 1 if tiny else 5
    if repeat < 1:
        parser.error("--repeat must be at least 1")
    # first, before this process holds large arrays
    cpu_ratio, mem_ratio, pq_ratio, full_ratio, full_cpu = bench_evaluate(n_eval, repeat)
    others = []
    if not args.evaluate_only:
        r_delong = bench_delong(n_delong)
        r_full = bench_delong_full_precision(n_delong)
        r_boot = bench_bootstrap(n_boot, resamples)
        r_cluster = bench_cluster_bootstrap(n_boot, 200 if tiny else 2000, resamples)
        others = [
            (f"delong {n_delong:.0e} scores, speed-up over midranks", r_delong, 2.0, False),
            (
                f"delong {n_delong:.0e} full-precision scores x 2, CPU / one argsort each",
                r_full,
                1.0,
                True,
            ),
            (f"paired BCa F1 {n_boot:.0e} items, speed-up per resample", r_boot, 10.0, False),
            (f"cluster bootstrap AUC {n_boot:.0e} items, speed-up", r_cluster, 10.0, False),
        ]
    for name, figure, target, smaller in (
        (f"evaluate {n_eval:.0e} rows x 2 models, CPU / pyarrow read", cpu_ratio, 2.0, True),
        (f"evaluate {n_eval:.0e} rows, peak memory / numeric columns", mem_ratio, 2.0, True),
        (f"evaluate {n_eval:.0e} rows, Parquet CPU / CSV CPU", pq_ratio, 1.0, True),
        (f"evaluate {n_eval:.0e} rows full precision, CPU / pyarrow read", full_cpu, 2.0, True),
        (
            f"evaluate {n_eval:.0e} rows full precision, peak / numeric columns",
            full_ratio,
            2.0,
            True,
        ),
        *others,
    ):
        met = figure <= target if smaller else figure >= target
        sign = "<=" if smaller else ">="
        print(
            f"TARGET {name}: {figure:.2f} (target {sign} {target:g}) {'met' if met else 'missed'}"
        )


if __name__ == "__main__":
    main()
