"""The out-of-core engines give evaluate's report (issue 30).

Each file below fits in memory, so ``evaluate`` on its columns is the reference: the
counts-based entries (rates, F1, McNemar, the bootstrap of the label metrics) must be
equal, and the entries built from means and variances (AUC, Brier score, log loss)
equal up to the rounding of a different order of summation (relative 1e-12).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from heldout.metrics.evaluate import evaluate

duckdb = pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from heldout.metrics.engine import evaluate_files  # noqa: E402

RTOL = 1e-12


def _same(ref, got, path=""):
    """Every field of ``ref`` is in ``got`` with the same value (floats to RTOL)."""
    if isinstance(ref, dict):
        for key, value in ref.items():
            if path == "" and key == "best":  # the engine does not compute best sets: it says so
                assert "in-memory path" in got["best"]["note"]
                continue
            assert key in got, f"{path}/{key} missing"
            _same(value, got[key], f"{path}/{key}")
    elif isinstance(ref, list):
        assert len(ref) == len(got), path
        for i, (u, v) in enumerate(zip(ref, got, strict=True)):
            _same(u, v, f"{path}[{i}]")
    elif isinstance(ref, float) and isinstance(got, float):
        assert math.isclose(ref, got, rel_tol=RTOL, abs_tol=1e-15), (path, ref, got)
    else:
        assert ref == got, (path, ref, got)


def _data(n, seed, rate=0.3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rate).astype(np.int64)
    a = np.round(np.clip(0.3 + 0.35 * y + rng.normal(0, 0.2, n), 0, 1), 3)  # many ties
    b = np.round(np.clip(0.35 + 0.25 * y + rng.normal(0, 0.25, n), 0, 1), 6)
    c = np.where(rng.random(n) < 0.8, y, 1 - y)
    return y, {"a": a, "b": b, "c": c}


def _parquet_folder(tmp_path, y, cols, parts=3):
    folder = tmp_path / "log"
    folder.mkdir()
    bounds = np.linspace(0, y.size, parts + 1).astype(int)
    for i in range(parts):
        sl = slice(bounds[i], bounds[i + 1])
        table = pa.table({"label": y[sl], **{m: v[sl] for m, v in cols.items()}})
        pq.write_table(table, folder / f"part-{i}.parquet")
    return folder


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    y, cols = _data(6000, 1)
    folder = _parquet_folder(tmp_path_factory.mktemp("engine"), y, cols)
    ref = evaluate(y, cols, n_resamples=300, seed=4)
    return folder, ref


def test_duckdb_on_a_folder_of_parquet_files_gives_evaluates_report(log):
    folder, ref = log
    got = evaluate_files(folder, engine="duckdb", n_resamples=300, seed=4)
    assert got["engine"] == "duckdb" and got["files"] == 3
    _same(ref, got)


def test_duckdb_reads_a_glob_and_a_csv_file(tmp_path, log):
    folder, ref = log
    _same(ref, evaluate_files(str(folder / "part-*.parquet"), n_resamples=300, seed=4))
    y, cols = _data(6000, 1)
    path = tmp_path / "p.csv"
    rows = ["label,a,b,c"] + [
        f"{y[i]},{float(cols['a'][i])!r},{float(cols['b'][i])!r},{cols['c'][i]}"
        for i in range(y.size)
    ]
    path.write_text("\n".join(rows) + "\n")
    _same(ref, evaluate_files(path, n_resamples=300, seed=4))


def test_duckdb_under_a_small_memory_limit_gives_the_same_report(log):
    folder, ref = log
    got = evaluate_files(folder, memory_limit="64MB", threads=1, n_resamples=300, seed=4)
    _same(ref, got)


def test_rare_positives_carry_evaluates_warnings(tmp_path):
    y, cols = _data(3000, 2, rate=0.003)
    folder = _parquet_folder(tmp_path, y, cols, parts=2)
    ref = evaluate(y, cols, n_resamples=200, seed=1)
    got = evaluate_files(folder, n_resamples=200, seed=1)
    assert "warning" in got["models"]["a"]["metrics"]["auc"]
    _same(ref, got)


def test_given_kinds_and_threshold_are_honoured(log):
    folder, _ = log
    y, cols = _data(6000, 1)
    ref = evaluate(y, cols, kinds="scores", threshold=0.4, n_resamples=200, seed=2, alpha=0.1)
    got = evaluate_files(folder, kinds="scores", threshold=0.4, n_resamples=200, seed=2, alpha=0.1)
    _same(ref, got)


@pytest.mark.parametrize(
    ("table", "match"),
    [
        ({"label": [0, 1, 2, 1], "a": [0.1, 0.2, 0.3, 0.4]}, "two classes"),
        ({"label": [1, 1, 1, 1], "a": [0.1, 0.2, 0.3, 0.4]}, "single class"),
        ({"label": [0, 1, 0, 1], "a": [0.1, 1.7, 0.3, 0.4]}, "outside"),
        ({"label": [0, 1, 0, 1], "a": [0.1, None, 0.3, 0.4]}, "missing"),
        ({"label": [0, 1, 0, 1], "a": ["x", "y", "z", "w"]}, "could not read"),
    ],
)
def test_bad_input_is_a_value_error(tmp_path, table, match):
    pq.write_table(pa.table(table), tmp_path / "bad.parquet")
    with pytest.raises(ValueError, match=match):
        evaluate_files(tmp_path / "bad.parquet")


def test_missing_files_and_bad_options(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        evaluate_files(tmp_path / "none.parquet")
    with pytest.raises(ValueError, match="engine"):
        evaluate_files(tmp_path / "none.parquet", engine="spark")
    pq.write_table(pa.table({"label": [0, 1], "a": [0.2, 0.7]}), tmp_path / "ok.parquet")
    with pytest.raises(ValueError, match="no column named 'nope'"):
        evaluate_files(tmp_path / "ok.parquet", models=["nope"])


def test_dask_on_a_local_cluster_gives_evaluates_report(log):
    pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    folder, ref = log
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        got = evaluate_files(folder, engine="dask", n_resamples=300, seed=4)
    assert got["engine"] == "dask"
    _same(ref, got)
