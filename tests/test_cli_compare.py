"""The ``heldout compare`` and ``heldout size compare`` calculators."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

from heldout.cli import main


def _json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    return json.loads(out[0])


def test_compare_article_example(capsys):
    res = _json(capsys, "compare", "--a", "96/100", "--b", "98/100")
    assert res["fisher_p"] == pytest.approx(
        stats.fisher_exact([[96, 98], [4, 2]], alternative="less").pvalue
    )
    assert res["chi2_p"] == pytest.approx(stats.chi2_contingency([[96, 98], [4, 2]]).pvalue / 2)
    # P(Beta(97,5) > Beta(99,3)) by a fine midpoint rule on f_A(x) F_B(x)
    x = (np.arange(200_000) + 0.5) / 200_000
    ref = np.sum(stats.beta.pdf(x, 97, 5) * stats.beta.cdf(x, 99, 3)) / 200_000
    assert res["p_a_better"] == pytest.approx(ref, abs=1e-7)
    assert res["posterior_mean_a"] == pytest.approx(97 / 102)
    assert "mcnemar_p" not in res


def test_compare_paired(capsys):
    res = _json(
        capsys,
        "compare",
        "--a",
        "96/100",
        "--b",
        "98/100",
        "--only-a-correct",
        "1",
        "--only-b-correct",
        "3",
    )
    assert res["mcnemar_p"] == pytest.approx(stats.binomtest(1, 4, 0.5, alternative="less").pvalue)
    res2 = _json(
        capsys,
        "compare",
        "--a",
        "96/100",
        "--b",
        "98/100",
        "--only-a-correct",
        "1",
        "--only-b-correct",
        "3",
        "--alternative",
        "two-sided",
    )
    assert res2["mcnemar_p"] == pytest.approx(mcnemar([[95, 1], [3, 1]], exact=True).pvalue)
    assert res2["fisher_p"] == pytest.approx(stats.fisher_exact([[96, 98], [4, 2]]).pvalue)


def test_size_compare(capsys):
    res = _json(capsys, "size", "compare", "--accuracy", "0.99", "--gap", "0.001", "--models", "1")
    assert res["n"] == round(0.99 * 0.01 / 0.001**2)
    assert res["n_exact"] > res["n"]
    res = _json(capsys, "size", "compare", "--accuracy", "0.5", "--gap", "0.01", "--models", "2")
    assert res["n"] == 4 * 2500


def test_plain_output(capsys):
    assert main(["compare", "--a", "96/100", "--b", "98/100"]) == 0
    assert "p_a_better" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "--a", "97/96", "--b", "98/100"],
        ["compare", "--a", "abc", "--b", "98/100"],
        ["compare", "--a", "96/100", "--b", "98/0"],
        ["compare", "--a", "96/100", "--b", "98/100", "--prior", "flat"],
        ["compare", "--a", "96/100", "--b", "98/100", "--only-a-correct", "3"],
        [
            "compare",
            "--a",
            "96/100",
            "--b",
            "98/100",
            "--only-a-correct",
            "3",
            "--only-b-correct",
            "3",
        ],
        ["size", "compare", "--accuracy", "1.5", "--gap", "0.01"],
        ["size", "compare", "--accuracy", "0.9", "--gap", "-0.01"],
        ["size", "compare", "--accuracy", "0.9", "--gap", "0.01", "--models", "1.5"],
    ],
)
def test_bad_input_exit_2_one_line(argv, capsys):
    assert main([*argv, "--json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("heldout")


def test_subprocess_bad_input():
    out = subprocess.run(
        [sys.executable, "-m", "heldout", "compare", "--a", "97/96", "--b", "98/100", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1
    assert "--a" in out.stderr and "Traceback" not in out.stderr
