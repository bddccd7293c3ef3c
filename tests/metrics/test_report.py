"""One report from statistics (issue 42): the in-memory path and the engines hand the
same statistics to :func:`heldout.metrics.report.build_report`.

The statistics each path passes to the builder are captured and compared: the counts
(cells, pair tables, right/wrong patterns, per-cluster sizes, cells and tables, the
several-class rows) exactly, the sums of floating-point values (loss moments, DeLong's
AUCs and covariance, per-cluster loss sums) to 1e-12 relative, since DuckDB and Dask add
them in another order.  The reports themselves are compared by ``test_engine.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from heldout.metrics import engine as engine_module
from heldout.metrics import report as report_module
from heldout.metrics.evaluate import evaluate

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")
pytest.importorskip("dask")


def _captured(monkeypatch, target, run):
    """The statistics ``run()`` hands to ``target.build_report``."""
    seen = []
    original = report_module.build_report

    def spy(stats, *args, **kwargs):
        seen.append(stats)
        return original(stats, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(target, "build_report", spy)
        run()
    assert len(seen) == 1
    return seen[0]


def _close(a, b, where):
    np.testing.assert_allclose(
        np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=1e-15, err_msg=where
    )


def _two_class(tmp_path):
    rng = np.random.default_rng(8)
    n = 900
    y = (rng.random(n) < 0.3).astype(int)
    a = np.round(np.clip(0.3 + 0.35 * y + rng.normal(0, 0.2, n), 0, 1), 3)
    b = np.round(np.clip(0.35 + 0.2 * y + rng.normal(0, 0.25, n), 0, 1), 2)
    lab = (rng.random(n) < 0.3 + 0.4 * y).astype(int)
    site = rng.integers(0, 25, n)
    path = tmp_path / "two.csv"
    with open(path, "w") as fh:
        fh.write("label,a,b,lab,site\n")
        for row in zip(y, a, b, lab, site, strict=True):
            fh.write(",".join(str(v) for v in row) + "\n")
    return path, y, {"a": a, "b": b, "lab": lab}, np.array([f"{s}" for s in site])


@pytest.mark.parametrize("engine", ["duckdb", "dask"])
def test_two_classes_every_path_computes_the_same_statistics(tmp_path, monkeypatch, engine):
    path, y, cols, site = _two_class(tmp_path)
    kw = {"seed": 1, "n_resamples": 100, "best_draws": 200}
    mem = _captured(monkeypatch, report_module, lambda: evaluate(y, cols, clusters=site, **kw))
    eng = _captured(
        monkeypatch,
        engine_module,
        lambda: engine_module.evaluate_files(path, clusters="site", engine=engine, **kw),
    )
    assert (mem["n"], mem["n_positive"]) == (eng["n"], eng["n_positive"]) == (y.size, y.sum())
    assert (
        mem["kinds"]
        == eng["kinds"]
        == {"a": "probabilities", "b": "probabilities", "lab": "labels"}
    )
    for m in cols:  # (tn, fp, fn, tp), counted here from the columns
        hit = cols[m] >= 0.5 if m != "lab" else cols[m] == 1
        direct = np.bincount(2 * y + hit, minlength=4)
        assert mem["cells"][m].tolist() == eng["cells"][m].tolist() == direct.tolist()
    assert mem["tables"].keys() == eng["tables"].keys()
    for p in mem["tables"]:
        assert mem["tables"][p].tolist() == eng["tables"][p].tolist()
    for key, value in eng["moments"].items():
        _close(mem["moments"][key][:2], value, str(key))
    _close(mem["delong"].auc, eng["delong"].auc, "auc")
    _close(mem["delong"].cov, eng["delong"].cov, "cov")
    assert mem["patterns"][0].tolist() == eng["patterns"][0].tolist()
    assert mem["patterns"][1].tolist() == eng["patterns"][1].tolist()
    cm, ce = mem["clusters"], eng["clusters"]
    assert cm.keys() == ce.keys()
    for key in cm:
        if key[0] == "loss":
            _close(cm[key][0], ce[key][0], str(key))
            _close(cm[key][1], ce[key][1], str(key))
            assert cm[key][2] == ce[key][2]
        else:
            assert cm[key].tolist() == ce[key].tolist(), key
    assert "items" in mem and "items" not in eng  # only memory holds every item


def test_several_classes_every_path_computes_the_same_rows(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    n = 600
    y = rng.integers(0, 4, n)
    cols = {m: np.where(rng.random(n) < 0.6, y, rng.integers(0, 5, n)) for m in ("a", "b")}
    site = rng.integers(0, 20, n)
    path = tmp_path / "multi.csv"
    with open(path, "w") as fh:
        fh.write("label,a,b,site\n")
        for row in zip(y, cols["a"], cols["b"], site, strict=True):
            fh.write(",".join(str(v) for v in row) + "\n")
    kw = {"seed": 1, "n_resamples": 100, "best_draws": 200}
    labels = np.array([str(s) for s in site])
    mem = _captured(monkeypatch, report_module, lambda: evaluate(y, cols, clusters=labels, **kw))
    eng = _captured(
        monkeypatch,
        engine_module,
        lambda: engine_module.evaluate_files(path, clusters="site", **kw),
    )
    assert mem["multi"] and eng["multi"]
    for m in cols:
        rows = sorted(tuple(int(v) for v in r) for r in eng["cm"][m])
        assert sorted(mem["cm"][m]) == rows
        assert sum(r[2] for r in rows if r[0] == r[1]) == int(np.sum(cols[m] == y))
    assert sorted(mem["triples"][("a", "b")]) == sorted(
        tuple(int(v) for v in r) for r in eng["triples"][("a", "b")]
    )
    assert mem["patterns"][0].tolist() == eng["patterns"][0].tolist()
    assert mem["patterns"][1].tolist() == eng["patterns"][1].tolist()
    for key in mem["clusters"]:
        assert (
            np.asarray(mem["clusters"][key]).tolist() == np.asarray(eng["clusters"][key]).tolist()
        )


@pytest.mark.parametrize("k", [3, 30])
def test_patterns_counted_in_blocks_give_best_sets_full_table_answer(monkeypatch, k):
    from heldout.comparison.best import best_set
    from heldout.metrics import evaluate as ev

    monkeypatch.setattr(ev, "_BLOCK", 97)  # many blocks: their counts are merged
    rng = np.random.default_rng(5)
    n = 1000
    y = (rng.random(n) < 0.4).astype(int)
    preds = {f"m{j}": np.where(rng.random(n) < 0.8 + 0.004 * j, y, 1 - y) for j in range(k)}
    r = evaluate(y, preds, seed=1, n_resamples=100, best_draws=300)["best"]["accuracy"]
    correct = np.column_stack([preds[m] == y for m in preds])
    ref = best_set(correct, 0.05, draws=300, seed=1)
    assert r["models"] == [f"m{j}" for j in ref.models]
    assert list(r["p_values"].values()) == [float(p) for p in ref.p_values]
