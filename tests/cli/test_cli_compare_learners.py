"""The ``heldout compare-learners`` calculator."""

from __future__ import annotations

import numpy as np
import pytest
from cli_support import cli_json
from scipy import stats

from heldout.cli import main

ROWS = [
    ("d1", 0.90, 0.80, 0.70),
    ("d2", 0.85, 0.86, 0.70),
    ("d3", 0.70, 0.60, 0.65),
    ("d4", 0.95, 0.90, 0.90),
    ("d5", 0.80, 0.70, 0.72),
    ("d6", 0.70, 0.60, 0.50),
]


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("dataset,a,b,c\n" + "".join(f"{r[0]},{r[1]},{r[2]},{r[3]}\n" for r in ROWS))
    return str(path)


def test_friedman_nemenyi_and_holm_from_a_file(capsys, table):
    out = cli_json(capsys, "compare-learners", table)
    s = np.array([r[1:] for r in ROWS])
    ref = stats.friedmanchisquare(*s.T)
    assert out["friedman_chi2"] == pytest.approx(ref.statistic)
    assert out["friedman_p_value"] == pytest.approx(ref.pvalue)
    assert out["mean_ranks"] == pytest.approx({"a": 7 / 6, "b": 2.25, "c": 31 / 12})
    q = stats.studentized_range.isf(0.05, 3, np.inf) / np.sqrt(2)
    assert out["critical_difference"] == pytest.approx(q * np.sqrt(3 * 4 / 36))
    raw = [stats.wilcoxon(s[:, i] - s[:, j]).pvalue for i, j in [(0, 1), (0, 2), (1, 2)]]
    assert [p["p_value"] for p in out["pairs"]] == pytest.approx(raw)
    order = np.argsort(raw)
    holm = np.maximum.accumulate(np.sort(raw) * [3, 2, 1])
    expect = np.empty(3)
    expect[order] = np.minimum(holm, 1)
    assert [p["p_adjusted"] for p in out["pairs"]] == pytest.approx(expect)


def test_control_rope_and_plot(capsys, table, tmp_path):
    png = tmp_path / "cd.png"
    out = cli_json(
        capsys,
        "compare-learners",
        table,
        "--control",
        "a",
        "--rope",
        "0.01",
        "--seed",
        "1",
        "--draws",
        "2000",
        "--plot",
        str(png),
        "--adjust",
        "hommel",
    )
    assert [(p["a"], p["b"]) for p in out["pairs"]] == [("a", "b"), ("a", "c")]
    for p in out["pairs"]:
        assert p["p_a_better"] + p["p_equivalent"] + p["p_b_better"] == pytest.approx(1)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_folds_are_averaged_and_lower_is_better(capsys, tmp_path):
    path = tmp_path / "f.csv"
    lines = ["dataset,fold,a,b"]
    g = np.random.default_rng(0)
    errs = g.uniform(0.1, 0.3, (5, 3, 2))
    for i in range(5):
        for j in range(3):
            lines.append(f"d{i},{j},{float(errs[i, j, 0])!r},{float(errs[i, j, 1])!r}")
    path.write_text("\n".join(lines) + "\n")
    out = cli_json(capsys, "compare-learners", str(path), "--lower-is-better", "--method", "sign")
    means = errs.mean(axis=1)
    wins = int(np.sum(means[:, 0] < means[:, 1]))
    assert out["folds"] == 3 and out["pairs"][0]["wins"] == wins


@pytest.mark.parametrize(
    "content,extra,match",
    [
        (None, [], "cannot be read"),
        ("dataset,a,b\nx,1,zz\ny,1,2\n", [], "not a number"),
        (
            "dataset,a,b,c\n" + "".join(f"{r[0]},{r[1]},{r[2]},{r[3]}\n" for r in ROWS),
            ["--control", "q"],
            "control",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, content, extra, match):
    path = tmp_path / "bad.csv"
    if content is not None:
        path.write_text(content)
    assert main(["compare-learners", str(path), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and match in err[0]
