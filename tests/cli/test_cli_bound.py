"""Tests for ``heldout bound`` (keys, values against independent formulas, bad input)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from scipy import stats

from heldout.cli import main


def _run_json(capsys, argv):
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)


def test_bound_json_keys_and_values(capsys):
    res = _run_json(capsys, ["bound", "--errors", "38", "--n", "100", "--alpha", "0.05", "--json"])
    old = _run_json(capsys, ["bound", "--errors", "38", "--n", "100", "--delta", "0.05", "--json"])
    assert old == res  # the old spelling of --alpha still works
    for key in ("exact", "kl", "hoeffding", "occam", "normal", "score_cc"):
        assert isinstance(res[key], float), key
    # independent references: scipy's beta quantile, closed forms from math
    assert res["exact"] == pytest.approx(stats.beta.ppf(0.95, 39, 62), rel=1e-10)
    assert res["hoeffding"] == pytest.approx(0.38 + math.sqrt(math.log(20) / 200), rel=1e-14)
    assert res["occam"] == pytest.approx(0.38 + math.sqrt(math.log(2000) / 200), rel=1e-14)
    assert res["normal"] == pytest.approx(
        0.38 + stats.norm.ppf(0.95) * math.sqrt(0.38 * 0.62 / 99), rel=1e-12
    )
    assert res["exact"] < res["kl"] < res["hoeffding"] < res["occam"]
    assert res["interval_low"] == pytest.approx(stats.beta.ppf(0.025, 38, 63), rel=1e-10)
    assert res["interval_high"] == pytest.approx(stats.beta.ppf(0.975, 39, 62), rel=1e-10)
    assert res["exact_lower"] == pytest.approx(stats.beta.ppf(0.05, 38, 63), rel=1e-10)
    # the continuity-corrected score bound: the root of the corrected normal equation (brentq)
    from scipy import optimize

    z = stats.norm.isf(0.05)
    root = optimize.brentq(
        lambda p: (38.5 - 100 * p) / math.sqrt(100 * p * (1 - p)) + z, 0.38, 0.99, xtol=1e-15
    )
    assert res["score_cc"] == pytest.approx(root, rel=1e-10)


def test_bound_edge_counts(capsys):
    res = _run_json(capsys, ["bound", "--errors", "0", "--n", "20", "--json"])
    assert res["exact"] == pytest.approx(1 - 0.05 ** (1 / 20), rel=1e-13)
    assert res["exact_lower"] == 0.0
    res = _run_json(capsys, ["bound", "--errors", "20", "--n", "20", "--json"])
    assert res["exact"] == 1.0
    assert res["hoeffding"] > 1.0  # the relaxations leave [0, 1]


def test_bound_interval_method(capsys):
    res = _run_json(
        capsys,
        ["bound", "--errors", "5", "--n", "50", "--method", "wilson", "--level", "0.9", "--json"],
    )
    z = stats.norm.ppf(0.95)
    p, n = 0.1, 50
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert res["interval_low"] == pytest.approx(centre - half, rel=1e-12)
    assert res["interval_high"] == pytest.approx(centre + half, rel=1e-12)


def test_bound_plain_text(capsys):
    assert main(["bound", "--errors", "38", "--n", "100"]) == 0
    out = capsys.readouterr().out
    assert "exact" in out and "0.466753" in out


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["--errors", "138", "--n", "100"], "--errors"),
        (["--errors", "-1", "--n", "100"], "--errors"),
        (["--errors", "3", "--n", "0"], "--n"),
        (["--errors", "3", "--n", "10", "--alpha", "0"], "--alpha"),
        (["--errors", "3", "--n", "10", "--delta", "1.5"], "--alpha"),
        (["--errors", "3", "--n", "10", "--level", "1"], "--level"),
    ],
)
def test_bound_bad_input_exits_2_with_one_line(capsys, argv, word):
    assert main(["bound", *argv, "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and word in err


def test_bound_subprocess():
    ok = subprocess.run(
        [
            sys.executable,
            "-m",
            "heldout",
            "bound",
            "--errors",
            "38",
            "--n",
            "100",
            "--delta",
            "0.05",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0
    assert set(json.loads(ok.stdout)) >= {"exact", "kl", "hoeffding", "occam", "normal"}
    bad = subprocess.run(
        [sys.executable, "-m", "heldout", "bound", "--errors", "2.5", "--n", "10"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
