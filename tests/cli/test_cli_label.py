"""The `heldout label` command: sequential acceptance on outcomes as they arrive."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest
from cli_support import cli_json

from heldout.cli import main
from heldout.sequential.decide import sequential_accept


def write(tmp_path, lines, name="outcomes.txt"):
    path = tmp_path / name
    path.write_text("".join(f"{v}\n" for v in lines))
    return str(path)


def run_json(capsys, *argv):
    return cli_json(capsys, "label", *argv, quiet=True)


def test_file_json_matches_the_package(tmp_path, capsys):
    x = (np.random.default_rng(1).random(3000) < 0.88).astype(int)
    out = run_json(capsys, "--required", "0.8", "--alpha", "0.01", write(tmp_path, x))
    expected = sequential_accept(x, 0.8, 0.01)
    assert set(out) >= {"n", "decision", "low", "high", "method"}
    assert out["decision"] == expected.decision == "pass"
    assert out["n"] == expected.n
    assert out["low"] == pytest.approx(expected.low, abs=1e-12)
    assert out["high"] == pytest.approx(expected.high, abs=1e-12)
    assert out["method"] == "betting"
    # it stopped reading at the end of the batch (of 10) in which it decided
    assert out["read"] == -(-expected.n // 10) * 10 < 3000


def test_fail_and_continue(tmp_path, capsys):
    low = (np.random.default_rng(2).random(3000) < 0.65).astype(int)
    out = run_json(capsys, "--required", "0.8", write(tmp_path, low))
    assert out["decision"] == "fail" and out["high"] < 0.8
    few = run_json(capsys, "--required", "0.8", write(tmp_path, [1, 0, 1], "few.txt"))
    assert few == {**few, "n": 3, "read": 3, "decision": "continue"}
    assert few["low"] < 0.8 < few["high"]


def test_plain_output_prints_every_batch(tmp_path, capsys):
    x = [1] * 25 + [0] * 5
    assert main(["label", "--required", "0.5", "--batch", "7", write(tmp_path, x)]) == 0
    lines = capsys.readouterr().out.splitlines()
    progress = [line for line in lines if line.startswith("n=")]
    assert progress[0].startswith("n=7 ")
    assert progress[-1].split()[-1] in {"pass", "continue"}
    assert any(line.startswith("decision") for line in lines)


def test_scores_blank_lines_and_comments(tmp_path, capsys):
    path = tmp_path / "scores.txt"
    path.write_text("# scores of a ranking model\n0.9\n\n0.75\n1\n0\n")
    out = run_json(capsys, "--required", "0.5", str(path))
    assert out["n"] == 4 and out["decision"] == "continue"


def test_pool(tmp_path, capsys):
    x = [1] * 90 + [0] * 10
    out = run_json(
        capsys, "--required", "0.85", "--pool", "100", "--batch", "1", write(tmp_path, x)
    )
    # 90 of a pool of 100 correct: pass at the latest when the pool is labelled
    assert out["decision"] == "pass" and out["n"] <= 100 and out["pool"] == 100


@pytest.mark.parametrize(
    ("lines", "argv", "message"),
    [
        (["1", "0", "abc"], [], "line 3"),
        (["1", "1.5"], [], "line 2"),
        (["1", "-1"], [], "line 2"),
        (["1", "nan"], [], "line 2"),
        (["1", "1", "1"], ["--pool", "2"], "line 3"),
        (["1"], ["--batch", "0"], "--batch"),
        (["1"], ["--alpha", "2"], "alpha"),
    ],
)
def test_bad_input_one_line_exit_2(tmp_path, lines, argv, message):
    path = write(tmp_path, lines)
    out = subprocess.run(
        [sys.executable, "-m", "heldout", "label", "--required", "0.8", *argv, path, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    err = out.stderr.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "Traceback" not in out.stderr
    assert out.stdout == ""


def test_missing_file_exit_2(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "heldout", "label", "--required", "0.8", str(tmp_path / "no.txt")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1


def test_reads_a_pipe_that_stays_open():
    """Output for each batch appears while the writer still holds the pipe open."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "heldout", "label", "--required", "0.8", "--batch", "2", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    try:
        proc.stdin.write("1\n0\n")
        proc.stdin.flush()
        first = proc.stdout.readline()  # blocks until the first batch is reported
        assert first.startswith("n=2 ") and first.split()[-1] == "continue"
        for _ in range(200):  # all correct: it passes, stops reading and exits
            proc.stdin.write("1\n")
            proc.stdin.flush()
            if proc.poll() is not None:
                break
            time.sleep(0.005)
        rest, err = proc.communicate(timeout=120)
    except (BrokenPipeError, OSError):
        rest, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "pass" in rest


def test_module_imports_only_the_standard_library_and_the_cli():
    code = (
        "import sys, heldout.cli.label; "
        "print(any(m.startswith('heldout.sequential') or m == 'scipy' for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False"
