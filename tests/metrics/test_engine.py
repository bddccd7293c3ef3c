"""The out-of-core engines give evaluate's report (issue 30).

Each file below fits in memory, so ``evaluate`` on its columns is the reference: the
counts-based entries (rates, F1, McNemar, the bootstrap of the label metrics, the
accuracy's best set from the right/wrong pattern counts) must be equal, and the entries
built from means and variances (AUC and its best set, Brier score, log loss, the
clustered intervals from per-cluster sums) equal up to the rounding of a different order
of summation (relative 1e-12); with clusters, the cluster bootstrap of F1 and of the
differences of precision and NPV from per-cluster tables equals ``evaluate``'s when the
clusters are the same text ids (the engine draws them in the order of their ids as text,
as the command line reads them).  The one documented gap: the cluster bootstrap of the AUC
is not computed; that entry keeps the independent-item interval and says so in
``cluster_note``.
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
        if "cluster_note" in got and "cluster_note" not in ref:  # the AUC's cluster bootstrap
            assert ref["method"] == "cluster-bootstrap-bca" and path.endswith("/auc"), path
            assert "does not compute the cluster bootstrap" in got["cluster_note"]
            return
        for key, value in ref.items():
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
        ({"label": [0, 1, 2, 1], "a": [0.1, 0.2, 0.3, 0.4]}, "which need labels 0 and 1"),
        ({"label": [0, 1.5, 0, 1], "a": [0, 1, 0, 1]}, "whole numbers"),
        ({"label": [1, 1, 1, 1], "a": [0.1, 0.2, 0.3, 0.4]}, "single class"),
        ({"label": [0, 1, 0, 1], "a": [0.1, None, 0.3, 0.4]}, "missing"),
        ({"label": [0, 1, 0, 1], "a": ["x", "y", "z", "w"]}, "could not read"),
    ],
)
def test_bad_input_is_a_value_error(tmp_path, table, match):
    pq.write_table(pa.table(table), tmp_path / "bad.parquet")
    with pytest.raises(ValueError, match=match):
        evaluate_files(tmp_path / "bad.parquet")


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"threads": 0}, "threads"),
        ({"threads": 2.5}, "threads"),
        ({"threads": True}, "threads"),
        ({"threads": 10**12}, "threads"),  # before: std::bad_alloc aborted the interpreter
        ({"memory_limit": "-1"}, "memory_limit"),
        ({"memory_limit": "0GB"}, "memory_limit"),
        ({"memory_limit": ["2GB"]}, "memory_limit"),
        ({"memory_limit": "lots"}, "memory_limit"),
    ],
)
def test_engine_resources_checked_before_any_work(tmp_path, kw, match):
    pq.write_table(pa.table({"label": [0, 1], "a": [0.2, 0.7]}), tmp_path / "ok.parquet")
    with pytest.raises(ValueError, match=match):
        evaluate_files(tmp_path / "ok.parquet", **kw)


def test_engine_applies_the_readers_header_limits(tmp_path):
    """A repeated name is refused (DuckDB renamed it ``a_1``); a 100,000-column file in
    well under a second (DuckDB described it for minutes), by the limits of heldout._files."""
    import time

    from heldout import _files

    dup = tmp_path / "dup.csv"
    dup.write_text("label,a,a\n1,1,0\n0,0,1\n")
    with pytest.raises(ValueError, match="repeats column names: a"):
        evaluate_files(dup)
    pq.write_table(
        pa.table({"label": [0, 1], "a": [0.2, 0.7], "b": [1, 0]}), tmp_path / "p.parquet"
    )
    wide = tmp_path / "wide.csv"
    cols = _files.MAX_COLUMNS + 1
    wide.write_text(",".join(f"c{i}" for i in range(cols)) + "\n" + ",".join(["1"] * cols) + "\n")
    start = time.perf_counter()
    for engine in ("duckdb", "dask"):
        with pytest.raises(ValueError, match="more than the limit"):
            evaluate_files(wide, label="c0", engine=engine)
    assert time.perf_counter() - start < 5
    assert evaluate_files(tmp_path / "p.parquet", threads=1, memory_limit="1GB")["n"] == 2


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


def _clustered_data(n, seed, clusters=60):
    """Labels, four models (probabilities, scores on the real line, labels) and cluster ids
    with a shared cluster effect, so the clustered intervals differ from the independent."""
    rng = np.random.default_rng(seed)
    code = rng.integers(0, clusters, n)
    g = np.char.add("site-", code.astype(str))  # text ids, as the command line reads them
    shift = rng.normal(0, 0.15, clusters)[code]
    y = (rng.random(n) < np.clip(0.3 + shift, 0.05, 0.95)).astype(np.int64)
    a = np.round(np.clip(0.3 + 0.35 * y + rng.normal(0, 0.2, n) + shift, 0, 1), 3)
    b = np.round(np.clip(0.35 + 0.25 * y + rng.normal(0, 0.25, n), 0, 1), 6)
    c = np.where(rng.random(n) < 0.8 + 0.1 * np.sign(shift), y, 1 - y)
    s = np.round(rng.normal(size=n) + 1.2 * y + 3 * shift, 4)  # scores: the AUC only
    return y, g, {"a": a, "b": b, "c": c, "s": s}


@pytest.fixture(scope="module")
def clustered_log(tmp_path_factory):
    y, g, cols = _clustered_data(5000, 11)
    folder = tmp_path_factory.mktemp("clustered") / "log"
    folder.mkdir()
    for i, sl in enumerate((slice(0, 2000), slice(2000, 5000))):
        table = pa.table({"label": y[sl], "site": g[sl], **{m: v[sl] for m, v in cols.items()}})
        pq.write_table(table, folder / f"part-{i}.parquet")
    return folder, y, g, cols


def test_best_sets_and_real_valued_scores_equal_evaluates(clustered_log):
    folder, y, _, cols = clustered_log
    ref = evaluate(y, cols, n_resamples=200, seed=3, best_draws=2000)
    got = evaluate_files(
        folder, models=list(cols), n_resamples=200, seed=3, best_draws=2000, threads=1
    )
    assert got["models"]["s"]["kind"] == "scores" and set(got["best"]) == {"accuracy", "auc"}
    assert got["best"]["auc"]["p_values"].keys() == {"a", "b", "s"}
    _same(ref, got)
    # the engine's pattern counts are the in-memory ones: best_set on the columns themselves
    from heldout.comparison.best import best_set

    correct = np.column_stack([(cols[m] >= 0.5).astype(int) == y for m in cols])
    direct = best_set(correct, 0.05, draws=2000, seed=3)
    assert got["best"]["accuracy"]["models"] == [list(cols)[j] for j in direct.models]
    assert list(got["best"]["accuracy"]["p_values"].values()) == direct.p_values.tolist()


def test_clustered_means_and_differences_equal_evaluates(clustered_log):
    folder, y, g, cols = clustered_log
    ref = evaluate(y, cols, n_resamples=200, seed=5, clusters=g, correction="CR0")
    got = evaluate_files(
        folder, models=list(cols), clusters="site", correction="CR0", n_resamples=200, seed=5
    )
    assert got["clusters"] == ref["clusters"] == 60
    acc = got["models"]["a"]["metrics"]["accuracy"]
    assert acc["method"] == "clustered-wilson (CR0, 60 clusters)" and acc["design_effect"] > 1
    assert got["pairs"][0]["metrics"]["brier"]["method"].startswith("clustered-t")
    assert got["models"]["a"]["metrics"]["f1"]["method"] == "cluster-bootstrap-bca"
    assert "cluster bootstrap of the AUC" in got["models"]["a"]["metrics"]["auc"]["cluster_note"]
    _same(ref, got)


def test_clustered_accuracy_matches_an_independent_sandwich(clustered_log):
    """The clustered standard error of the accuracy equals statsmodels' cluster-robust OLS
    on a constant (CR1), computed from the items themselves."""
    sm = pytest.importorskip("statsmodels.api")
    folder, y, g, cols = clustered_log
    got = evaluate_files(folder, models=["c"], clusters="site", n_resamples=100, seed=1)
    correct = (cols["c"] == y).astype(float)
    groups = np.unique(g, return_inverse=True)[1]
    fit = sm.OLS(correct, np.ones(y.size)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    acc = got["models"]["c"]["metrics"]["accuracy"]
    assert math.isclose(acc["value"], float(fit.params[0]), rel_tol=1e-12)
    assert math.isclose(acc["se_cluster"], float(fit.bse[0]), rel_tol=1e-9)


def test_dask_computes_the_clustered_report_and_best_sets(clustered_log):
    pytest.importorskip("dask.dataframe")
    folder, y, g, cols = clustered_log
    ref = evaluate(y, cols, n_resamples=200, seed=5, clusters=g, best_draws=1000)
    got = evaluate_files(
        folder, models=list(cols), engine="dask", clusters="site", n_resamples=200, seed=5,
        best_draws=1000,
    )  # fmt: skip
    _same(ref, got)


@pytest.mark.parametrize(
    ("table", "kwargs", "match"),
    [
        ({"label": [0, 1, 0, 1], "a": [0.0, 1.0, 2.0**63, 1.0]}, {}, "too large for a class label"),
        ({"label": [0, 1, 0, 1], "a": [0.1, 0.2, 0.3, 0.4]}, {"kinds": "labels"}, "fractions"),
        ({"label": [0, 1, 0, 1], "a": [-1.0, 2.0, 0.5, 3.0]}, {"kinds": "probabilities"}, "outside"),
        ({"label": [0, 1, 0, 1], "a": [0.1, 0.2, 0.3, 0.4], "g": [1, 1, None, 2]},
         {"clusters": "g"}, "cluster column 'g' holds missing"),
        ({"label": [0, 1, 0, 1], "a": [0.1, 0.2, 0.3, 0.4]}, {"clusters": "g"}, "no column named 'g'"),
        ({"label": [0, 1, 0, 1], "a": [0.1, 0.2, 0.3, 0.4]}, {"clusters": "label"}, "must not be"),
        ({"label": [0, 1, 0, 1], "a": [0.1, 0.2, 0.3, 0.4]}, {"correction": "CR3"}, "correction"),
        ({"label": [0, 1, 0, 1], "a": [0.1, 0.2, 0.3, 0.4]}, {"best_draws": 5}, "best_draws"),
    ],
)  # fmt: skip
def test_refusals_name_the_reason(tmp_path, table, kwargs, match):
    pq.write_table(pa.table(table), tmp_path / "bad.parquet")
    with pytest.raises(ValueError, match=match):
        evaluate_files(tmp_path / "bad.parquet", **kwargs)


def test_a_single_cluster_is_refused_as_evaluate_refuses_it(tmp_path):
    y, _, cols = _clustered_data(400, 2)
    table = pa.table({"label": y, "g": np.zeros(y.size, int), "a": cols["a"]})
    pq.write_table(table, tmp_path / "one.parquet")
    with pytest.raises(ValueError, match="at least two distinct clusters"):
        evaluate(y, {"a": cols["a"]}, clusters=np.zeros(y.size, int))
    with pytest.raises(ValueError, match="holds a single cluster"):
        evaluate_files(tmp_path / "one.parquet", clusters="g")


def test_a_mask_with_a_single_cluster_is_a_note_as_in_evaluate(tmp_path):
    """Every actual positive sits in one cluster: the recall's clustered interval is
    undefined, and both paths keep the independent one with the same note."""
    rng = np.random.default_rng(4)
    g = np.char.add("c", (np.arange(600) // 100).astype(str))
    y = np.where(g == "c0", (rng.random(600) < 0.5), 0).astype(np.int64)
    a = np.where(rng.random(600) < 0.8, y, 1 - y)
    pq.write_table(pa.table({"label": y, "g": g, "a": a}), tmp_path / "m.parquet")
    ref = evaluate(y, {"a": a}, clusters=g, n_resamples=100, seed=1)
    got = evaluate_files(tmp_path / "m.parquet", clusters="g", n_resamples=100, seed=1)
    assert (
        "at least two distinct clusters" in got["models"]["a"]["metrics"]["recall"]["cluster_note"]
    )
    _same(ref, got)


@pytest.fixture(scope="module")
def several_classes(tmp_path_factory):
    """Four classes; model d also predicts two classes the labels never hold."""
    rng = np.random.default_rng(5)
    n = 4000
    y = rng.integers(0, 4, n)
    g = np.char.add("k", rng.integers(0, 30, n).astype(str))
    cols = {
        m: np.where(rng.random(n) < q, y, rng.integers(0, 4, n))
        for m, q in (("a", 0.7), ("b", 0.6))
    }
    cols["d"] = np.where(rng.random(n) < 0.5, y, rng.integers(0, 6, n))
    path = tmp_path_factory.mktemp("multi") / "log.parquet"
    pq.write_table(pa.table({"label": y, "grp": g, **cols}), path)
    return path, y, g, cols


@pytest.mark.parametrize("clustered", [False, True])
def test_several_classes_give_evaluates_report(several_classes, clustered):
    path, y, g, cols = several_classes
    ref = evaluate(y, cols, n_resamples=200, seed=4, clusters=g if clustered else None)
    got = evaluate_files(path, models=list(cols), n_resamples=200, seed=4,
                         clusters="grp" if clustered else None)  # fmt: skip
    assert got["classes"] == [0, 1, 2, 3, 4, 5] and "npv" not in got["models"]["a"]["metrics"]
    assert "not classes of the label column (4, 5)" in got["models"]["d"]["warning"]
    assert got["pairs"][0]["metrics"]["f1"]["method"] == "bootstrap-bca"
    _same(ref, got)


def test_several_classes_on_dask(several_classes):
    pytest.importorskip("dask.dataframe")
    path, y, g, cols = several_classes
    ref = evaluate(y, cols, n_resamples=200, seed=4, clusters=g, best_draws=500)
    got = evaluate_files(path, models=list(cols), engine="dask", n_resamples=200, seed=4,
                         clusters="grp", best_draws=500)  # fmt: skip
    _same(ref, got)


def test_several_classes_refuse_probabilities(tmp_path):
    table = {
        "label": [0, 1, 2, 1, 0, 2],
        "a": [0, 1, 2, 2, 0, 1],
        "p": [0.1, 0.9, 0.5, 0.4, 0.2, 0.3],
    }
    pq.write_table(pa.table(table), tmp_path / "m.parquet")
    with pytest.raises(
        ValueError, match="model 'p' holds probabilities, which need labels 0 and 1"
    ):
        evaluate_files(tmp_path / "m.parquet")
    with pytest.raises(ValueError, match="which need labels 0 and 1"):
        evaluate(np.array(table["label"]), {"a": np.array(table["a"]), "p": np.array(table["p"])})


def test_counts_by_filters_equal_counts_by_group_by(log, monkeypatch):
    """Above ``_MAX_MODELS_GROUPED`` models the cells come from filtered counts: same report."""
    import heldout.metrics.engine as engine

    folder, ref = log
    monkeypatch.setattr(engine, "_MAX_MODELS_GROUPED", 0)
    _same(ref, evaluate_files(folder, n_resamples=300, seed=4, threads=1))


def test_grid_keys_are_whole_numbers_only_where_every_row_is_on_the_grid(tmp_path):
    """DeLong's join keys: integers for columns on a decimal grid, the scores otherwise.

    Column ``g`` has three decimals everywhere; ``late`` has two in its first 4,096 rows
    and a third-of-a-unit value further down (off every grid: the proposal fails the
    full check and the column keeps its own values); ``wide`` holds scores beyond 2**40,
    where no whole-number key is proposed.  The report equals evaluate's either way.
    """
    from heldout.metrics.engine import _grid_keys

    rng = np.random.default_rng(9)
    n = 6000
    y = (rng.random(n) < 0.3).astype(np.int64)
    g = np.round(np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, n), 0, 1), 3)
    late = np.round(np.clip(0.35 + 0.2 * y + rng.normal(0, 0.2, n), 0, 1), 2)
    late[5000] = 1 / 3
    wide = np.round(rng.normal(0, 1, n) + y, 1) + 2.0**41
    cols = {"g": g, "late": late, "wide": wide}
    folder = _parquet_folder(tmp_path, y, cols, parts=2)
    con = duckdb.connect()
    con.execute(f"CREATE VIEW data AS SELECT * FROM read_parquet('{folder}/*.parquet')")
    ranges = {m: (float(v.min()), float(v.max())) for m, v in cols.items()}
    keys = _grid_keys(lambda sql: con.execute(sql).fetchall(), list(cols), ranges)
    assert keys["g"] == 'CAST(round("g"::DOUBLE * 1000.0) AS BIGINT)'
    assert keys["late"] == '"late"' and keys["wide"] == '"wide"'
    ref = evaluate(y, cols, n_resamples=200, seed=2)
    _same(ref, evaluate_files(folder, n_resamples=200, seed=2, threads=1))


def test_several_classes_stratified_accuracy_equals_evaluates(tmp_path):
    """Several classes: the accuracy's stratified estimate from per-stratum right answers,
    and a stratum of a single item refused before any metric, as evaluate refuses it."""
    rng = np.random.default_rng(21)
    n = 3000
    y = rng.integers(0, 3, n)
    cols = {
        m: np.where(rng.random(n) < q, y, rng.integers(0, 3, n))
        for m, q in (("a", 0.7), ("b", 0.6))
    }
    zone = rng.choice(np.array(["x", "y", "z"]), n).astype("<U4")
    folder = tmp_path / "log"
    folder.mkdir()
    pq.write_table(pa.table({"label": y, "zone": zone, **cols}), folder / "p.parquet")
    ref = evaluate(y, cols, strata=zone, n_resamples=200, seed=5)
    got = evaluate_files(folder, models=["a", "b"], strata="zone", n_resamples=200, seed=5)
    assert "stratified" in got["models"]["a"]["metrics"]["accuracy"]
    _same(ref, got)
    zone[0] = "lone"
    pq.write_table(pa.table({"label": y, "zone": zone, **cols}), folder / "p.parquet")
    with pytest.raises(ValueError, match="stratum 'lone' has 1 item") as mem:
        evaluate(y, cols, strata=zone)
    with pytest.raises(ValueError, match="stratum 'lone' has 1 item") as eng:
        evaluate_files(folder, models=["a", "b"], strata="zone")
    assert str(eng.value) == str(mem.value)


@pytest.mark.parametrize("clustered", [False, True])
def test_dask_computes_the_stratified_fields(tmp_path, clustered):
    """Dask's per-stratum (per stratum and cluster) sums give evaluate's stratified fields:
    two classes with a probability column and shares, and several classes."""
    pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(31)
    n = 4000
    zone = rng.choice(np.array(["e", "n", "s"]), n)
    site = np.array([f"w{i}" for i in rng.integers(0, 40, n)])
    y = (rng.random(n) < 0.3).astype(np.int64)
    cols = {
        "p": np.round(np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, n), 0, 1), 4),
        "c": np.where(rng.random(n) < np.where(zone == "s", 0.6, 0.85), y, 1 - y),
    }
    three = rng.integers(0, 3, n)
    multi = {"m": np.where(rng.random(n) < 0.7, three, rng.integers(0, 3, n))}
    shares = {"e": 0.2, "n": 0.3, "s": 0.5}
    extra = {"clusters": "site"} if clustered else {}
    for name, label, models in (("two", y, cols), ("three", three, multi)):
        folder = tmp_path / name
        folder.mkdir()
        table = pa.table({"label": label, "zone": zone, "site": site, **models})
        pq.write_table(table, folder / "p.parquet")
        ref = evaluate(
            label, models, strata=zone, shares=shares, n_resamples=200, seed=6,
            clusters=site if clustered else None,
        )  # fmt: skip
        got = evaluate_files(
            folder, models=list(models), engine="dask", strata="zone", shares=shares,
            n_resamples=200, seed=6, **extra,
        )  # fmt: skip
        assert "stratified" in got["models"][list(models)[0]]["metrics"]["accuracy"]
        _same(ref, got)


def test_dask_on_full_precision_scores_gives_evaluates_report(tmp_path):
    """Scores off every decimal grid: value tables by np.unique, merged across files."""
    pytest.importorskip("dask.dataframe")
    y, cols = _data(3000, 9)
    rng = np.random.default_rng(9)
    cols["b"] = np.clip(0.35 + 0.25 * y + rng.normal(0, 0.25, y.size), 0, 1)
    folder = _parquet_folder(tmp_path, y, cols)
    ref = evaluate(y, cols, n_resamples=200, seed=2, threshold=0.4)
    got = evaluate_files(folder, engine="dask", n_resamples=200, seed=2, threshold=0.4)
    _same(ref, got)
