"""``heldout evaluate --engine duckdb|dask`` on a prediction log of 10^8 rows: rows per second, peak memory.

Run:  .venv/bin/python benchmarks/bench_engine.py  [--rows 100000000] [--memory-limit 1GB]
      [--engines duckdb,dask,dask-cluster] [--tiny]

A folder of Parquet files (a label and two models' scores, 10^7 rows per file, written
file by file so this script never holds the log) is evaluated out of core by each engine
in a child process: DuckDB, Dask on its local threads (``dask``) and Dask on a
``distributed`` LocalCluster of two single-threaded workers in the child's process
(``dask-cluster``; skipped when ``distributed`` is not installed).  Printed: rows per second of wall time and of CPU time, the child's peak
memory (VmHWM), and two ratios measured in this process:

* peak memory over the size of the log's numeric columns (8 bytes per value): the engine
  must stay far below it (target at most 0.5 at 10^8 rows, where the columns take 2.4 GB),
  since a log larger than memory is the point;
* CPU time per row of the engine over that of the in-memory ``heldout evaluate`` on the
  first file alone (the same statistics, from columns in memory): DuckDB's out-of-core
  passes (a GROUP BY per scored model, the covariances by one join of the items to their
  tables) may cost at most 4 times as much per row, Dask's (one numpy pass per partition
  and a tree of merges, a second pass for the covariances) at most 3 times (issue 42);
  Dask's wall-time ratio is printed too.  Each child's CPU time includes importing its
  engine (about 2 s for Dask and ``distributed``), which weighs at small sizes only.

The timed report is the whole of ``heldout evaluate --engine``: with the two models it
includes the best sets (the accuracy's from a ``GROUP BY`` of the right/wrong patterns,
at most 2^k groups for k models, the AUC's from the DeLong covariance the AUC intervals
already need), so their cost and memory are inside the printed numbers.
``--clusters G`` adds a column of G cluster ids (text) and passes ``--cluster``: the
report then also carries the clustered intervals, from a per-cluster ``GROUP BY``
(memory grows with G, not with the rows); the in-memory baseline stays the report
without clusters (so the CPU ratio charges the engine for its extra work).

``--tiny`` writes 2 x 10^5 rows (the smoke test); the verdicts at that size mean little
(the start-up of the engines dominates).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

_CHILD = (
    "import sys\n"
    "from heldout.cli import main\n"
    "import io, contextlib\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    rc = main(sys.argv[1:])\n"
    "kb = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
    "sys.stderr.write(f'PEAK_KB {kb}\\n')\n"
    "raise SystemExit(rc)\n"
)
#: The child on a ``distributed`` LocalCluster (threads in its own process, so VmHWM is its peak).
_CLUSTER = (
    "import distributed\n"
    "cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,\n"
    "                                   dashboard_address=None)\n"
    "client = distributed.Client(cluster)\n"
) + _CHILD.replace("raise SystemExit(rc)", "client.close(); cluster.close()\nraise SystemExit(rc)")
ENGINES = ("duckdb", "dask", "dask-cluster")


def _write_log(folder: str, rows: int, per_file: int, clusters: int = 0) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(30)
    paths = []
    for start in range(0, rows, per_file):
        m = min(per_file, rows - start)
        y = (rng.random(m) < 0.2).astype(np.int8)
        a = np.round(1 / (1 + np.exp(-(rng.normal(size=m) + 1.5 * y - 1.5))), 6)
        b = np.round(1 / (1 + np.exp(-(rng.normal(size=m) + 1.0 * y - 1.5))), 6)
        path = os.path.join(folder, f"part-{len(paths):04d}.parquet")
        columns = {"label": y, "model_a": a, "model_b": b}
        if clusters:
            ids = rng.integers(0, clusters, m)
            columns["site"] = pa.array(ids).cast(pa.string())
            del ids
        pq.write_table(pa.table(columns), path)
        paths.append(path)
        del y, a, b
    return paths


def _run(args: list[str], child: str = _CHILD) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, peak KB) of ``heldout ARGS`` in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", child, *args], capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, int(proc.stderr.split("PEAK_KB")[1].split()[0])


def _engines(text: str) -> list[str]:
    chosen = [e.strip() for e in text.split(",") if e.strip()]
    unknown = set(chosen) - set(ENGINES)
    if unknown:
        raise SystemExit(f"bench_engine.py: no engine {', '.join(sorted(unknown))} ({ENGINES})")
    if "dask-cluster" in chosen:
        try:
            import distributed  # noqa: F401
        except ImportError:
            print("dask-cluster skipped: distributed is not installed")
            chosen.remove("dask-cluster")
    return chosen


def _engine_run(engine: str, folder: str, memory_limit: str, extra: list[str]):
    if engine == "duckdb":
        args = ["evaluate", "--engine", "duckdb", folder, "--memory-limit", memory_limit]
        return _run([*args, *extra, "--json"])
    args = ["evaluate", "--engine", "dask", folder, *extra, "--json"]
    return _run(args, _CLUSTER if engine == "dask-cluster" else _CHILD)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**8, help="rows of the log (10^8)")
    parser.add_argument("--memory-limit", default="1GB", help="DuckDB's memory limit (1GB)")
    parser.add_argument("--tiny", action="store_true", help="2 x 10^5 rows (the smoke test)")
    parser.add_argument(
        "--clusters", type=int, default=0, help="add G cluster ids and --cluster (default none)"
    )
    parser.add_argument(
        "--engines", default=",".join(ENGINES), help=f"engines to time ({','.join(ENGINES)})"
    )
    args = parser.parse_args(argv)
    engines = _engines(args.engines)
    rows = 2 * 10**5 if args.tiny else args.rows
    per_file = min(10**7, max(rows // 2, 1))
    with tempfile.TemporaryDirectory() as folder:
        t0 = time.perf_counter()
        paths = _write_log(folder, rows, per_file, args.clusters)
        extra = ["--cluster", "site"] if args.clusters else []
        written = time.perf_counter() - t0
        size_mb = sum(os.path.getsize(p) for p in paths) / 2**20
        print(
            f"log: {rows:,} rows in {len(paths)} Parquet files, {size_mb:,.0f} MB, written in {written:.0f} s"
        )
        timed = {e: _engine_run(e, folder, args.memory_limit, extra) for e in engines}
        # the baseline stays the plain in-memory report: with --cluster it would add the AUC's
        # cluster bootstrap, which the engine leaves out (and which costs minutes at 10^7 rows)
        plain = ["--models", "model_a,model_b"] if args.clusters else []
        base_wall, base_cpu, base_peak = _run(["evaluate", paths[0], *plain, "--json"])
    first = min(per_file, rows)
    columns_mb = rows * 3 * 8 / 2**20
    what = f", {args.clusters:,} clusters" if args.clusters else ""
    print(
        f"in memory, first file ({first:,} rows): {base_wall:.1f} s wall, {base_cpu:.1f} s CPU, "
        f"{first / base_cpu:,.0f} rows/s CPU, peak {base_peak / 1024:,.0f} MB"
    )
    for engine, (wall, cpu, peak_kb) in timed.items():
        how = f"memory limit {args.memory_limit}" if engine == "duckdb" else "Dask"
        if engine == "dask-cluster":
            how = "distributed LocalCluster, 2 workers x 1 thread"
        elif engine == "dask":
            how = "Dask's local threads"
        print(
            f"engine {engine} ({how}{what}): {wall:.1f} s wall, {cpu:.1f} s CPU; "
            f"{rows / wall:,.0f} rows/s wall, {rows / cpu:,.0f} rows/s CPU; peak memory "
            f"{peak_kb / 1024:,.0f} MB for {columns_mb:,.0f} MB of numeric columns"
        )
        mem_ratio = peak_kb / 1024 / columns_mb
        cost_ratio = (cpu / rows) / (base_cpu / first)
        wall_ratio = (wall / rows) / (base_wall / first)
        name = "engine" if engine == "duckdb" else f"engine {engine}"
        cap = 4 if engine == "duckdb" else 3
        if engine != "duckdb":
            print(
                f"engine {engine}: wall time per row / in-memory wall time per row {wall_ratio:.2f}"
            )
        print(
            f"TARGET {name} {rows:.0e} rows, peak memory / numeric columns: {mem_ratio:.3f} "
            f"(target <= 0.5) {'met' if mem_ratio <= 0.5 else 'missed'}"
        )
        print(
            f"TARGET {name} {rows:.0e} rows, CPU per row / in-memory CPU per row: {cost_ratio:.2f} "
            f"(target <= {cap}) {'met' if cost_ratio <= cap else 'missed'}"
        )


if __name__ == "__main__":
    main()
