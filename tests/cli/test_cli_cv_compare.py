"""The ``heldout cv-compare`` calculator."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from cli_support import cli_json
from scipy import stats

from heldout.cli import main

A = [0.91, 0.90, 0.93, 0.89, 0.92]
B = [0.89, 0.90, 0.90, 0.88, 0.90]
FIVE_A = [0.90, 0.88, 0.91, 0.89, 0.90, 0.90, 0.87, 0.89, 0.92, 0.90]
FIVE_B = [0.86, 0.87, 0.88, 0.88, 0.88, 0.86, 0.86, 0.87, 0.88, 0.89]


def _csv(values):
    return ",".join(str(v) for v in values)


def _hand_t(factor):
    d = [a - b for a, b in zip(A, B, strict=True)]
    m = sum(d) / len(d)
    var = sum((x - m) ** 2 for x in d) / (len(d) - 1)
    return m / math.sqrt(factor * var)


def test_default_is_the_corrected_test(capsys):
    res = cli_json(
        capsys, "cv-compare", "--scores-a", _csv(A), "--scores-b", _csv(B), "--test-fraction", "0.2"
    )
    t = _hand_t(1 / 5 + 0.2 / 0.8)
    assert res["method"] == "corrected"
    assert res["t"] == pytest.approx(t)
    assert res["p_value"] == pytest.approx(2 * stats.t.sf(abs(t), 4))
    assert res["df"] == 4 and res["folds"] == 5 and res["test_fraction"] == 0.2


def test_naive_method(capsys):
    res = cli_json(
        capsys, "cv-compare", "--scores-a", _csv(A), "--scores-b", _csv(B), "--method", "naive"
    )
    assert res["t"] == pytest.approx(stats.ttest_rel(A, B).statistic)
    assert res["p_value"] == pytest.approx(stats.ttest_rel(A, B).pvalue)


def test_five_by_two_methods(capsys):
    p = [a - b for a, b in zip(FIVE_A, FIVE_B, strict=True)]
    s2 = sum((p[2 * i] - p[2 * i + 1]) ** 2 / 2 for i in range(5))
    both = ("cv-compare", "--scores-a", _csv(FIVE_A), "--scores-b", _csv(FIVE_B), "--method")
    res = cli_json(capsys, *both, "5x2cv")
    assert res["t"] == pytest.approx(p[0] / math.sqrt(s2 / 5))
    res = cli_json(capsys, *both, "5x2cv-f")
    f = sum(x * x for x in p) / (2 * s2)
    assert res["f"] == pytest.approx(f) and "t" not in res
    assert res["p_value"] == pytest.approx(stats.f.sf(f, 10, 5))


def test_file_with_two_columns(capsys, tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text(
        "model_a,model_b\n" + "\n".join(f"{a},{b}" for a, b in zip(A, B, strict=True)) + "\n"
    )
    res = cli_json(capsys, "cv-compare", "--file", str(path), "--test-fraction", "0.2")
    assert res["t"] == pytest.approx(_hand_t(1 / 5 + 0.25))
    spaced = tmp_path / "scores.txt"
    spaced.write_text("\n".join(f"{a}\t{b}" for a, b in zip(A, B, strict=True)))
    assert cli_json(capsys, "cv-compare", "--file", str(spaced), "--method", "naive")["folds"] == 5


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--scores-a", "0.9", "--scores-b", "0.8", "--method", "naive"], "at least 2"),
        (
            ["--scores-a", "0.9,0.8,0.7", "--scores-b", "0.8,0.7", "--test-fraction", "0.1"],
            "same number",
        ),
        (["--scores-a", "0.9,0.8", "--scores-b", "0.8,0.7"], "--test-fraction"),
        (
            ["--scores-a", "0.9,0.8", "--scores-b", "0.8,0.7", "--test-fraction", "1.2"],
            "test_fraction",
        ),
        (["--scores-a", "0.9,x", "--scores-b", "0.8,0.7", "--method", "naive"], "--scores-a"),
        (["--scores-a", "0.9,0.8", "--scores-b", "0.8,0.7", "--method", "5x2cv"], "10 scores"),
        (["--scores-a", "0.9,0.8"], "--scores-b"),
        (
            ["--scores-a", "0.9,0.8,0.7", "--scores-b", "0.88,0.78,0.68", "--method", "naive"],
            "zero variance",
        ),
        (["--file", "/no/such/file.csv"], "--file"),
        (["--scores-a", "0.9,nan", "--scores-b", "0.8,0.7", "--method", "naive"], "scores_a"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    assert main(["cv-compare", *argv, "--json"]) == 2
    err = capsys.readouterr()
    assert err.out == ""
    lines = err.err.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], lines


def test_bad_file_row(capsys, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n0.9,0.8\n0.7\n")
    assert main(["cv-compare", "--file", str(path), "--method", "naive"]) == 2
    assert "line 3" in capsys.readouterr().err


def test_command_module_imports_no_scipy_at_module_level():
    code = (
        "import sys, heldout.cli.cv_compare; "
        "print('scipy.stats' in sys.modules, 'heldout.resampling.cv' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_subprocess_json():
    out = subprocess.run(
        [
            sys.executable,
            *"-m heldout cv-compare --scores-a".split(),
            _csv(A),
            "--scores-b",
            _csv(B),
            "--test-fraction",
            "0.2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0 and out.stderr == ""
    assert set(json.loads(out.stdout)) >= {"t", "p_value", "method"}


def test_rope_gives_baycomp_s_correlated_t_probabilities(capsys):
    import baycomp

    a = [0.91, 0.90, 0.93, 0.89, 0.92]
    b = [0.89, 0.90, 0.90, 0.88, 0.90]
    res = cli_json(
        capsys,
        "cv-compare",
        "--scores-a",
        ",".join(map(str, a)),
        "--scores-b",
        ",".join(map(str, b)),
        *"--test-fraction 0.2 --rope 0.01".split(),
    )
    ref = baycomp.CorrelatedTTest.probs(np.array(a), np.array(b), rope=0.01)
    assert (res["p_a_better"], res["p_equivalent"], res["p_b_better"]) == pytest.approx(ref)
    assert res["rope"] == 0.01 and res["method"] == "corrected"


@pytest.mark.parametrize(
    "extra,words",
    [
        (["--method", "naive", "--rope", "0.01"], "--rope needs --test-fraction"),
        (["--test-fraction", "0.2", "--rope", "-0.1"], "rope"),
    ],
)
def test_rope_refusals(capsys, extra, words):
    argv = ["cv-compare", "--scores-a", "0.9,0.8,0.85", "--scores-b", "0.8,0.8,0.8", *extra]
    assert main([*argv, "--json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]
