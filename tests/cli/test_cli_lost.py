"""Tests of ``heldout lost``: JSON keys and values, bad input -> one stderr line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cli_support import cli_json
from scipy import stats

from heldout.cli import main


def cp_scipy(k: int, m: int, level: float) -> tuple[float, float]:
    alpha = 1 - level
    low = 0.0 if k == 0 else stats.beta.ppf(alpha / 2, k, m - k + 1)
    high = 1.0 if k == m else stats.beta.ppf(1 - alpha / 2, k + 1, m - k)
    return low, high


def run_json(capsys, *argv: str) -> dict:
    return cli_json(capsys, "lost", *argv)


def test_issue_example_bounds(capsys):
    out = run_json(capsys, "--data-accuracy", "0.95", "--train-rows", "800", "--test-rows", "200")
    assert set(out) == {
        "test_accuracy_low",
        "test_accuracy_high",
        "confidence_low",
        "confidence_high",
        "alpha",
    }
    # 950 of 1000 right: at least 150 and at most 200 of the 200 test rows
    assert out["test_accuracy_low"] == pytest.approx(150 / 200, abs=1e-12)
    assert out["test_accuracy_high"] == pytest.approx(1.0, abs=1e-12)
    assert out["confidence_low"] == pytest.approx(cp_scipy(150, 200, 0.95)[0], abs=1e-9)
    assert out["confidence_high"] == pytest.approx(1.0, abs=1e-12)


def test_with_training_accuracy_adds_the_point_estimate(capsys):
    out = run_json(
        capsys,
        *"--data-accuracy 0.95 --train-rows 800 --test-rows 200 --train-accuracy 0.99".split(),
    )
    # 950 - 0.99 * 800 = 158 test rows right
    assert out["test_accuracy"] == pytest.approx(158 / 200, abs=1e-12)
    assert (out["test_accuracy_low"], out["test_accuracy_high"]) == pytest.approx(
        (0.75, 1.0), abs=1e-12
    )
    assert (out["confidence_low"], out["confidence_high"]) == pytest.approx(
        cp_scipy(158, 200, 0.95), abs=1e-9
    )


def test_level_and_rows_options(capsys):
    out = run_json(
        capsys,
        *"--data-accuracy 0.5 --train-rows 60 --test-rows 40 --rows 100 --level 0.9".split(),
    )
    # 50 right of 100: the test set holds between 0 and 40 of them
    assert (out["test_accuracy_low"], out["test_accuracy_high"]) == pytest.approx((0.0, 1.0))
    assert out["alpha"] == pytest.approx(0.1)
    new = run_json(
        capsys,
        *"--data-accuracy 0.5 --train-rows 60 --test-rows 40 --alpha 0.1".split(),
    )
    assert new["confidence_low"] == pytest.approx(out["confidence_low"], rel=1e-12)


def test_plain_output_has_the_keys(capsys):
    assert (
        main(["lost", "--data-accuracy", "0.95", "--train-rows", "800", "--test-rows", "200"]) == 0
    )
    text = capsys.readouterr().out
    assert "test_accuracy_low" in text and "0.75" in text


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["--data-accuracy", "1.5", "--train-rows", "800", "--test-rows", "200"], "data_accuracy"),
        (
            [
                *"--data-accuracy 0.95 --train-rows 800 --test-rows 200 --rows 999".split(),
            ],
            "rows",
        ),
        (["--data-accuracy", "0.95", "--train-rows", "-3", "--test-rows", "200"], "train_rows"),
        (["--data-accuracy", "0.95", "--train-rows", "800", "--test-rows", "0"], "test_rows"),
        (
            [
                *"--data-accuracy 0.3 --train-rows 800 --test-rows 200 --train-accuracy 1".split(),
            ],
            "train_accuracy",
        ),
        (
            [
                *"--data-accuracy 0.95 --train-rows 800 --test-rows 200 --level 2".split(),
            ],
            "level",
        ),
        (["--data-accuracy", "abc", "--train-rows", "800", "--test-rows", "200"], "data-accuracy"),
        (["--train-rows", "800", "--test-rows", "200"], "data-accuracy"),
    ],
)
def test_bad_input_is_one_stderr_line_and_exit_2(argv, word, capsys):
    try:
        code = main(["lost", *argv, "--json"])
    except SystemExit as exc:  # argparse errors exit from inside the parser
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and word in lines[0]


def test_the_installed_command_in_a_subprocess():
    lost = [sys.executable, "-m", "heldout", "lost", "--data-accuracy", "0.95"]
    lost += ["--train-rows", "800", "--test-rows", "200", "--json"]
    ok = subprocess.run(
        [*lost, "--train-accuracy", "1"], capture_output=True, text=True, timeout=120
    )
    assert ok.returncode == 0
    assert json.loads(ok.stdout)["test_accuracy"] == pytest.approx(0.75, abs=1e-12)
    bad = subprocess.run([*lost, "--rows", "5"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stdout == ""
    assert len(bad.stderr.strip().splitlines()) == 1 and "rows" in bad.stderr
