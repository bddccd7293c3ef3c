"""``heldout evaluate`` on prediction logs larger than memory, through a data engine.

:func:`heldout.metrics.evaluate.evaluate` holds every column in memory.  A log of
10^9 predictions (a folder of Parquet files) does not fit; every metric of the
report is, however, a function of a few *mergeable* statistics, sums over the items
that an engine computes partition by partition and adds up:

* the counts of each (label, prediction) cell of every model, and of each
  (label, prediction A, prediction B) cell of every pair: accuracy, precision,
  recall, specificity, NPV and F1 with their exact intervals, McNemar's test, and
  the paired bootstrap of the label metrics (which resamples these eight counts,
  :func:`heldout.metrics.bootstrap.bootstrap_interval`, so it is the same bootstrap);
* the mean and variance of every scored model's per-item Brier and log loss, and of
  every pair's differences: the gamma and paired-t intervals;
* DeLong's placement values :cite:`delong1988`: for each distinct score of a model,
  the numbers of positives and negatives at it (an out-of-core ``GROUP BY``), whose
  running sums give the placement of every item (scores on a decimal grid are
  grouped by a whole-number key, checked on every row); the means and variances of
  the placements over the positives and over the negatives come from these tables,
  their covariances across models from one join of the items with them; together
  they give the AUCs and DeLong's covariance
  matrix of all scored models, hence the same AUC intervals, MOVER differences and
  AUC best set (:func:`heldout.metrics.report.auc_best_set`) as in memory;
* the counts of the right/wrong patterns (bit ``j`` set when model ``j`` is right;
  at most ``2^k`` groups for ``k`` models): the accuracy's best set of
  :func:`heldout.comparison.best.best_set`, which needs nothing else;
* with ``clusters`` (a column of cluster ids), per-cluster sums of the same cells and
  losses (one row per cluster): the cluster-robust intervals of every mean and of
  the paired differences on shared items, as
  :func:`heldout.dependent.clustered.clustered_mean` computes them from its own
  per-cluster sums, and the cluster bootstrap of F1 and of the differences of
  precision and NPV, which resamples per-cluster confusion tables
  (:func:`heldout.metrics.bootstrap.cluster_bootstrap_interval`; the clusters in the
  order of their ids as text, as the command line reads them, so the draws are the
  same).  The AUC's cluster bootstrap needs every item's score: it is not computed,
  and the AUC entries keep the independent-item interval with a ``cluster_note``.

With several classes (labels, or predicted labels, beyond 0 and 1) the statistics are
each model's (label, prediction) counts and each pair's (label, A, B) counts over the
classes (``GROUP BY``, at most 100^3 groups): the accuracy, the macro averages with
their delta-method intervals, McNemar's test and the paired bootstrap of the macro
metrics, as in memory; with clusters, the clustered accuracy and its paired difference.
With ``strata``, per-stratum counts and sums (per stratum and cluster with
clusters) give every mean's stratified estimate, as
:func:`heldout.dependent.strata.stratified_mean` computes it from the items.

Like ``evaluate``, the engine refuses with a one-line error probabilities or scores
beside several classes (only predicted labels are read there); the one thing it
leaves out is the AUC's cluster bootstrap, whose resamples need every item's score
(the AUC keeps its independent-item interval and a ``cluster_note`` says so).  A model
column's kind (labels, probabilities, or scores on any scale) follows
:func:`heldout.metrics.column_kinds.kind_of_summary`, computed from each column's
minimum, maximum and whether it holds whole numbers.

The report is built from them by :mod:`heldout.metrics.report`, the one builder that
also turns the in-memory path's statistics into ``evaluate``'s report.

Two engines compute them: DuckDB (one machine; it spills to disk when a sort,
group or join outgrows ``memory_limit``) and Dask (a cluster; a local one in the
tests).  Dask computes the two-class statistics by one numpy pass over each partition
(``heldout.metrics._partition_stats``: counts by ``np.bincount``, loss moments,
each model's positives and negatives at each distinct score) whose results are added
up by a tree of merges, and a second pass for the covariances of two or more scored
models' placement values; its memory is a few partitions (a Parquet row group, 32 MB
of CSV) and those tables (one row per distinct score).  With clusters the same pass adds per-cluster
sums (a table of one row per cluster); several classes and strata use Dask's frame
operations (``groupby`` sums) for their statistics.  Results equal the in-memory report on files that fit: the counts exactly,
the means and variances up to the rounding of a different order of summation
(relative differences near 1e-15; ``tests/metrics/test_engine.py``).  The engines
need the ``large`` extra (``pip install ".[large]"`` in a clone); this module imports them
only when called.
"""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path

import numpy as np

from heldout import _files as _limits
from heldout._checks import in_choices, show
from heldout.metrics.report import (
    _MAX_MODELS_BEST,
    _PROPER,
    _check_strata,
    _StrataSums,
    build_report,
)

__all__ = ["ENGINES", "evaluate_files"]

#: The engines :func:`evaluate_files` can use.
ENGINES = ("duckdb", "dask")

#: Up to this many models, the counts of cells, tables and patterns come from one GROUP BY.
_MAX_MODELS_GROUPED = 16
_EPS = 1e-15  # clipping of probabilities in the log loss (heldout.metrics.item_losses.EPS)


# --------------------------------------------------------------------------- sources
def _files(source) -> tuple[list[str], str]:
    """The files behind ``source`` (a file, a folder of Parquet files or a glob) and their format."""
    text = str(source)
    if os.path.isdir(text):
        found = sorted(glob.glob(os.path.join(text, "**", "*.parquet"), recursive=True))
        if not found:
            found = sorted(glob.glob(os.path.join(text, "**", "*.csv"), recursive=True))
    elif any(ch in text for ch in "*?["):
        found = sorted(glob.glob(text, recursive=True))
    else:
        found = [text] if os.path.isfile(text) else []
    if not found:
        raise ValueError(f"{text}: no such file, and no Parquet or CSV files match it")
    kinds = {Path(f).suffix.lower() for f in found}
    if kinds <= {".parquet", ".pq"}:
        return found, "parquet"
    if kinds == {".csv"}:
        return found, "csv"
    raise ValueError(f"{text}: give Parquet files or CSV files, not a mix ({sorted(kinds)})")


def _check_headers(files: list[str], fmt: str) -> None:
    """Each file's column names within the reader's limits, and none repeated, before any work.

    DuckDB would rename a repeated name (``a`` and ``a_1``) and describe a file of
    100,000 columns for minutes: the header (CSV) or schema (Parquet) is checked first,
    by the limits of :mod:`heldout._files` that the in-memory reader applies.
    """
    import csv

    for f in files:
        if fmt == "csv":
            with open(f, encoding="utf-8-sig", errors="replace", newline="") as fh:
                head = _limits.header_line(fh, f)
            if head.count(",") >= _limits.MAX_COLUMNS:  # before the csv module splits it
                _limits.check_header(head.split(","), f)
            names = next(csv.reader([head.rstrip("\r\n")]), [])
        else:
            try:
                import pyarrow.parquet as pq
            except ImportError:  # DuckDB reads the file; its names are checked after
                return
            try:
                names = pq.read_schema(f).names
            except Exception as exc:  # noqa: BLE001 (pyarrow's errors are its own types)
                raise ValueError(f"{f}: not a Parquet file pyarrow can read ({exc})") from None
        _limits.check_header(names, f)
        seen, repeated = set(), set()
        for name in names:
            (repeated if name in seen else seen).add(name)
        if repeated:
            raise ValueError(f"{f} repeats column names: {', '.join(sorted(repeated))}")


_MEMORY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$", re.IGNORECASE)
#: The most DuckDB threads asked for (it allocates per thread; 10**12 aborted the interpreter).
MAX_THREADS = 1024


def _check_resources(memory_limit, threads) -> None:
    """DuckDB's memory limit (a size such as ``"2GB"``) and threads (1 to ``MAX_THREADS``)."""
    if memory_limit is not None:
        m = _MEMORY.match(memory_limit) if isinstance(memory_limit, str) else None
        if m is None or float(m.group(1)) <= 0:
            raise ValueError(
                f"memory_limit must be a positive size such as '2GB' or '512MiB', got {show(memory_limit)}"
            )
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, int | np.integer):
            raise ValueError(
                f"threads must be a whole number from 1 to {MAX_THREADS}, got {show(threads)}"
            )
        if not 1 <= int(threads) <= MAX_THREADS:
            raise ValueError(f"threads must be from 1 to {MAX_THREADS}, got {show(threads)}")


def _q(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _columns(names, label, models, source, cluster=None, strata=None):
    if not in_choices(label, names):
        raise ValueError(
            f"{source}: no column named {show(label)} (the labels); columns are {', '.join(names)}"
        )
    for what, column in (("cluster", cluster), ("stratum", strata)):
        if column is None:
            continue
        if not in_choices(column, names):
            plural = "clusters" if what == "cluster" else "strata"
            raise ValueError(f"{source}: no column named {show(column)} (the {plural})")
        if column == label or (models is not None and column in models):
            raise ValueError(f"the {what} column {show(column)} must not be the label or a model")
    if models is None:
        models = [c for c in names if c not in (label, cluster, strata)]
    else:
        missing = [m for m in models if m not in names]
        if missing:
            raise ValueError(f"{source}: no column named {', '.join(map(repr, missing))}")
    if not models:
        raise ValueError(
            f"{source}: there is no model column besides the label column {show(label)}"
        )
    return list(models)


# --------------------------------------------------------------------------- DuckDB
def _duckdb_statistics(
    files, fmt, label, models, kinds, threshold, memory_limit, threads, cluster=None, strata=None
):
    import duckdb

    con = duckdb.connect()
    if memory_limit is not None:
        con.execute("SET memory_limit = '" + str(memory_limit).replace("'", "''") + "'")
    if threads is not None:
        con.execute(f"SET threads = {int(threads)}")
    con.execute("SET preserve_insertion_order = false")
    reader = "read_parquet" if fmt == "parquet" else "read_csv"
    listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
    con.execute(f"CREATE VIEW data AS SELECT * FROM {reader}([{listed}])")
    names = [r[0] for r in con.execute("DESCRIBE data").fetchall()]
    models = _columns(
        names, label, models, files[0] if len(files) == 1 else "the files", cluster, strata
    )
    y = _q(label)
    cols = [y] + [_q(m) for m in models]
    checks = ", ".join(
        f"count(*) FILTER (WHERE {c} IS NULL OR NOT isfinite({c}::DOUBLE)), "
        f"bool_and({c}::DOUBLE = round({c}::DOUBLE)), min({c}::DOUBLE), max({c}::DOUBLE)"
        for c in cols
    )
    tail = [(w, c) for w, c in (("cluster", cluster), ("stratum", strata)) if c is not None]
    for _, column in tail:
        checks += f", count(*) FILTER (WHERE {_q(column)} IS NULL)"
    row = con.execute(f"SELECT count(*), {checks} FROM data").fetchone()
    for (what, column), missing in zip(tail, row[len(row) - len(tail) :], strict=True):
        if missing:
            raise ValueError(f"the {what} column {show(column)} holds missing values")
    run = lambda sql: con.execute(sql).fetchall()  # noqa: E731
    stats = _finish(
        row[: len(row) - len(tail)] if tail else row,
        models,
        kinds,
        label,
        threshold,
        run,
        y,
        engine="duckdb",
        cluster=cluster,
    )
    if strata is not None:
        stats["strata"] = _strata_sql(run, y, strata, cluster, models, stats, threshold)
    return stats


def _read_summary(row, models, kinds, label):
    """``(n, kinds, kind sources, several classes)`` from the one-pass summary row.

    The row holds the item count, then for the label and each model column: any missing
    or non-finite value, every value whole, minimum and maximum (both engines' first pass).
    """
    n = int(row[0])
    summary = {}
    for i, name in enumerate([label, *models]):
        bad, whole, lo, hi = row[1 + 4 * i : 5 + 4 * i]
        if bad:
            raise ValueError(f"column {show(name)} holds missing values, NaN or infinities")
        summary[name] = (bool(whole), lo, hi)
    _check_labels(summary[label], label, n)
    kind_of, source = _kinds(models, kinds, summary)
    return n, kind_of, source, _several_classes(summary, label, models, kind_of)


def _finish(row, models, kinds, label, threshold, run, y, engine, cluster=None):
    """Validate the columns from the one-pass summary, then gather every statistic by SQL."""
    n, kind_of, source, several = _read_summary(row, models, kinds, label)
    if several:
        head = {"n": n, "kinds": kind_of, "kind_source": source, "multi": True}
        return {**head, **_multi_sql(run, y, models, cluster)}
    pred = {}
    for m in models:
        c = _q(m)
        pred[m] = f"({c} >= {threshold!r})" if kind_of[m] != "labels" else f"({c} = 1)"
    yb = f"({y} = 1)"
    pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    grouped = len(models) <= _MAX_MODELS_GROUPED
    sel = []
    if not grouped:  # filtered counts in the scan below
        sel.append("count(*) FILTER (WHERE " + yb + ")")
        for m in models:
            for cell in range(4):
                sel.append(_cell_filter([yb, pred[m]], cell))
        for a, b in pairs:
            for cell in range(8):
                sel.append(_cell_filter([yb, pred[a], pred[b]], cell))
    proper = [m for m in models if kind_of[m] == "probabilities"]
    loss = {m: _loss_sql(y, _q(m)) for m in proper}
    loss_series = {(which, m): loss[m][which] for m in proper for which in _PROPER}
    for i, a in enumerate(proper):
        for b in proper[i + 1 :]:
            for which in _PROPER:
                loss_series[(which, a, b)] = f"({loss[a][which]} - {loss[b][which]})"
    for expr in loss_series.values():
        sel += [f"avg({expr})", f"coalesce(stddev_samp({expr}), 0)"]
    out = list(run("SELECT " + ", ".join(sel) + " FROM data")[0]) if sel else []
    stats = {"n": n, "kinds": kind_of, "kind_source": source}
    # each model's minimum and maximum from the summary row (label first, four fields each)
    stats["ranges"] = {
        m: (float(row[7 + 4 * i]), float(row[8 + 4 * i])) for i, m in enumerate(models)
    }
    if grouped:
        stats.update(_grouped_counts(run, yb, models, pred, pairs))
    else:
        stats["n_positive"] = int(out.pop(0))
        stats["cells"] = {
            m: np.array([out.pop(0) for _ in range(4)], dtype=np.int64) for m in models
        }
        stats["tables"] = {
            p: np.array([out.pop(0) for _ in range(8)], dtype=np.int64) for p in pairs
        }
    stats["moments"] = {key: (float(out.pop(0)), float(out.pop(0))) for key in loss_series}
    scored = [m for m in models if kind_of[m] != "labels"]
    stats["delong"] = _delong_sql(run, y, scored, stats) if scored else None
    right = {m: f"({pred[m]} = {yb})" for m in models}
    if not grouped:
        stats["patterns"] = _patterns_sql(run, y, models, right) if len(models) > 1 else None
    if cluster is not None:
        stats["clusters"] = _clusters_sql(run, yb, _q(cluster), models, pred, loss_series)
    return stats


def _grouped_counts(run, yb, models, pred, pairs) -> dict:
    """Positives, every model's cells, every pair's table and the patterns: one ``GROUP BY``.

    The items are grouped by the label and every model's prediction (at most
    ``2 ** (k + 1)`` groups for ``k`` models); each count the filtered counts of the
    scan gave is a sum over these groups: a model's cell ``2 y + p``, a pair's
    ``4 y + 2 p_a + p_b``, and the right/wrong pattern ``sum_j [p_j = y] 2 ** j``
    (:func:`_patterns_sql`).
    """
    cols = [f"CAST({yb} AS INTEGER)"] + [f"CAST({pred[m]} AS INTEGER)" for m in models]
    rows = run(f"SELECT {', '.join(cols)}, count(*) FROM data GROUP BY ALL")
    table = np.array([[int(v) for v in r] for r in rows], dtype=np.int64).reshape(-1, len(cols) + 1)
    yv, p, count = table[:, 0], table[:, 1:-1], table[:, -1]
    at = {m: j for j, m in enumerate(models)}
    out = {"n_positive": int(count[yv == 1].sum())}
    out["cells"] = {
        m: np.bincount(2 * yv + p[:, at[m]], weights=count, minlength=4).astype(np.int64)
        for m in models
    }
    out["tables"] = {
        (a, b): np.bincount(
            4 * yv + 2 * p[:, at[a]] + p[:, at[b]], weights=count, minlength=8
        ).astype(np.int64)
        for a, b in pairs
    }
    if len(models) > 1:
        code = ((p == yv[:, None]).astype(np.int64) << np.arange(len(models))).sum(axis=1)
        out["patterns"] = _pattern_arrays(_summed(code, count))
    else:
        out["patterns"] = None
    return out


def _summed(keys: np.ndarray, counts: np.ndarray) -> list:
    """``(key, total count)`` of each distinct key."""
    distinct, inverse = np.unique(keys, return_inverse=True)
    totals = np.zeros(distinct.size, dtype=np.int64)
    np.add.at(totals, inverse, counts)
    return list(zip(distinct.tolist(), totals.tolist(), strict=True))


def _patterns_sql(run, y, models, right):
    """Counts of the right/wrong patterns (bit j: model j right), by ``GROUP BY``."""
    if len(models) > _MAX_MODELS_BEST:
        return None
    code = " + ".join(
        f"(CASE WHEN {right[m]} THEN {1 << j} ELSE 0 END)::BIGINT" for j, m in enumerate(models)
    )
    rows = run(f"SELECT code, count(*) FROM (SELECT {code} AS code FROM data) GROUP BY code")
    return _pattern_arrays(rows)


def _pattern_arrays(rows):
    rows = sorted((int(c), int(k)) for c, k in rows if int(k) > 0)
    codes = np.array([c for c, _ in rows], dtype=np.int64)
    counts = np.array([k for _, k in rows], dtype=np.int64)
    return codes, counts


def _clusters_sql(run, yb, cl, models, pred, loss_series):
    """Per-cluster sums: cell counts of every model and pair, sums of the per-item losses."""
    pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    sel = ["count(*)"]
    for m in models:
        sel += [_cell_filter([yb, pred[m]], cell) for cell in range(4)]
    for a, b in pairs:
        sel += [_cell_filter([yb, pred[a], pred[b]], cell) for cell in range(8)]
    for expr in loss_series.values():
        sel += [
            f"sum({expr})",
            f"sum({expr} * {expr})",
            f"count(*) FILTER (WHERE {expr} <> 0 AND {expr} <> 1)",
        ]
    ids = f"CAST({cl} AS VARCHAR)"  # the command line reads cluster ids as text
    rows = run(f"SELECT {ids} AS _id, {', '.join(sel)} FROM data GROUP BY _id")
    rows.sort(key=lambda r: r[0])  # the order of np.unique: the cluster bootstrap's draws
    table = np.array([r[1:] for r in rows], dtype=float)
    return _cluster_arrays(table, models, pairs, list(loss_series))


def _cluster_arrays(table, models, pairs, loss_keys):
    """Split the per-cluster table (one row per cluster) into named arrays."""
    out = {"sizes": table[:, 0]}
    col = 1
    for m in models:
        out[("cells", m)] = table[:, col : col + 4]
        col += 4
    for p in pairs:
        out[("tables", *p)] = table[:, col : col + 8]
        col += 8
    for key in loss_keys:
        out[("loss", *key)] = (table[:, col], table[:, col + 1], int(table[:, col + 2].sum()))
        col += 3
    return out


def _cell_filter(conditions, cell: int) -> str:
    """``count(*)`` of the items in ``cell`` (bits of the conditions, first = most significant)."""
    k = len(conditions)
    parts = []
    for j, cond in enumerate(conditions):
        bit = (cell >> (k - 1 - j)) & 1
        parts.append(cond if bit else f"NOT {cond}")
    return "count(*) FILTER (WHERE " + " AND ".join(parts) + ")"


def _loss_sql(y: str, p: str) -> dict:
    q = f"least(greatest({p}::DOUBLE, {_EPS!r}), {1 - _EPS!r})"
    return {
        "brier": f"(({p}::DOUBLE - {y}::DOUBLE) * ({p}::DOUBLE - {y}::DOUBLE))",
        "log_loss": f"(CASE WHEN {y} = 1 THEN -ln({q}) ELSE -ln(1 - {q}) END)",
    }


def _strata_sql(run, y, strata, cluster, models, stats, threshold) -> dict:
    """Per-stratum (and per-cluster) counts and sums of every mean's items, by ``GROUP BY``.

    For two classes, each model's four cells (tn, fp, fn, tp) per group, whose sums give
    the items and hits of accuracy, precision, recall, specificity and NPV, and for each
    probability column its Brier and log losses' count, sum, sum of squares, sample
    variance and number of values other than 0 and 1; for several classes, each
    model's items and right answers (the accuracy).  Groups: the strata, or the
    (stratum, cluster) pairs with clusters; stratum and cluster ids read as text, as
    the command line reads them.
    """
    kinds = stats["kinds"]
    ids = [f"CAST({_q(strata)} AS VARCHAR)"]
    if cluster is not None:
        ids.append(f"CAST({_q(cluster)} AS VARCHAR)")
    sel = []
    multi = bool(stats.get("multi"))
    yb = f"({y} = 1)"
    losses = []
    for m in models:
        c = _q(m)
        if multi:
            sel += ["count(*)", f"count(*) FILTER (WHERE {c} = {y})"]
            continue
        pred = f"({c} >= {threshold!r})" if kinds[m] != "labels" else f"({c} = 1)"
        sel += [_cell_filter([yb, pred], cell) for cell in range(4)]
        if kinds[m] == "probabilities":
            for which, expr in _loss_sql(y, c).items():
                losses.append((which, m))
                sel += [
                    "count(*)",
                    f"sum({expr})",
                    f"sum({expr} * {expr})",
                    f"coalesce(var_samp({expr}), 0)",
                    f"count(*) FILTER (WHERE {expr} <> 0 AND {expr} <> 1)",
                ]
    keys = ", ".join(f"{e} AS _g{i}" for i, e in enumerate(ids))
    rows = run(f"SELECT {keys}, {', '.join(sel)} FROM data GROUP BY ALL")
    group_ids = [tuple(r[: len(ids)]) for r in rows]
    table = np.array([r[len(ids) :] for r in rows], dtype=float).reshape(len(rows), len(sel))
    return _strata_arrays(group_ids, table, models, kinds, multi, cluster is not None)


def _strata_arrays(group_ids, table, models, kinds, multi: bool, clustered: bool) -> dict:
    """The per-group table of either engine, named: the groups sorted by their ids as text.

    ``group_ids``: (stratum,) or (stratum, cluster) per row of ``table``, whose columns
    are, per model, its cells (four, or items and right answers with several classes)
    and, per probability column, five per loss (count, sum, sum of squares, sample
    variance, values other than 0 and 1).
    """
    order = sorted(range(len(group_ids)), key=group_ids.__getitem__)
    table = table[order]
    labels = sorted({group_ids[i][0] for i in order})
    code = {h: k for k, h in enumerate(labels)}
    strata = np.array([code[group_ids[i][0]] for i in order], dtype=np.int64)
    out = {"labels": labels, "stratum": strata, "clustered": clustered, "multi": multi}
    col = 0
    for m in models:
        width = 2 if multi else 4
        out[("cells", m)] = table[:, col : col + width]
        col += width
        if not multi and kinds[m] == "probabilities":
            for which in _PROPER:
                out[("loss", which, m)] = table[:, col : col + 5]
                col += 5
    return out


def _delong_sql(run, y, scored, stats):
    """DeLong's means and covariances of the placement values, by GROUP BY score and a join.

    Each scored model's items are grouped by score (its key, :func:`_grid_keys`) into a
    temporary table of (score, positives, negatives) with every group's placement values
    from running sums in score order (DeLong's :math:`V_{10}`, :math:`V_{01}`); the
    means and variances are sums over that table weighted by the counts, and only the
    covariances of two models need the items: one join of every item to both tables
    (``covar_samp`` per class).  One model needs no join.
    """
    n1 = stats["n_positive"]
    n0 = stats["n"] - n1
    if n1 == 0 or n0 == 0:
        return None
    keys = _grid_keys(run, scored, stats.get("ranges", {}))
    k = len(scored)
    tables = [f"heldout_placements_{i}" for i in range(k)]
    means = {"v10": np.zeros(k), "v01": np.zeros(k)}
    covs = {"v10": np.zeros((k, k)), "v01": np.zeros((k, k))}
    try:
        for i, m in enumerate(scored):
            run(
                f"CREATE OR REPLACE TEMP TABLE {tables[i]} AS "
                f"WITH g AS (SELECT {keys[m]} AS s, count(*) FILTER (WHERE {y} = 1) AS pos, "
                f"count(*) FILTER (WHERE {y} <> 1) AS neg FROM data GROUP BY 1) "
                "SELECT s, pos, neg, "
                "(coalesce(sum(neg) OVER (ORDER BY s ROWS BETWEEN UNBOUNDED PRECEDING AND 1 "
                f"PRECEDING), 0) + 0.5 * neg) / {n0} AS v10, "
                f"({n1} - sum(pos) OVER (ORDER BY s ROWS BETWEEN UNBOUNDED PRECEDING AND "
                f"CURRENT ROW) + 0.5 * pos) / {n1} AS v01 FROM g"
            )
            a10, a01, s10, s01 = run(
                "SELECT a10, a01, sum(pos * (v10 - a10) * (v10 - a10)), "
                f"sum(neg * (v01 - a01) * (v01 - a01)) FROM {tables[i]}, "
                f"(SELECT sum(pos * v10) / {n1} AS a10, sum(neg * v01) / {n0} AS a01 "
                f"FROM {tables[i]}) GROUP BY a10, a01"
            )[0]
            means["v10"][i], means["v01"][i] = float(a10), float(a01)
            covs["v10"][i, i] = float(s10) / (n1 - 1) if n1 > 1 else 0.0
            covs["v01"][i, i] = float(s01) / (n0 - 1) if n0 > 1 else 0.0
        if k > 1:
            pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
            sel = [
                f"coalesce(covar_samp(p{i}.{side}, p{j}.{side}) FILTER (WHERE {cond}), 0)"
                for side, cond in (("v10", f"{y} = 1"), ("v01", f"{y} <> 1"))
                for i, j in pairs
            ]
            items = ", ".join([y] + [f"{keys[m]} AS _heldout_key{i}" for i, m in enumerate(scored)])
            joins = " ".join(
                f"JOIN {t} p{i} ON d._heldout_key{i} = p{i}.s" for i, t in enumerate(tables)
            )
            out = list(run(f"SELECT {', '.join(sel)} FROM (SELECT {items} FROM data) d {joins}")[0])
            for side in ("v10", "v01"):
                for i, j in pairs:
                    covs[side][i, j] = covs[side][j, i] = float(out.pop(0))
    finally:
        for t in tables:
            run(f"DROP TABLE IF EXISTS {t}")
    return _delong_result(means, covs, n1, n0)


def _grid_keys(run, scored, ranges) -> dict:
    """Each scored column's join key for DeLong's placement values: an integer when it can.

    A column whose scores all sit on a decimal grid (``round(s 10^d) / 10^d = s`` on
    every item, ``d`` at most 9 and ``|s| 10^d <= 2^40``, the rule of
    :func:`heldout.metrics.auc._grid_candidates`) is keyed by the whole number
    ``round(s 10^d)``: a one-to-one, increasing function of the score, so grouping,
    ordering and joining by it group, order and join the items exactly as the score
    does, and DuckDB hashes integers faster than doubles.  The grid ``d`` is proposed by
    the first 4,096 rows and checked on every row in one scan; a column off every grid
    keeps its own values as the key.
    """
    from heldout.metrics.auc import _grid_candidates

    keys = {m: _q(m) for m in scored}
    if not scored:
        return keys
    head = run(f"SELECT {', '.join(_q(m) + '::DOUBLE' for m in scored)} FROM data LIMIT 4096")
    sample = np.array(head, dtype=float).reshape(-1, len(scored))
    proposed = {}
    for j, m in enumerate(scored):
        low_high = ranges.get(m)
        first = next(iter(_grid_candidates(sample[:, j], low_high, unlimited=True)), None)
        if first is not None:
            proposed[m] = first[0]
    if proposed:
        checks = ", ".join(
            f"bool_and(round({_q(m)}::DOUBLE * {scale!r}) / {scale!r} = {_q(m)}::DOUBLE)"
            for m, scale in proposed.items()
        )
        for (m, scale), ok in zip(
            proposed.items(), run(f"SELECT {checks} FROM data")[0], strict=True
        ):
            if ok:
                keys[m] = f"CAST(round({_q(m)}::DOUBLE * {scale!r}) AS BIGINT)"
    return keys


def _delong_result(means, covs, n1, n0):
    from heldout.metrics.auc import DeLong

    return DeLong(means["v10"], covs["v10"] / n1 + covs["v01"] / n0, n1, n0)


def _check_labels(summary, label: str, n: int) -> None:
    whole, lo, hi = summary
    if n == 0:
        raise ValueError("no rows to evaluate")
    if not whole:
        raise ValueError("the label column must hold whole numbers (class labels such as 0 and 1)")
    _check_magnitude(label, lo, hi)
    if lo == hi:
        raise ValueError(f"the label column holds a single class ({int(lo)}); nothing to measure")


def _check_magnitude(name, lo, hi) -> None:
    """Refuse class labels an int64 cannot hold (``heldout._inputs.label_range``)."""
    from heldout._inputs import MAX_LABEL

    big = lo if abs(lo) >= abs(hi) else hi
    if abs(big) >= MAX_LABEL:
        raise ValueError(
            f"{name} holds the label {float(big):.6g}, too large for a class label "
            "(labels must be below 2**62 in magnitude)"
        )


def _several_classes(summary, label, models, kind_of) -> bool:
    """Labels or predicted labels beyond 0 and 1: the several-class report."""
    _, lo, hi = summary[label]
    multi = lo < 0 or hi > 1
    for m in models:
        if kind_of[m] == "labels":
            _check_magnitude(f"model {m!r}", *summary[m][1:])
            multi = multi or summary[m][1] < 0 or summary[m][2] > 1
    if multi:
        for m in models:
            if kind_of[m] != "labels":
                raise ValueError(
                    f"model {show(m)} holds {kind_of[m]}, which need labels 0 and 1; with several "
                    "classes the engine takes predicted labels only"
                )
    return multi


def _kinds(models, kinds, summary):
    """Each model's kind by the shared rule (:mod:`heldout.metrics.column_kinds`)."""
    from heldout.metrics.column_kinds import kind_of_summary

    kind_of, source = {}, {}
    for m in models:
        given = kinds if isinstance(kinds, str) else (kinds or {}).get(m)
        whole, lo, hi = summary[m]
        kind = kind_of_summary(whole, lo, hi, given, m)
        kind_of[m], source[m] = kind, "given" if given else "detected"
    return kind_of, source


# --------------------------------------------------------------------------- several classes
def _multi_sql(run, y, models, cluster):
    """Counts for the several-class report: each model's (label, prediction) cells, each
    pair's (label, A, B) cells, the right/wrong patterns and, with clusters, per-cluster
    counts of right answers (each a ``GROUP BY``, at most as many groups as classes^3)."""
    yi = f"{y}::BIGINT"
    col = {m: f"{_q(m)}::BIGINT" for m in models}
    out = {
        "cm": {m: run(f"SELECT {yi}, {col[m]}, count(*) FROM data GROUP BY ALL") for m in models},
        "triples": {},
    }
    pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    for a, b in pairs:
        out["triples"][(a, b)] = run(
            f"SELECT {yi}, {col[a]}, {col[b]}, count(*) FROM data GROUP BY ALL"
        )
    right = {m: f"({col[m]} = {yi})" for m in models}
    out["patterns"] = _patterns_sql(run, y, models, right) if len(models) > 1 else None
    if cluster is not None:
        sel = ["count(*)"] + [f"count(*) FILTER (WHERE {right[m]})" for m in models]
        for a, b in pairs:
            sel += [_cell_filter([right[a], right[b]], cell) for cell in range(4)]
        ids = f"CAST({_q(cluster)} AS VARCHAR)"
        rows = run(f"SELECT {ids} AS _id, {', '.join(sel)} FROM data GROUP BY _id")
        rows.sort(key=lambda r: r[0])
        out["clusters"] = _multi_cluster_arrays(np.array([r[1:] for r in rows], float), models)
    return out


def _multi_cluster_arrays(table, models):
    pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    out = {"sizes": table[:, 0]}
    for j, m in enumerate(models):
        out[("right", m)] = table[:, 1 + j]
    col = 1 + len(models)
    for p in pairs:
        out[("pair", *p)] = table[:, col : col + 4]  # cells (A right, B right), A first
        col += 4
    return out


def _multi_dask(ddf, label, models, clustered):
    """:func:`_multi_sql` on Dask."""
    import dask

    pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    frame = ddf.astype({c: "int64" for c in [label, *models]})
    lazy = {("cm", m): frame.groupby([label, m]).size() for m in models}
    for a, b in pairs:
        lazy[("triples", a, b)] = frame.groupby([label, a, b]).size()
    right = {m: (frame[m] == frame[label]).astype("int64") for m in models}
    if 1 < len(models) <= _MAX_MODELS_BEST:
        lazy["patterns"] = sum(right[m] * (1 << j) for j, m in enumerate(models)).value_counts()
    if clustered:
        cols = {"_n": right[models[0]] * 0 + 1}
        cols.update({f"_r{j}": right[m] for j, m in enumerate(models)})
        for i, (a, b) in enumerate(pairs):
            code = right[a] * 2 + right[b]
            for cell in range(4):
                cols[f"_p{i}_{cell}"] = (code == cell).astype("int64")
        lazy["clusters"] = ddf[["_cluster"]].assign(**cols).groupby("_cluster").sum()[list(cols)]
    keys = list(lazy)
    values = dict(zip(keys, dask.compute(*[lazy[k] for k in keys]), strict=True))

    def rows(series):
        return [(*(k if isinstance(k, tuple) else (k,)), int(v)) for k, v in series.items()]

    out = {
        "cm": {m: rows(values[("cm", m)]) for m in models},
        "triples": {(a, b): rows(values[("triples", a, b)]) for a, b in pairs},
        "patterns": _pattern_arrays(values["patterns"].items()) if "patterns" in values else None,
    }
    if clustered:
        out["clusters"] = _multi_cluster_arrays(_sorted_by_id(values["clusters"]), models)
    return out


# --------------------------------------------------------------------------- Dask
def _read_dask(files, fmt):
    """The log as a Dask frame: a partition per Parquet row group, or per 32 MB of CSV
    (pyarrow reads both formats)."""
    import dask.dataframe as dd

    if fmt == "parquet":
        return dd.read_parquet(files, split_row_groups=True)
    return dd.read_csv(files, blocksize="32MB", engine="pyarrow")


def _tree(parts: list, merge):
    """The partitions' results added up pairwise (a tree of delayed merges)."""
    import dask

    merge = dask.delayed(merge, pure=True)
    while len(parts) > 1:
        parts = [merge(*parts[i : i + 2]) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]  # fmt: skip
    return parts[0]


def _dask_statistics(files, fmt, label, models, kinds, threshold, cluster=None, strata=None):
    ddf = _read_dask(files, fmt)
    source = files[0] if len(files) == 1 else "the files"
    models = _columns(list(ddf.columns), label, models, source, cluster, strata)
    stats = _numpy_passes(ddf, label, models, kinds, threshold, cluster, strata)
    if strata is not None:
        frame = ddf[[label, *models]].astype("float64").assign(_stratum=ddf[strata].astype(str))
        if cluster is not None:
            frame = frame.assign(_cluster=ddf[cluster].astype(str))
        stats["strata"] = _strata_dask(frame, label, models, stats, threshold, cluster is not None)
    return stats


def _numpy_passes(ddf, label, models, kinds, threshold, cluster, strata) -> dict:
    """The statistics by ``heldout.metrics._partition_stats``: one pass over the
    partitions (a second for the covariances of two or more scored models' placements)."""
    import dask

    from heldout.metrics import _partition_stats as ps

    named = [(w, c) for w, c in (("cluster", cluster), ("stratum", strata)) if c is not None]
    nulls = tuple(c for _, c in named)
    keep = [label, *models, *nulls]
    first = dask.delayed(ps.first_pass, pure=True)
    parts = [first(p, label, models, threshold, nulls, cluster) for p in ddf[keep].to_delayed()]
    (got,) = dask.compute(_tree(parts, ps.merge_first))
    for (what, column), missing in zip(named, got["nulls"], strict=True):
        if missing:
            raise ValueError(f"the {what} column {show(column)} holds missing values")
    row = [got["n"]]
    for bad, whole, lo, hi in got["summary"]:
        row += [bad, whole, lo, hi]
    n, kind_of, source, several = _read_summary(row, models, kinds, label)
    if several:
        head = {"n": n, "kinds": kind_of, "kind_source": source, "multi": True}
        frame = ddf[[label, *models]].astype("float64")
        if cluster is not None:
            frame = frame.assign(_cluster=ddf[cluster].astype(str))
        return {**head, **_multi_dask(frame, label, models, cluster is not None)}
    pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    at = {m: i for i, m in enumerate(models)}
    proper = [m for m in models if kind_of[m] == "probabilities"]
    keys = [(w, m) for m in proper for w in _PROPER]
    keys += [(w, a, b) for i, a in enumerate(proper) for b in proper[i + 1 :] for w in _PROPER]
    index = {key: (key[0], *(at[m] for m in key[1:])) for key in keys}
    moments = {}
    for key in keys:
        count, mean, squares = got["moments"][index[key]]
        moments[key] = (mean, float(np.sqrt(squares / (count - 1))) if count > 1 else 0.0)
    stats = {"n": n, "n_positive": got["n_positive"], "kinds": kind_of, "kind_source": source}
    stats["cells"] = {m: got["cells"][at[m]].astype(np.int64) for m in models}
    stats["tables"] = {p: t.astype(np.int64) for p, t in zip(pairs, got["tables"], strict=True)}
    stats["moments"] = moments
    patterns = got["patterns"] if 1 < len(models) <= _MAX_MODELS_BEST else None
    stats["patterns"] = _pattern_arrays(zip(*patterns, strict=True)) if patterns else None
    if cluster is not None:
        stats["clusters"] = _cluster_table(got["clusters"], models, pairs, at, index)
    scored = [m for m in models if kind_of[m] != "labels"]
    tables = [got["values"][at[m]] for m in scored]
    stats["delong"] = _delong_numpy(ddf, label, scored, tables, stats) if scored else None
    return stats


def _cluster_table(cl, models, pairs, at, index) -> dict:
    """The merged per-cluster sums, named as :func:`_cluster_arrays` names them, the
    clusters in the order of their ids as text (as :func:`_clusters_sql` orders them)."""
    order = np.argsort(cl["ids"], kind="stable")
    out = {"sizes": cl["sizes"][order].astype(float)}
    for m in models:
        out[("cells", m)] = cl["cells"][at[m]][order].astype(float)
    for j, p in enumerate(pairs):
        out[("tables", *p)] = cl["tables"][j][order].astype(float)
    for key, i in index.items():
        t = cl["loss"][i][order]
        out[("loss", *key)] = (t[:, 0], t[:, 1], int(t[:, 2].sum()))
    return out


def _delong_numpy(ddf, label, scored, tables, stats):
    """DeLong's means and covariances from the merged value tables (and, with two or
    more scored models, one more pass for the covariances across models)."""
    import dask

    from heldout.metrics import _partition_stats as ps

    n1 = stats["n_positive"]
    n0 = stats["n"] - n1
    if n1 == 0 or n0 == 0:
        return None
    k = len(scored)
    means = {"v10": np.zeros(k), "v01": np.zeros(k)}
    covs = {"v10": np.zeros((k, k)), "v01": np.zeros((k, k))}
    lookups = []
    for i, table in enumerate(tables):
        v10, v01, m10, m01, var10, var01 = ps.placements(table, n1, n0)
        means["v10"][i], means["v01"][i] = m10, m01
        covs["v10"][i, i], covs["v01"][i, i] = var10, var01
        lookups.append(ps.centred_lookup(table, v10, v01, m10, m01))
    if k > 1:
        sweep = dask.delayed(ps.covariance_pass, pure=True)
        shared = dask.delayed(lookups, traverse=False)
        frames = ddf[[label, *scored]].to_delayed()
        parts = [sweep(p, label, scored, shared) for p in frames]
        ((s10, s01),) = dask.compute(_tree(parts, ps.merge_covariance))
        off = ~np.eye(k, dtype=bool)
        covs["v10"][off] = (s10 / (n1 - 1))[off] if n1 > 1 else 0.0
        covs["v01"][off] = (s01 / (n0 - 1))[off] if n0 > 1 else 0.0
    return _delong_result(means, covs, n1, n0)


def _strata_dask(ddf, label, models, stats, threshold, clustered) -> dict:
    """The per-stratum (per stratum and cluster) sums of :func:`_strata_sql`, by Dask.

    The same columns per group; the losses' sample variance comes from their sums and
    sums of squares (Dask's group sums), not from a second pass.
    """
    kinds, multi = stats["kinds"], bool(stats.get("multi"))
    y = ddf[label] == 1
    cols = {}
    j = 0
    for m in models:
        if multi:
            cols[f"_s{j}"] = ddf[m] * 0 + 1
            cols[f"_s{j + 1}"] = (ddf[m] == ddf[label]).astype("int64")
            j += 2
            continue
        pred = (ddf[m] >= threshold) if kinds[m] != "labels" else (ddf[m] == 1)
        code = y.astype("int64") * 2 + pred.astype("int64")
        for cell in range(4):
            cols[f"_s{j}"] = (code == cell).astype("int64")
            j += 1
        if kinds[m] == "probabilities":
            q = ddf[m].clip(_EPS, 1 - _EPS)
            for loss in ((ddf[m] - ddf[label]) ** 2, -(np.log(q).where(y, np.log1p(-q)))):
                cols[f"_s{j}"], cols[f"_s{j + 1}"] = ddf[m] * 0 + 1, loss
                cols[f"_s{j + 2}"] = loss * loss
                cols[f"_s{j + 3}"] = ddf[m] * 0.0  # (the variance, filled in below)
                cols[f"_s{j + 4}"] = ((loss != 0) & (loss != 1)).astype("int64")
                j += 5
    keys = ["_stratum", "_cluster"] if clustered else ["_stratum"]
    frame = ddf[keys].assign(**cols).groupby(keys).sum()[list(cols)].compute()
    ids = [tuple(str(v) for v in (i if isinstance(i, tuple) else (i,))) for i in frame.index]
    out = _strata_arrays(ids, frame.to_numpy(float), models, kinds, multi, clustered)
    for key in [k for k in out if isinstance(k, tuple) and k[0] == "loss"]:
        t = out[key]  # (a view of the table) the variance from the sums
        with np.errstate(invalid="ignore", divide="ignore"):
            spread = np.maximum(t[:, 2] - t[:, 1] ** 2 / t[:, 0], 0.0)
            t[:, 3] = np.where(t[:, 0] > 1, spread / (t[:, 0] - 1), 0.0)
    return out


def _sorted_by_id(frame):
    """The per-cluster frame in the order of its ids as text (as :func:`_clusters_sql`)."""
    ids = [str(i) for i in frame.index]
    order = sorted(range(len(ids)), key=ids.__getitem__)
    return frame.to_numpy(float)[order]


def _checked_options(
    source, label, models, engine, alpha, threshold, adjust, clusters, correction, best_draws,
    strata, shares,
):  # fmt: skip
    """evaluate_files' options checked before any file is read: ``(alpha, threshold,
    best_draws)``."""
    from heldout import _inputs
    from heldout._checks import as_probability
    from heldout.metrics.evaluate import _check_adjust

    a_ = float(as_probability(alpha, "alpha", scalar=True))
    _check_adjust(adjust)
    if not in_choices(correction, ("CR1", "CR0")):
        raise ValueError(f"correction must be 'CR1' or 'CR0', got {show(correction)}")
    if clusters is not None and not isinstance(clusters, str):
        raise ValueError(
            f"clusters must be the name of a column of cluster ids, got {show(clusters)}"
        )
    best_draws = int(_inputs.count(best_draws, "best_draws", minimum=99, scalar=True))
    if best_draws > 10_000_000:
        raise ValueError(f"best_draws must be at most 10,000,000, got {best_draws:,}")
    th = float(as_probability(threshold, "threshold", scalar=True))
    if not in_choices(engine, ENGINES):
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {show(engine)}")
    if models is not None and (
        not isinstance(models, list | tuple) or not all(isinstance(m, str) for m in models)
    ):
        raise ValueError(f"models must be a list of column names, got {show(models)}")
    if not isinstance(source, str | os.PathLike):
        raise ValueError(f"source must be a file, a folder or a glob, got {show(source)}")
    if not isinstance(label, str):
        raise ValueError(f"label must be a column name, got {show(label)}")
    if strata is not None and not isinstance(strata, str):
        raise ValueError(f"strata must be the name of a column of strata, got {show(strata)}")
    if shares is not None and strata is None:
        raise ValueError("shares need strata (a column of strata)")
    if strata is not None and strata == clusters:
        raise ValueError("the strata and the clusters must be different columns")
    return a_, th, best_draws


def _statistics(
    engine, source, files, fmt, label, models, kinds, th, memory_limit, threads, clusters, strata
):
    """The engine's statistics; its own errors (a bad file, a text column) as one line."""
    try:
        if engine == "duckdb":
            return _duckdb_statistics(
                files, fmt, label, models, kinds, th, memory_limit, threads, clusters, strata
            )
        return _dask_statistics(files, fmt, label, models, kinds, th, clusters, strata)
    except ImportError as exc:
        raise ValueError(
            f"engine {show(engine)} needs the 'large' extra (in a clone: pip install '.[large]'): {exc}"
        ) from None
    except ValueError:
        raise
    except Exception as exc:  # the engines' own errors (a bad file, a text column)
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]  # one line
        raise ValueError(f"{source}: the {engine} engine could not read it ({first})") from None


def evaluate_files(
    source: str | os.PathLike,
    label: str = "label",
    models: list[str] | None = None,
    *,
    engine: str = "duckdb",
    alpha: float = 0.05,
    kinds: dict | str | None = None,
    threshold: float = 0.5,
    n_resamples: int = 2000,
    seed: int | None = None,
    memory_limit: str | None = None,
    threads: int | None = None,
    adjust: str = "holm",
    clusters: str | None = None,
    correction: str = "CR1",
    best_draws: int = 10_000,
    strata: str | None = None,
    shares: dict | None = None,
) -> dict:
    """The report of :func:`heldout.metrics.evaluate.evaluate` for files of any size, by an engine.

    Every metric of the report is computed from mergeable statistics (see the
    module notes): cell counts, means and standard deviations of the per-item losses,
    DeLong's placement values :cite:`delong1988` from an out-of-core ``GROUP BY``
    of each model's scores, the counts of the models' right/wrong patterns (the best
    sets, :cite:`hsu1996`) and, with ``clusters``, per-cluster sums; memory stays
    bounded by the engine (DuckDB spills to disk beyond ``memory_limit``).  The intervals are those of
    :func:`heldout.metrics.evaluate.evaluate`: Clopper-Pearson :cite:`clopper1934` for
    the rates, McNemar with Agresti and Min's interval for the accuracy difference,
    the paired bootstrap of the label metrics (from the same eight counts), the
    ``"auto"`` AUC interval and MOVER difference, the gamma and paired-t intervals of
    the Brier score and log loss.

    Parameters
    ----------
    source : path
        A file (Parquet or CSV), a folder of Parquet (or CSV) files, or a glob.
    label : str, default "label"
        The label column (0 and 1, or whole numbers for several classes).
    models : list of str, optional
        Model columns (default: every other column).
    engine : {"duckdb", "dask"}
        DuckDB on this machine, or Dask (on the current ``distributed`` client when one
        is running, else Dask's local threads).
    alpha, kinds, threshold, n_resamples, seed
        As for :func:`heldout.metrics.evaluate.evaluate`.
    memory_limit : str, optional
        DuckDB's memory limit, e.g. ``"2GB"`` (it spills to a temporary folder beyond).
    threads : int, optional
        DuckDB's threads.
    adjust : {"holm", "bonferroni", "bh", "none"}
        Adjustment of the pairs' p-values within each metric, as in
        :func:`heldout.metrics.evaluate.evaluate`.
    clusters : str, optional
        A column of cluster ids: the cluster-robust (CR1 or CR0) interval
        :cite:`liang1986longitudinal` of every mean and paired difference of means, from
        per-cluster sums; the metrics that ``evaluate`` bootstraps by cluster keep the
        independent-item interval with a ``cluster_note``.
    correction : {"CR1", "CR0"}
        Small-sample factor of the cluster-robust variance.
    best_draws : int, default 10,000
        Draws of the best sets' step-down, as in ``evaluate``.
    strata : str, optional
        A column of strata: every mean gets ``evaluate``'s ``stratified``
        estimate (:func:`heldout.dependent.strata.stratified_mean`) from per-stratum
        counts and sums (per stratum and cluster with ``clusters``).
    shares : dict, optional
        Population share of each stratum (default: the log's own mix).

    Returns
    -------
    dict
        The keys of :func:`heldout.metrics.evaluate.evaluate`'s report (``best`` with
        several models, ``clusters`` with clusters) plus ``engine`` and ``files``.

    Examples
    --------
    >>> import tempfile, os
    >>> rng = np.random.default_rng(7)
    >>> y = (rng.random(400) < 0.3).astype(int)
    >>> p = np.round(np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, 400), 0, 1), 3)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "log.csv")
    ...     _ = open(path, "w").write("label,a\\n" + "".join(f"{u},{v}\\n" for u, v in zip(y, p)))
    ...     r = evaluate_files(path, n_resamples=200, seed=1)
    >>> round(r["models"]["a"]["metrics"]["auc"]["value"], 4), r["engine"]
    (0.9376, 'duckdb')
    >>> from heldout.metrics.evaluate import evaluate
    >>> evaluate(y, {"a": p}, n_resamples=200, seed=1)["models"]["a"]["metrics"]["f1"] == (
    ...     r["models"]["a"]["metrics"]["f1"])
    True
    """
    a_, th, best_draws = _checked_options(
        source, label, models, engine, alpha, threshold, adjust, clusters, correction,
        best_draws, strata, shares,
    )  # fmt: skip
    from heldout._checks import as_count
    from heldout.metrics.bootstrap import MAX_RESAMPLES

    n_resamples = as_count(
        n_resamples, "n_resamples", minimum=100, maximum=MAX_RESAMPLES, scalar=True
    )
    if not (kinds is None or isinstance(kinds, str | dict)):
        raise ValueError(
            f"kinds must be a kind, a dict of kinds by model, or None, got {show(kinds)}"
        )
    _check_resources(memory_limit, threads)
    files, fmt = _files(source)
    _check_headers(files, fmt)
    stats = _statistics(engine, source, files, fmt, label, models, kinds, th, memory_limit,
                        threads, clusters, strata)  # fmt: skip
    if clusters is not None and stats["clusters"]["sizes"].size < 2:  # as evaluate refuses
        raise ValueError(
            f"the cluster column {show(clusters)} holds a single cluster; need two or more"
        )
    if strata is not None:
        _check_strata(stats["strata"], shares)  # as evaluate checks them before any metric
        stats["stratified"] = _StrataSums(stats["strata"], shares, a_)
    names = list(stats["kinds"])
    out = build_report(stats, names, a_, int(n_resamples), seed, adjust, best_draws, correction)
    return {"engine": engine, "files": len(files), **out}
