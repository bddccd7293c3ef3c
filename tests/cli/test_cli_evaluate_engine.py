"""``heldout evaluate --engine``: the out-of-core report matches the in-memory command."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from heldout.cli import main

pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture()
def folder(tmp_path):
    rng = np.random.default_rng(3)
    n = 4000
    y = (rng.random(n) < 0.25).astype(np.int64)
    a = np.round(np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, n), 0, 1), 4)
    b = np.where(rng.random(n) < 0.85, y, 1 - y)
    out = tmp_path / "log"
    out.mkdir()
    for i, sl in enumerate((slice(0, 1500), slice(1500, n))):
        pq.write_table(pa.table({"label": y[sl], "a": a[sl], "b": b[sl]}), out / f"{i}.parquet")
    csv = tmp_path / "all.csv"
    csv.write_text(
        "label,a,b\n" + "".join(f"{u},{float(v)!r},{w}\n" for u, v, w in zip(y, a, b, strict=True))
    )
    return out, csv


def _json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_engine_report_matches_the_in_memory_command(capsys, folder):
    out, csv = folder
    mem = _json(capsys, "evaluate", str(csv), "--seed", "2", "--resamples", "300")
    got = _json(
        capsys, "evaluate", "--engine", "duckdb", str(out), "--seed", "2", "--resamples", "300"
    )
    assert got["engine"] == "duckdb" and got["files"] == 2
    _assert_same_report(mem, got, ("a", "b"), ("value", "low", "high", "p_value", "p_adjusted"))


def _assert_same_report(mem, got, names, pair_keys):
    """Every metric of ``names`` (method, value, interval) and of the first pair
    (``pair_keys``) to 1e-12, and the best sets, equal in the two reports."""
    for name in names:
        for metric, e in mem["models"][name]["metrics"].items():
            g = got["models"][name]["metrics"][metric]
            assert g["method"] == e["method"]
            for key in ("value", "low", "high"):
                assert math.isclose(g[key], e[key], rel_tol=1e-12), (name, metric, key)
    for metric, e in mem["pairs"][0]["metrics"].items():
        g = got["pairs"][0]["metrics"][metric]
        for key in pair_keys:
            assert math.isclose(g[key], e[key], rel_tol=1e-12), (metric, key)
    assert got["best"] == mem["best"]


def test_engine_clustered_accuracy_and_adjustment_match_the_in_memory_command(capsys, tmp_path):
    rng = np.random.default_rng(8)
    n = 3000
    site = rng.integers(0, 40, n)
    y = (rng.random(n) < 0.3).astype(np.int64)
    right = rng.random(n) < 0.75 + rng.normal(0, 0.1, 40)[site]
    cols = {"a": np.where(right, y, 1 - y), "b": np.where(rng.random(n) < 0.7, y, 1 - y),
            "c": np.where(rng.random(n) < 0.72, y, 1 - y)}  # fmt: skip
    csv = tmp_path / "log.csv"
    csv.write_text(
        "label,site,a,b,c\n"
        + "".join(
            f"{y[i]},s{site[i]},{cols['a'][i]},{cols['b'][i]},{cols['c'][i]}\n" for i in range(n)
        )
    )
    common = ["--cluster", "site", "--seed", "2", "--resamples", "200", "--adjust", "bonferroni"]
    mem = _json(capsys, "evaluate", str(csv), *common)
    got = _json(capsys, "evaluate", "--engine", "duckdb", str(csv), *common)
    assert got["cluster"] == "site" and got["clusters"] == mem["clusters"] == 40
    for name in cols:
        e, g = (
            mem["models"][name]["metrics"]["accuracy"],
            got["models"][name]["metrics"]["accuracy"],
        )
        assert g["method"] == e["method"] == "clustered-wilson (CR1, 40 clusters)"
        for key in ("value", "low", "high", "se_cluster", "design_effect"):
            assert math.isclose(g[key], e[key], rel_tol=1e-12), (name, key)
    for e, g in zip(mem["pairs"], got["pairs"], strict=True):
        a, b = e["metrics"]["accuracy"], g["metrics"]["accuracy"]
        assert b["adjust"] == a["adjust"] == "bonferroni"
        for key in ("value", "low", "high", "p_value", "p_adjusted"):
            assert math.isclose(b[key], a[key], rel_tol=1e-12), key
    assert got["best"] == mem["best"]


def test_engine_refusals_exit_2(capsys, folder, tmp_path):
    out, _ = folder
    assert main(["evaluate", "--engine", "duckdb", str(out), "--stratum", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no column named 'x' (the strata)" in err
    assert main(["evaluate", "--engine", "dask", str(out), "--stratum", "x"]) == 2
    assert "no column named 'x' (the strata)" in capsys.readouterr().err
    assert main(["evaluate", "--engine", "duckdb", str(out), "--shares", "a=1"]) == 2
    assert "--shares needs --stratum" in capsys.readouterr().err
    assert main(["evaluate", "--engine", "duckdb", str(out), "--cluster", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no column named 'x'" in err
    assert main(["evaluate", "--engine", "duckdb", str(tmp_path / "none" / "*.parquet")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file" in err
    assert main(["evaluate", str(out / "0.parquet"), "--memory-limit", "1GB"]) == 2


def test_engine_several_classes_match_the_in_memory_command(capsys, tmp_path):
    rng = np.random.default_rng(9)
    n = 2000
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.65, y, rng.integers(0, 3, n))
    csv = tmp_path / "multi.csv"
    csv.write_text(
        "label,a,b\n" + "".join(f"{u},{v},{w}\n" for u, v, w in zip(y, a, b, strict=True))
    )
    mem = _json(capsys, "evaluate", str(csv), "--seed", "1", "--resamples", "200")
    got = _json(
        capsys, "evaluate", "--engine", "duckdb", str(csv), "--seed", "1", "--resamples", "200"
    )
    assert got["classes"] == mem["classes"] == [0, 1, 2]
    for name in ("a", "b"):
        assert got["models"][name]["metrics"].keys() == mem["models"][name]["metrics"].keys()
    _assert_same_report(mem, got, ("a", "b"), ("value", "low", "high", "p_value"))


def test_engine_stratified_means_match_the_in_memory_command(capsys, tmp_path):
    """``--stratum`` (and ``--shares``, and with ``--cluster``) by DuckDB: evaluate's fields.

    Three strata of different accuracy, a probability column (the Brier score and log
    loss get stratified t intervals) and a label column; the engine's per-stratum (and
    per-cluster) sums give every ``stratified`` field of the in-memory report to 1e-12,
    and a stratum missing from the shares is refused the same way.
    """
    rng = np.random.default_rng(12)
    n = 4000
    zone = rng.choice(["east", "north", "south"], n, p=[0.5, 0.3, 0.2])
    site = rng.integers(0, 50, n)
    y = (rng.random(n) < 0.3).astype(np.int64)
    hard = np.where(zone == "south", 0.6, 0.85)
    a = np.where(rng.random(n) < hard, y, 1 - y)
    p = np.round(np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, n), 0, 1), 4)
    csv = tmp_path / "zones.csv"
    csv.write_text(
        "label,zone,site,a,p\n"
        + "".join(f"{y[i]},{zone[i]},s{site[i]},{a[i]},{p[i]}\n" for i in range(n))
    )
    runs = (
        ["--stratum", "zone"],
        ["--stratum", "zone", "--shares", "east=0.2,north=0.3,south=0.5"],
        ["--stratum", "zone", "--cluster", "site"],
    )
    for extra in runs:
        common = [str(csv), "--models", "a,p", "--seed", "3", "--resamples", "200", *extra]
        mem = _json(capsys, "evaluate", *common)
        got = _json(capsys, "evaluate", "--engine", "duckdb", *common)
        assert got["stratum"] == mem["stratum"] == "zone"
        seen = 0
        for name in ("a", "p"):
            for metric, e in mem["models"][name]["metrics"].items():
                if "stratified" not in e:
                    assert "stratified" not in got["models"][name]["metrics"][metric]
                    continue
                s_mem, s_got = e["stratified"], got["models"][name]["metrics"][metric]["stratified"]
                assert s_got["method"] == s_mem["method"] and s_got["strata"].keys() == {
                    "east",
                    "north",
                    "south",
                }
                for key in ("value", "low", "high", "se"):
                    assert math.isclose(s_got[key], s_mem[key], rel_tol=1e-12), (extra, metric)
                for zone_name, part in s_mem["strata"].items():
                    assert s_got["strata"][zone_name]["n"] == part["n"]
                    assert math.isclose(
                        s_got["strata"][zone_name]["mean"], part["mean"], rel_tol=1e-12
                    )
                seen += 1
        assert seen == 12  # five rates of each column, the Brier score and log loss of p
    bad = [str(csv), "--models", "a,p", "--stratum", "zone", "--shares", "east=0.5,north=0.5"]
    assert main(["evaluate", *bad]) == 2
    in_memory = capsys.readouterr().err
    assert main(["evaluate", "--engine", "duckdb", *bad]) == 2
    assert capsys.readouterr().err == in_memory and "missing: ['south']" in in_memory
