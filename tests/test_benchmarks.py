"""Every benchmark script runs at its tiny size and prints its TARGET lines (issue 30).

The verdicts at a tiny size mean little (fixed costs dominate); what this checks is that
each script still runs end to end, measures against its baseline and reports in the form
``benchmarks/run_all.py`` collects, so a broken benchmark is noticed by ``make test``
rather than by the next ``make bench``.  The budget is on the CPU time of the scripts
(under 60 s together): on a shared machine their wall time depends on the other jobs.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))
from run_all import TARGET  # noqa: E402

#: Scripts left out of the smoke test, and why.
SLOW = {
    "bench_mnist": "trains the MNIST networks with TensorFlow: about two minutes even at --tiny "
    "(600 digits, one epoch); make bench runs it",
}
SCRIPTS = sorted(p.stem for p in BENCH.glob("bench_*.py"))
CPU_BUDGET = 60.0
_used: dict[str, float] = {}


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


@pytest.mark.parametrize("name", [s for s in SCRIPTS if s not in SLOW])
def test_benchmark_runs_at_tiny_size_and_prints_its_targets(name):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    before = _children_cpu()
    proc = subprocess.run(
        [sys.executable, str(BENCH / f"{name}.py"), "--tiny"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    _used[name] = _children_cpu() - before
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = [line.strip() for line in proc.stdout.splitlines() if line.startswith("TARGET")]
    assert lines, f"{name} printed no TARGET line"
    for line in lines:
        assert TARGET.match(line), f"{name}: malformed TARGET line {line!r}"
        assert not re.search(r"\d s\)", line.split("(target")[1]), (
            f"{name}: a target in absolute seconds ({line!r}); give a ratio to a baseline"
        )


def test_every_script_is_run_or_excused():
    assert set(SLOW) <= set(SCRIPTS)
    for name in SLOW:
        assert "--tiny" in (BENCH / f"{name}.py").read_text(), f"{name} takes no --tiny"


def test_the_tiny_runs_fit_the_budget():
    if len(_used) < len(SCRIPTS) - len(SLOW):
        pytest.skip("run with the whole file to add up the scripts' CPU time")
    total = sum(_used.values())
    assert total < CPU_BUDGET, (
        f"{total:.0f} s of CPU: {sorted(_used.items(), key=lambda kv: -kv[1])}"
    )


def test_run_all_selects_and_never_starts_mnist_unasked():
    from run_all import ASKED_ONLY, select

    assert set(ASKED_ONLY) <= {s.removeprefix("bench_") for s in SCRIPTS}
    names = [s.removeprefix("bench_") for s in SCRIPTS]
    default = select(names, None, None)
    assert "mnist" not in default and len(default) == len(names) - len(ASKED_ONLY)
    assert select(names, "mnist,sizing", "sizing") == ["mnist"]
    assert select(names, None, "startup,bounds") == [
        n for n in default if n not in ("startup", "bounds")
    ]
    with pytest.raises(SystemExit, match="no benchmark named nope"):
        select(names, "nope", None)


def test_run_all_help_and_one_tiny_benchmark():
    run_all = str(BENCH / "run_all.py")
    helped = subprocess.run([sys.executable, run_all, "--help"], capture_output=True, text=True)
    assert helped.returncode == 0 and "--only" in helped.stdout and "--skip" in helped.stdout
    proc = subprocess.run(
        [sys.executable, run_all, "--only", "bounds", "--tiny"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "== benchmarks/bench_bounds.py" in proc.stdout and "bench_mnist" not in proc.stdout
    assert re.search(r"\d+ of \d+ targets met", proc.stdout)
