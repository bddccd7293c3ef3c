"""A fuzz test of the command line with crafted files and hostile values (issue 31).

Every command is run on crafted input: CSV files with one row of 20,000 columns, a
2 MB column name, labels that overflow 64 bits, probabilities in a label or prediction
column, NaN labels, empty files, binary junk, an endless stream (``/dev/zero``); and
every number option of every calculator given values such as ``2**63``, ``1e300``,
``nan``, ``1e12``, ``True`` or a complex number.  Each run must end in one of two ways:

* exit status 0, one JSON object on stdout with finite numbers, no size below 0, no
  word "error" anywhere in it, nothing on stderr; where the crafted file has a known
  answer (a clean file, a score column read with ``--scores``) the number printed
  is checked against a direct computation;
* exit status 2, nothing on stdout and exactly one line on stderr, no traceback.

The whole module runs in about 20 seconds (its stated limit is 60).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os

import numpy as np
import pytest
from cli_support import leaves as _leaves

from heldout.cli import main

HOSTILE = [
    "9223372036854775808",
    "-9223372036854775809",
    "1e300",
    "-1e300",
    "1e-300",
    "-1",
    "0",
    "nan",
    "inf",
    "1e12",
    "True",
    "1+0j",
    "0x10",
    "x" * 5000,
]

#: A valid command line of every calculator and the options the hostile values replace.
CALCULATORS = {
    "bound": (["bound", "--errors", "3", "--n", "100"], ["--errors", "--n", "--alpha"]),
    "accept": (
        ["accept", "--correct", "95", "--n", "100", "--required", "0.9"],
        ["--correct", "--n", "--required", "--alpha"],
    ),
    "lost": (
        ["lost", "--data-accuracy", "0.9", "--train-rows", "900", "--test-rows", "100"]
        + ["--train-accuracy", "0.92"],
        ["--data-accuracy", "--train-rows", "--test-rows", "--train-accuracy"],
    ),
    "split": (
        ["split", "--c-test", "1", "--c-train", "1", "--rows", "1000"],
        ["--c-test", "--c-train", "--rows"],
    ),
    "size hoeffding": (
        ["size", "hoeffding", "--range", "1", "--tolerance", "0.05"],
        ["--range", "--tolerance", "--alpha"],
    ),
    "size bernstein": (
        ["size", "bernstein", "--range", "1", "--variance", "0.1", "--tolerance", "0.05"],
        ["--range", "--variance", "--tolerance"],
    ),
    "size binomial": (
        ["size", "binomial", "--tolerance", "0.05", "--p", "0.9"],
        ["--tolerance", "--p"],
    ),
    "size normal": (
        ["size", "normal", "--variance", "0.1", "--tolerance", "0.05"],
        ["--variance", "--tolerance"],
    ),
    "size accuracy": (
        ["size", "accuracy", "--required", "0.9", "--margin", "0.05"],
        ["--required", "--margin", "--power"],
    ),
    "size compare": (
        ["size", "compare", "--accuracy", "0.9", "--gap", "0.02"],
        ["--accuracy", "--gap", "--models"],
    ),
    "size clustered": (
        ["size", "clustered", "--accuracy", "0.9", "--half-width", "0.02", "--icc", "0.1"]
        + ["--cluster-size", "5"],
        ["--half-width", "--icc", "--cluster-size"],
    ),
    "size auc": (
        ["size", "auc", "--auc", "0.85", "--half-width", "0.05", "--prevalence", "0.3"],
        ["--auc", "--half-width", "--prevalence"],
    ),
    "compare": (
        ["compare", "--only-a-correct", "30", "--only-b-correct", "15"],
        ["--only-a-correct", "--only-b-correct", "--alpha"],
    ),
    "cv-compare": (
        ["cv-compare", "--scores-a", "0.8,0.82,0.79,0.85,0.81"]
        + ["--scores-b", "0.7,0.71,0.75,0.72,0.74", "--test-fraction", "0.1"],
        ["--test-fraction", "--scores-a"],
    ),
    "label": (None, ["--required", "--alpha", "--batch", "--pool"]),
    "rerun": (["rerun", "no_such_chapter"], []),
    "mnist": (["mnist", "check", "--dir", "/nonexistent"], []),
}

#: Size-like keys of a result: never negative.
SIZE_KEYS = ("n", "clusters", "items", "test_rows", "train_rows", "n_positive", "n_negative")


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([*argv, "--json"])
        except SystemExit as exc:  # argparse refusals
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def _check(argv):
    """Exit 0 with a clean JSON result, or exit 2 with one stderr line; the result or None."""
    code, out, err = _run(argv)
    if code == 0:
        assert err == "", (argv, err)
        result = json.loads(out)
        assert isinstance(result, dict)
        for key, leaf in _leaves(result):
            # an error must never come back as text inside a result ("errors" as a key is fine)
            assert not (isinstance(leaf, str) and "error" in leaf.lower()), (argv, key, leaf)
            if isinstance(leaf, float):
                assert math.isfinite(leaf), (argv, key, leaf)
            if key in SIZE_KEYS and isinstance(leaf, int | float):
                assert leaf >= 0, (argv, key, leaf)
        return result
    assert code == 2, (argv, code, err[-500:])
    assert out == "", (argv, out[:300])
    assert len(err.splitlines()) == 1, (argv, err[:500])
    assert "Traceback" not in err and "array(" not in err, err[:500]
    return None


# ----------------------------------------------------------------------------- crafted files
@pytest.fixture(scope="module")
def crafted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    rng = np.random.default_rng(31)
    n = 300
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.9, y, 1 - y)
    b = np.where(rng.random(n) < 0.8, y, 1 - y)
    p = np.round(np.clip(np.where(y == 1, rng.beta(8, 2, n), rng.beta(2, 8, n)), 0, 1), 4)
    g = rng.integers(0, 30, n)

    def write(name, text, mode="w"):
        path = folder / name
        with open(path, mode) as fh:
            fh.write(text)
        return str(path)

    def table(header, *columns):
        rows = [",".join(header)] + [",".join(map(str, r)) for r in zip(*columns, strict=True)]
        return "\n".join(rows) + "\n"

    files = {
        "clean": write("clean.csv", table(["label", "a", "b", "cluster"], y, a, b, g)),
        "scores": write("scores.csv", table(["label", "a", "b", "cluster"], y, p, b, g)),
        "prob_labels": write("prob_labels.csv", table(["label", "a", "b", "cluster"], p, a, b, g)),
        "wide": write(
            "wide.csv",
            ",".join(["label", "cluster"] + [f"m{i}" for i in range(20_000)])
            + "\n"
            + ",".join(["1", "0"] + ["1"] * 20_000)
            + "\n",
        ),
        "huge_name": write(
            "huge_name.csv", "label,a,b," + "c" * 2_000_000 + "\n1,1,0,1\n0,0,0,2\n"
        ),
    }
    for name, value in (("overflow", "9223372036854775808"), ("overflow_float", "1e300")):
        ys = [str(v) for v in y]
        ys[5] = value
        files[name] = write(f"{name}.csv", table(["label", "a", "b", "cluster"], ys, a, b, g))
        preds = [str(v) for v in a]
        preds[7] = value
        files[name + "_pred"] = write(
            f"{name}_pred.csv", table(["label", "a", "b", "cluster"], y, preds, b, g)
        )
    ys = [str(v) for v in y]
    ys[3] = "nan"
    files["nan_label"] = write("nan_label.csv", table(["label", "a", "b", "cluster"], ys, a, b, g))
    files["empty"] = write("empty.csv", "")
    files["header_only"] = write("header_only.csv", "label,a,b,cluster\n")
    files["junk"] = write("junk.csv", bytes(rng.integers(0, 256, 4096, dtype=np.uint8)), "wb")
    files["long_line"] = write("long_line.csv", "1" * 2_000_000)
    files["outcomes"] = write("outcomes.txt", "\n".join(map(str, a)) + "\n")
    files["dev_zero"] = "/dev/zero"
    return files, {"y": y, "a": a, "b": b, "p": p, "g": g}


def _file_commands(path):
    return {
        "evaluate": ["evaluate", path, "--models", "a,b", "--resamples", "100", "--seed", "1"],
        "evaluate_cluster": ["evaluate", path, "--cluster", "cluster", "--resamples", "100"],
        "evaluate_engine": [
            "evaluate",
            path,
            "--engine",
            "duckdb",
            "--models",
            "a,b",
            "--resamples",
            "100",
        ],
        "evaluate_dask": [
            "evaluate",
            path,
            "--engine",
            "dask",
            "--models",
            "a,b",
            "--resamples",
            "100",
        ],
        "compare": ["compare", "--predictions", path],
        "compare-learners": ["compare-learners", path, "--draws", "2000"],
        "bench-eval": ["bench-eval", path],
        "clustered": ["clustered", path, "--cluster", "cluster"],
        "clustered_scores": ["clustered", path, "--cluster", "cluster", "--scores"],
        "label": ["label", "--required", "0.7", path],
        "cv-compare": ["cv-compare", "--file", path, "--test-fraction", "0.1"],
    }


def test_every_file_command_on_every_crafted_file(crafted):
    files, _ = crafted
    outcomes = {"answered": 0, "refused": 0}
    for name, path in files.items():
        if name == "dev_zero" and not os.path.exists(path):
            continue
        for command, argv in _file_commands(path).items():
            if name == "dev_zero" and command not in ("label", "compare"):
                continue  # the others refuse a file that is not a regular file first
            result = _check(argv)
            outcomes["answered" if result is not None else "refused"] += 1
            if name in ("wide", "huge_name", "overflow", "overflow_float", "nan_label", "junk"):
                assert result is None or command in ("label", "cv-compare"), (name, command)
    assert outcomes["refused"] > 40 and outcomes["answered"] > 5, outcomes


def test_overflow_labels_are_refused_by_every_reader(crafted):
    files, _ = crafted
    for name in ("overflow", "overflow_float", "overflow_pred", "overflow_float_pred"):
        for command in ("evaluate", "compare", "clustered"):
            code, out, err = _run(_file_commands(files[name])[command])
            assert code == 2 and "too large" in err, (name, command, err)


def test_a_score_column_is_refused_as_labels_and_read_right_with_scores(crafted):
    files, data = crafted
    code, out, err = _run(["clustered", files["scores"], "--cluster", "cluster", "--model", "a"])
    assert code == 2 and "fractions" in err and len(err.splitlines()) == 1
    result = _check(
        ["clustered", files["scores"], "--cluster", "cluster", "--model", "a", "--scores"]
    )
    want = float(np.mean((data["p"] >= 0.5) == (data["y"] == 1)))
    assert result["accuracy"] == pytest.approx(want, abs=1e-12)
    # the clean file gives the accuracy counted directly
    result = _check(["clustered", files["clean"], "--cluster", "cluster", "--model", "a"])
    assert result["accuracy"] == pytest.approx(float(np.mean(data["a"] == data["y"])), abs=1e-12)


def test_no_file_command_prints_a_number_from_a_misread_column(crafted):
    """Column ``a`` of the scores file holds probabilities of class 1: every command that
    answers reads it as such (accuracy of ``p >= 0.5``), or refuses (issue 44: compare
    compared each probability with the label and printed accuracy 0)."""
    files, data = crafted
    want = float(np.mean((data["p"] >= 0.5) == (data["y"] == 1)))
    path = files["scores"]
    res = _check(["compare", "--predictions", path])
    a = next(m for m in res["models"] if m["name"] == "a")
    assert a["kind"] == "probabilities" and a["accuracy"] == pytest.approx(want, abs=1e-12)
    for command in ("evaluate", "evaluate_engine", "evaluate_dask"):
        argv = _file_commands(path)[command]
        if command != "evaluate":
            pytest.importorskip({"evaluate_engine": "duckdb", "evaluate_dask": "dask"}[command])
        res = _check(argv)
        assert res["models"]["a"]["metrics"]["accuracy"]["value"] == pytest.approx(want, abs=1e-12)
    assert _check(_file_commands(path)["clustered"]) is None  # refused: fractions, not labels


def test_nan_and_probability_labels(crafted):
    files, _ = crafted
    for command in ("evaluate", "clustered"):
        code, _, err = _run(_file_commands(files["nan_label"])[command])
        assert code == 2 and len(err.splitlines()) == 1, (command, err)
    # fractions in the label column are not labels: evaluate refuses them
    code, _, err = _run(_file_commands(files["prob_labels"])["evaluate"])
    assert code == 2 and len(err.splitlines()) == 1, err


def test_an_endless_stream_is_refused_in_one_line():
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero on this system")
    code, out, err = _run(["label", "--required", "0.8", "/dev/zero"])
    assert code == 2 and out == "" and "longer than" in err and len(err.splitlines()) == 1


def test_warnings_reach_the_output(crafted):
    files, _ = crafted
    # 12 items: the bootstrap's small-sample warning must not be dropped
    small = os.path.join(os.path.dirname(files["clean"]), "small.csv")
    with open(small, "w") as fh:
        fh.write("label,a,b\n" + "".join(f"{i % 2},{i % 2},{(i // 2) % 2}\n" for i in range(12)))
    result = _check(["evaluate", small, "--resamples", "200", "--seed", "1"])
    assert result["warnings"] and all(isinstance(w, str) for w in result["warnings"])
    code, out, _ = _run(["evaluate", small, "--resamples", "200", "--seed", "1"])
    plain = io.StringIO()
    with contextlib.redirect_stdout(plain):
        assert main(["evaluate", small, "--resamples", "200", "--seed", "1"]) == 0
    assert "warning" in plain.getvalue()


# ----------------------------------------------------------------------------- hostile values
@pytest.mark.parametrize("command", list(CALCULATORS))
def test_every_calculator_with_hostile_values(command, crafted):
    files, _ = crafted
    base, options = CALCULATORS[command]
    if base is None:  # label reads a file of outcomes
        base = ["label", "--required", "0.7", files["outcomes"]]
    _check(base)
    for option in options:
        for value in HOSTILE:
            argv = list(base)
            if option in argv:
                argv[argv.index(option) + 1] = value
            else:
                argv += [option, value]
            _check(argv)
