"""Tests of ``heldout split``: JSON keys and values, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from heldout.cli import main


def _closed_form(c_test: float, c_train: float) -> float:
    return math.sqrt(c_test) / (math.sqrt(c_test) + math.sqrt(c_train))


def test_article_example_json(capsys):
    assert main(["split", "--c-test", "1.6", "--c-train", "79", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"test_fraction", "train_fraction"}
    assert out["test_fraction"] == pytest.approx(_closed_form(1.6, 79), rel=1e-14)
    assert out["train_fraction"] == pytest.approx(1 - _closed_form(1.6, 79), rel=1e-14)
    assert round(out["test_fraction"], 7) == 0.1245837  # the article's printed value


@pytest.mark.parametrize("rows", [2, 3, 17, 1000, 54321])
def test_rows_are_the_brute_force_best_split(capsys, rows):
    assert main(["split", "--c-test", "1.6", "--c-train", "79", "--rows", str(rows), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"test_fraction", "train_fraction", "test_rows", "train_rows"}
    assert isinstance(out["test_rows"], int) and isinstance(out["train_rows"], int)
    assert out["test_rows"] + out["train_rows"] == rows
    t = np.arange(1, rows)
    best = t[np.argmin(1.6 / t + 79 / (rows - t))]
    assert out["test_rows"] == best


def test_plain_output_lists_the_values(capsys):
    assert main(["split", "--c-test", "4", "--c-train", "36", "--rows", "100"]) == 0
    text = capsys.readouterr().out
    # sqrt(4) / (sqrt(4) + sqrt(36)) = 1/4 exactly, so 25 of 100 rows
    assert "test_fraction" in text and "0.25" in text
    assert "test_rows" in text and "25" in text


def _exit_code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse errors exit from inside the parser
        return exc.code


@pytest.mark.parametrize(
    "argv, word",
    [
        (["--c-test", "-1", "--c-train", "79"], "c_test"),
        (["--c-test", "1.6", "--c-train", "-79"], "c_train"),
        (["--c-test", "0", "--c-train", "0"], "c_test"),
        (["--c-test", "1.6", "--c-train", "79", "--rows", "1"], "rows"),
        (["--c-test", "1.6", "--c-train", "79", "--rows", "-5"], "rows"),
        (["--c-test", "nan", "--c-train", "79"], "--c-test"),
        (["--c-test", "abc", "--c-train", "79"], "c-test"),
        (["--c-train", "79"], "c-test"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, word):
    assert _exit_code(["split", *argv, "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and word in lines[0]


_T = np.arange(1, 1000)
BEST_OF_1000 = int(_T[np.argmin(1.6 / _T + 79 / (1000 - _T))])  # brute force


def test_subprocess_round_trip():
    ok = subprocess.run(
        [
            sys.executable,
            "-m",
            "heldout",
            "split",
            "--c-test",
            "1.6",
            "--c-train",
            "79",
            "--rows",
            "1000",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0
    assert json.loads(ok.stdout) == {
        "test_fraction": pytest.approx(_closed_form(1.6, 79)),
        "train_fraction": pytest.approx(1 - _closed_form(1.6, 79)),
        "test_rows": BEST_OF_1000,
        "train_rows": 1000 - BEST_OF_1000,
    }
    bad = subprocess.run(
        [sys.executable, "-m", "heldout", "split", "--c-test", "-1", "--c-train", "79", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert len(bad.stderr.strip().splitlines()) == 1
