"""``heldout evaluate FILE --cluster COLUMN`` (and ``--stratum``): clustered fields against
heldout.dependent.clustered and heldout.dependent.strata computed directly, bad columns, the alias."""

from __future__ import annotations

import numpy as np
import pytest
from cli_support import cli_json
from sklearn.metrics import roc_auc_score

from heldout.cli import main
from heldout.dependent.clustered import clustered_difference, clustered_mean
from heldout.dependent.strata import stratified_mean
from heldout.metrics.scores import brier_items


@pytest.fixture()
def clustered_file(tmp_path):
    rng = np.random.default_rng(11)
    g, m = 45, 8
    writer = np.repeat(np.arange(g), m)
    n = g * m
    y = (rng.random(n) < 0.35).astype(int)
    effect = rng.normal(0, 1.0, g)[writer]
    a = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + y * (2.0 + effect) - 1))), 4)
    b = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + y * (1.5 + effect) - 1))), 4)
    series = np.where(writer < 20, "census", "school")
    path = tmp_path / "clustered.csv"
    with open(path, "w") as fh:
        fh.write("label,model_a,writer,model_b,series\n")
        for row in zip(y, a, writer, b, series, strict=True):
            fh.write(f"{row[0]},{row[1]},w{row[2]:03d},{row[3]},{row[4]}\n")
    return str(path), y, a, b, np.array([f"w{w:03d}" for w in writer]), series


MODELS = ["--models", "model_a,model_b"]


def _same(entry, r):
    assert entry["value"] == pytest.approx(r.estimate)
    assert (entry["low"], entry["high"]) == pytest.approx((r.low, r.high))
    for key in ("se_iid", "se_cluster", "design_effect", "icc", "effective_n"):
        assert entry[key] == pytest.approx(getattr(r, key)), key
    assert entry["clusters"] == r.clusters


def test_clustered_fields_equal_the_direct_computation(clustered_file, capsys):
    path, y, a, b, writer, _ = clustered_file
    res = cli_json(capsys, "evaluate", path, *MODELS, "--cluster", "writer", "--resamples", "500")
    assert res["cluster"] == "writer" and res["clusters"] == 45
    ma = res["models"]["model_a"]["metrics"]
    pa, pb = (a >= 0.5).astype(int), (b >= 0.5).astype(int)
    _same(ma["accuracy"], clustered_mean((pa == y).astype(float), writer))
    pos = y == 1
    _same(ma["recall"], clustered_mean(pa[pos].astype(float), writer[pos]))
    flagged = pa == 1
    _same(ma["precision"], clustered_mean(y[flagged].astype(float), writer[flagged]))
    _same(ma["brier"], clustered_mean(brier_items(y, a), writer))
    assert ma["accuracy"]["method"].startswith("clustered-wilson")
    assert ma["brier"]["method"].startswith("clustered-t")
    assert ma["accuracy"]["iid_method"] == "clopper-pearson"
    auc = ma["auc"]
    assert auc["method"] == "cluster-bootstrap-bca" and auc["value"] == pytest.approx(
        roc_auc_score(y, a)
    )
    assert auc["low"] < auc["value"] < auc["high"] and auc["se_cluster"] > 0
    assert ma["f1"]["method"] == "cluster-bootstrap-bca"
    pair = res["pairs"][0]["metrics"]
    d = clustered_difference((pa == y).astype(float), (pb == y).astype(float), writer)
    assert pair["accuracy"]["value"] == pytest.approx(d.estimate)
    assert (pair["accuracy"]["low"], pair["accuracy"]["high"]) == pytest.approx((d.low, d.high))
    assert pair["accuracy"]["se_cluster"] == pytest.approx(d.se_cluster)
    assert pair["auc"]["method"] == "cluster-bootstrap-bca"
    assert pair["precision"]["method"] == "cluster-bootstrap-bca"  # different items per model


def test_strata_and_shares(clustered_file, capsys):
    path, y, a, _, writer, series = clustered_file
    res = cli_json(
        capsys,
        "evaluate",
        path,
        *MODELS,
        "--cluster",
        "writer",
        "--stratum",
        "series",
        "--shares",
        "census=0.5,school=0.5",
        "--resamples",
        "300",
    )
    pa = (a >= 0.5).astype(int)
    s = stratified_mean(
        (pa == y).astype(float), series, {"census": 0.5, "school": 0.5}, clusters=writer
    )
    st = res["models"]["model_a"]["metrics"]["accuracy"]["stratified"]
    assert st["value"] == pytest.approx(s.estimate)
    assert (st["low"], st["high"]) == pytest.approx((s.low, s.high))
    assert st["strata"]["census"]["share"] == 0.5


def test_the_clustered_command_stays_an_alias(tmp_path, capsys):
    """On predicted labels, heldout clustered and heldout evaluate --cluster agree on accuracy."""
    rng = np.random.default_rng(12)
    writer = np.repeat(np.arange(30), 6)
    y = rng.integers(0, 2, writer.size)
    pred = np.where(rng.random(writer.size) < 0.75 + 0.2 * (writer % 2), y, 1 - y)
    path = tmp_path / "labels.csv"
    with open(path, "w") as fh:
        fh.write("label,m,writer\n")
        for row in zip(y, pred, writer, strict=True):
            fh.write(f"{row[0]},{row[1]},{row[2]}\n")
    ev = cli_json(capsys, "evaluate", str(path), "--cluster", "writer", "--resamples", "300")
    acc = ev["models"]["m"]["metrics"]["accuracy"]
    cl = cli_json(capsys, "clustered", str(path), "--cluster", "writer")
    assert cl["accuracy"] == pytest.approx(acc["value"])
    for key in ("se_iid", "se_cluster", "design_effect", "icc", "effective_n", "low", "high"):
        assert cl[key] == pytest.approx(acc[key]), key


@pytest.mark.parametrize(
    "extra, word",
    [
        (["--cluster", "nope"], "no column named 'nope'"),
        (["--cluster", "label"], "both the labels"),
        (["--cluster", "model_a"], "both a model and a group"),
        (["--shares", "census=1"], "--shares needs --stratum"),
        (["--cluster", "writer", "--stratum", "writer"], "different columns"),
        (["--stratum", "series", "--shares", "census=0.5"], "share"),
    ],
)
def test_bad_cluster_input_is_one_line_exit_2(clustered_file, capsys, extra, word):
    import re

    path, *_ = clustered_file
    assert main(["evaluate", path, *MODELS, *extra, "--json"]) == 2
    err = capsys.readouterr()
    assert err.out == ""
    lines = err.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("heldout: error:"), err.err
    assert re.search(word, lines[0]), lines[0]


def test_single_cluster_and_empty_cells(tmp_path, capsys):
    one = tmp_path / "one.csv"
    one.write_text("label,a,g\n1,0.9,x\n0,0.2,x\n1,0.6,x\n")
    assert main(["evaluate", str(one), "--cluster", "g"]) == 2
    assert "single cluster" in capsys.readouterr().err
    empty = tmp_path / "empty.csv"
    empty.write_text("label,a,g\n1,0.9,x\n0,0.2,\n1,0.6,y\n")
    assert main(["evaluate", str(empty), "--cluster", "g"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "empty cell" in err
