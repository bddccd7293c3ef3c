"""The `heldout accept` and `heldout size accuracy` calculators."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from cli_support import cli_json
from scipy import stats

from heldout.cli import main


def test_accept_article_example(capsys):
    out = cli_json(
        capsys, "accept", "--correct", "830", "--n", "1000", "--required", "0.8", "--alpha", "0.01"
    )
    for key in ("margin", "threshold", "passes", "p_value_normal", "p_value_exact"):
        assert key in out
    assert out["margin"] == pytest.approx(stats.norm.ppf(0.99) * math.sqrt(0.16 / 1000), rel=1e-12)
    assert out["threshold"] == pytest.approx(0.8 + out["margin"], rel=1e-14)
    assert out["passes"] is True and out["passes_exact"] is True
    assert out["p_value_normal"] == pytest.approx(stats.norm.sf(30 / math.sqrt(160)), rel=1e-12)
    assert out["p_value_exact"] == pytest.approx(
        stats.binomtest(830, 1000, 0.8, alternative="greater").pvalue, rel=1e-10
    )


def test_accept_500_items_fails(capsys):
    out = cli_json(
        capsys, "accept", "--correct", "415", "--n", "500", "--required", "0.8", "--alpha", "0.01"
    )
    assert out["passes"] is False and out["passes_exact"] is False
    assert round(out["threshold"], 3) == 0.842


def test_size_accuracy(capsys):
    out = cli_json(
        capsys, "size", "accuracy", "--required", "0.8", "--margin", "0.03", "--alpha", "0.01"
    )
    assert out["n"] == math.ceil(stats.norm.ppf(0.99) ** 2 * 0.16 / 0.03**2)
    n_exact = out["n_exact"]
    # brute force: from n_exact on (checked to 3x further), 0.83 or more always passes exactly
    for n in range(n_exact, 3 * n_exact):
        k = -((-83 * n) // 100)
        assert stats.binom.sf(k - 1, n, 0.8) <= 0.01
    k = -((-83 * (n_exact - 1)) // 100)
    assert stats.binom.sf(k - 1, n_exact - 1, 0.8) > 0.01
    assert out["n_exact_first"] <= n_exact


def test_size_accuracy_with_power(capsys):
    out = cli_json(
        capsys,
        "size",
        "accuracy",
        "--required",
        "0.8",
        "--margin",
        "0.03",
        "--alpha",
        "0.01",
        "--power",
        "0.8",
    )
    z = stats.norm.ppf(0.99) * 0.4 + stats.norm.ppf(0.8) * math.sqrt(0.83 * 0.17)
    assert out["n_power"] == math.ceil((z / 0.03) ** 2)
    assert out["n_power_exact"] > out["n_exact"]


def test_size_accuracy_tiny_margin_reports_normal_size_only(capsys):
    out = cli_json(capsys, "size", "accuracy", "--required", "0.5", "--margin", "0.0001")
    assert out["n"] == math.ceil(stats.norm.ppf(0.95) ** 2 * 0.25 / 0.0001**2)
    assert out["n_exact"] is None and "exact search" in out["note"]


def test_plain_output(capsys):
    assert main(["accept", "--correct", "830", "--n", "1000", "--required", "0.8"]) == 0
    text = capsys.readouterr().out
    assert "passes" in text and "p_value_exact" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["accept", "--correct", "1030", "--n", "1000", "--required", "0.8"],
        ["accept", "--correct", "830", "--n", "1000", "--required", "1.5"],
        ["accept", "--correct", "830", "--n", "1000", "--required", "0"],
        ["accept", "--correct", "830", "--n", "1000", "--required", "0.8", "--alpha", "2"],
        ["accept", "--correct", "830", "--n", "1000"],
        ["size", "accuracy", "--required", "0.99", "--margin", "0.03"],
        ["size", "accuracy", "--required", "-0.5", "--margin", "0.03"],
        ["size", "accuracy", "--required", "0.8", "--margin", "0"],
    ],
)
def test_bad_input_is_one_stderr_line_and_exit_2(argv, capsys):
    try:
        code = main([*argv, "--json"])
    except SystemExit as exc:  # argparse errors (missing option) exit directly
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1, captured.err


def test_bad_input_through_a_real_process():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "heldout",
            "accept",
            "--correct",
            "1030",
            "--n",
            "1000",
            "--required",
            "0.8",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "correct" in lines[0]
