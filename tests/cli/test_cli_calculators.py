"""The calculator commands as a whole (issue 19): no scipy.stats, one-line refusals, audit cases."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from heldout.cli import _plain, main

CALCULATORS = {
    "bound": ["bound", "--errors", "1000", "--n", "1e9"],
    "accept": ["accept", "--correct", "830", "--n", "1000", "--required", "0.8"],
    "lost": ["lost", "--data-accuracy", "0.95", "--train-rows", "800", "--test-rows", "200"],
    "size hoeffding": ["size", "hoeffding", "--range", "14", "--tolerance", "0.1", "--alpha", "0.05"],
    "size bernstein": [
        "size", "bernstein", "--mu", "0.01", "--variance", "2.5", "--tolerance", "0.1",
        "--alpha", "0.05",
    ],
    "size binomial": ["size", "binomial", "--tolerance", "0.02", "--alpha", "0.05", "--p", "0.1"],
    "size normal": ["size", "normal", "--variance", "0.25", "--tolerance", "0.02", "--alpha", "0.05"],
    "size accuracy": ["size", "accuracy", "--required", "0.8", "--margin", "0.03", "--power", "0.8"],
    "split": ["split", "--c-test", "1.6", "--c-train", "79", "--rows", "1000"],
    "compare --a --b": ["compare", "--a", "96/100", "--b", "98/100"],
    "compare paired": ["compare", "--a", "96/100", "--b", "98/100", "--only-a-correct", "1", "--only-b-correct", "3"],
}  # fmt: skip

_PROBE = (
    "import sys, io, contextlib\n"
    "from heldout.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    rc = main(sys.argv[1:])\n"
    "print(rc, 'scipy.stats' in sys.modules, 'pandas' in sys.modules)\n"
)


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_calculators_do_not_import_scipy_stats(name):
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, *CALCULATORS[name]],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.stdout.split() == ["0", "False", "False"], (out.stdout, out.stderr)


def _refusal(capsys, argv) -> str:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses while parsing
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert "Warning" not in lines[0] and "array(" not in lines[0]
    return lines[0]


def _answer(capsys, argv) -> dict:
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "null" not in captured.out and "NaN" not in captured.out
    return json.loads(captured.out)


def test_audit_bound_is_ordered(capsys):
    """``heldout bound --errors 1000 --n 1000000000`` printed a lower bound above the upper."""
    res = _answer(capsys, ["bound", "--errors", "1000", "--n", "1000000000"])
    assert res["exact_lower"] < res["error_rate"] == 1e-6 < res["exact"]
    assert res["interval_low"] < 1e-6 < res["interval_high"]
    assert res["kl_lower"] <= res["exact_lower"] and res["exact"] <= res["kl"]


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["bound", "--errors", "1e300", "--n", "10"], "too large"),
        (["bound", "--errors", "3", "--n", "9223372036854775808"], "too large"),
        (["bound", "--errors", "11", "--n", "10"], "--errors must not exceed --n"),
        (["bound", "--errors", "2.5", "--n", "10"], "not a whole number"),
        (["bound", "--errors", "1", "--n", "10", "--delta", "nan"], "not a finite number"),
        (["size", "hoeffding", "--range", "1e4", "--tolerance", "1e-6", "--alpha", "0.05"], "the size exceeds"),
        (["size", "normal", "--variance", "1", "--tolerance", "1e-12", "--alpha", "0.05"], "the size exceeds"),
        (["size", "binomial", "--tolerance", "0.0001", "--alpha", "0.05"], "worst case"),
        (["accept", "--correct", "1001", "--n", "1000", "--required", "0.8"], "must not exceed"),
        (["lost", "--data-accuracy", "0.95", "--train-rows", "-3", "--test-rows", "200"], "train_rows"),
        (["split", "--c-test", "1", "--c-train", "1", "--rows", "1"], "rows"),
        (["size", "accuracy", "--required", "0.8", "--margin", "1e-12"], "the size exceeds"),
    ],
)  # fmt: skip
def test_refusals_are_one_line_without_warnings(capsys, argv, fragment):
    assert fragment in _refusal(capsys, argv)


def test_tiny_tolerance_with_a_stated_p_answers(capsys):
    res = _answer(
        capsys, ["size", "binomial", "--tolerance", "0.0001", "--alpha", "0.05", "--p", "0.1"]
    )
    assert res["probability_at_n"] <= 0.05 and res["n"] < res["hoeffding_n"]


def test_counts_in_scientific_notation(capsys):
    res = _answer(capsys, ["bound", "--errors", "5", "--n", "1e9"])
    assert res["n"] == 10**9 and isinstance(res["n"], int)


def test_non_finite_results_are_refused_not_null():
    with pytest.raises(ValueError, match="^the result n is not a finite number"):
        _plain({"n": float("nan")})
    with pytest.raises(ValueError, match="^the result bounds is not a finite number"):
        _plain({"bounds": [0.1, float("inf")]})
    assert _plain({"a": [1, 2.5]}) == {"a": [1, 2.5]}


def _startup_module():
    """``benchmarks/bench_startup.py``, whose 1,000-row files and command lines are reused."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_startup.py"
    spec = importlib.util.spec_from_file_location("bench_startup_for_tests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_file_commands_do_not_import_scipy_stats(tmp_path):
    """Issue 30's start-up target: the commands that read a file stay off scipy.stats.

    (``compare --predictions`` once reached it through Cochran's Q, whose chi-square tail
    now comes from ``scipy.special``; the start-up benchmark saw 2.3 times the baseline.)
    """
    bench = _startup_module()
    commands = bench._files(str(tmp_path))
    assert set(commands) == set(bench.FILE_COMMANDS)
    for name, argv in commands.items():
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, *argv, "--json"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.stdout.split() == ["0", "False", "False"], (name, out.stdout, out.stderr)
