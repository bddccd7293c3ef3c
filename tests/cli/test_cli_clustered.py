"""``heldout clustered`` and ``heldout size clustered``."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from cli_support import cli_json
from scipy import stats

from heldout.cli import main

#: ``heldout size clustered`` with the issue's example inputs, before the cluster size or costs
SIZE = ["size", "clustered", "--accuracy", "0.9", "--half-width", "0.02", "--icc", "0.1"]


def _clustered(capsys, path, options: str) -> dict:
    """``heldout clustered PATH OPTIONS --json``, parsed (options split on white space)."""
    return cli_json(capsys, "clustered", str(path), *options.split())


def _error(capsys, *argv):
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    return lines[0]


@pytest.fixture
def predictions(tmp_path):
    gen = np.random.default_rng(0)
    n_writers, per = 40, 6
    writer = np.repeat([f"w{i}" for i in range(n_writers)], per)
    hard = np.repeat(gen.random(n_writers) < 0.3, per)
    label = gen.integers(0, 10, writer.size)
    a = np.where(gen.random(writer.size) < np.where(hard, 0.6, 0.95), label, (label + 1) % 10)
    b = np.where(gen.random(writer.size) < np.where(hard, 0.5, 0.9), label, (label + 2) % 10)
    series = np.where(np.arange(writer.size) < 120, "census", "students")
    frame = pd.DataFrame({"label": label, "a": a, "b": b, "writer": writer, "series": series})
    path = tmp_path / "pred.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_one_model_against_statsmodels(capsys, predictions):
    path, f = predictions
    res = _clustered(capsys, path, "--cluster writer --model a")
    y = (f["a"] == f["label"]).to_numpy(float)
    fit = sm.OLS(y, np.ones_like(y)).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(f["writer"])[0]}
    )
    assert res["accuracy"] == pytest.approx(y.mean())
    assert res["se_cluster"] == pytest.approx(fit.bse[0], rel=1e-10)
    assert res["se_iid"] == pytest.approx(y.std(ddof=1) / math.sqrt(y.size), rel=1e-10)
    assert res["design_effect"] == pytest.approx((res["se_cluster"] / res["se_iid"]) ** 2)
    assert res["low"] < res["accuracy"] < res["high"]
    assert res["clusters"] == 40 and res["n"] == 240 and res["model"] == "a"
    for key in ("icc", "effective_n", "method"):
        assert key in res


def test_score_column_and_t_interval(capsys, predictions, tmp_path):
    path, f = predictions
    f = f.assign(loss=np.abs(f["a"] - f["label"]) / 9.0)
    p2 = tmp_path / "loss.csv"
    f.to_csv(p2, index=False)
    res = _clustered(capsys, p2, "--cluster writer --score loss")
    assert "mean" in res and "accuracy" not in res and res["method"] == "t"
    cluster_means = f.groupby("writer")["loss"].mean().to_numpy()
    ci = stats.ttest_1samp(cluster_means, 0).confidence_interval(0.95)  # equal sizes
    assert (res["low"], res["high"]) == pytest.approx((ci.low, ci.high), rel=1e-10)


def test_two_models_pairs_and_bootstrap(capsys, predictions):
    path, f = predictions
    res = _clustered(capsys, path, "--cluster writer --model a --model b --bootstrap 500 --seed 1")
    assert set(res["models"]) == {"a", "b"}
    pair = res["pairs"]["a - b"]
    d = (f["a"] == f["label"]).to_numpy(float) - (f["b"] == f["label"]).to_numpy(float)
    fit = sm.OLS(d, np.ones_like(d)).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(f["writer"])[0]}
    )
    assert pair["difference"] == pytest.approx(d.mean())
    assert pair["se_cluster"] == pytest.approx(fit.bse[0], rel=1e-10)
    assert pair["bootstrap_low"] < pair["difference"] < pair["bootstrap_high"]


def test_strata(capsys, predictions):
    from heldout.dependent.strata import stratified_mean

    path, f = predictions
    options = "--cluster writer --model a --stratum series --shares census=0.3,students=0.7"
    res = _clustered(capsys, path, options)
    y = (f["a"] == f["label"]).to_numpy(float)
    ref = stratified_mean(
        y, f["series"].to_numpy(), {"census": 0.3, "students": 0.7}, clusters=f["writer"].to_numpy()
    )
    assert res["stratified"]["estimate"] == pytest.approx(ref.estimate)
    assert res["stratified"]["strata"]["census"]["share"] == 0.3


def test_size_clustered_issue_example(capsys):
    res = cli_json(capsys, *SIZE, "--cluster-size", "5")
    # brute force: smallest G with t_{G-1} sqrt(0.09 * 1.4 / (5 G)) <= 0.02
    g = 2
    while stats.t.isf(0.025, g - 1) * math.sqrt(0.09 * 1.4 / (5 * g)) > 0.02:
        g += 1
    assert res["clusters"] == g and res["items"] == 5 * g
    assert res["items_iid"] == math.ceil(stats.norm.isf(0.025) ** 2 * 0.09 / 0.02**2)
    cost = cli_json(capsys, *SIZE, "--cost-cluster", "90", "--cost-item", "1")
    assert cost["optimal_cluster_size"] == pytest.approx(math.sqrt(90 * 0.9 / 0.1))
    assert cost["cost"] == cost["clusters"] * (90 + cost["cluster_size"])


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["--cluster", "nope"], "--cluster"),
        (["--cluster", "writer", "--model", "zzz"], "--model"),
        (["--cluster", "writer", "--score", "series"], "numbers"),
        (
            ["--cluster", "writer", "--stratum", "series", "--shares", "census=0.5,students=0.6"],
            "sum to 1",
        ),
        (["--cluster", "writer", "--shares", "census=0.5,students=0.5"], "--stratum"),
        (["--cluster", "writer", "--stratum", "series", "--shares", "census:0.5"], "--shares"),
        (["--cluster", "writer", "--level", "1.5"], "--level"),
        (["--cluster", "series", "--label", "nolabel"], "--label"),
    ],
)
def test_bad_input_one_line(capsys, predictions, argv, word):
    path, _ = predictions
    assert word in _error(capsys, "clustered", str(path), *argv)


def test_bad_files(capsys, tmp_path):
    assert "does not exist" in _error(
        capsys, "clustered", str(tmp_path / "x.csv"), "--cluster", "c"
    )
    ragged = tmp_path / "r.csv"
    ragged.write_text("label,a,c\n1,1,x\n2,2\n")
    assert "row 3" in _error(capsys, "clustered", str(ragged), "--cluster", "c")
    one = tmp_path / "one.csv"
    one.write_text("label,a,c\n1,1,x\n2,2,x\n")
    assert "at least two distinct clusters" in _error(
        capsys, "clustered", str(one), "--cluster", "c"
    )
    assert "half_width" in _error(
        capsys,
        *"size clustered --accuracy 0.9 --half-width 0 --icc 0.1 --cluster-size 5".split(),
    )


def test_size_bad_input(capsys):
    assert "--cluster-size" in _error(capsys, *SIZE)
    bad_accuracy = [("1.2" if v == "0.9" else v) for v in SIZE]
    assert "accuracy" in _error(capsys, *bad_accuracy, "--cluster-size", "5")
    assert "--cost-item" in _error(capsys, *SIZE, "--cluster-size", "5", "--cost-cluster", "3")


def test_subprocess_prints_one_json_object(predictions):
    path, _ = predictions
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "heldout",
            "clustered",
            str(path),
            *"--cluster writer --model b --json".split(),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["model"] == "b" and out.stderr == ""


def test_text_columns_are_not_models(capsys, predictions):
    """A text column beside numeric labels is no model, and the label is no cluster (issue 44).

    Before, ``--cluster label`` left the text column ``writer`` among the models, and its
    cells compared as text with the labels gave an accuracy of 0 with exit status 0.
    """
    path, frame = predictions
    assert "both name column 'label'" in _error(
        capsys, "clustered", str(path), "--cluster", "label"
    )
    msg = _error(capsys, "clustered", str(path), "--cluster", "series")
    assert "'writer' holds text" in msg
    res = _clustered(capsys, path, "--cluster series --model a")
    assert res["accuracy"] == pytest.approx(float(np.mean(frame["a"] == frame["label"])))
