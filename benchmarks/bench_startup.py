"""Start-up time of the calculator commands, as a ratio to Python with numpy and scipy.special.

Run:  .venv/bin/python benchmarks/bench_startup.py  [--repeat 7] [--tiny]

A calculator should answer as fast as Python starts with the two libraries it needs:
each command below is timed end to end (a fresh interpreter running ``heldout ...``),
and so is the baseline ``python -c "import numpy, scipy.special"``, alternately, in
this process, as the CPU time (user + system) of the child process; the figure is the
ratio of the best of ``--repeat`` runs (the least disturbed by other jobs).  Target (issue 19): every ratio at most 1.3.
The script also checks in each command's process that ``scipy.stats`` was not imported.

Issue 30 adds the commands that read a file: ``evaluate``, ``compare --predictions`` and
``clustered`` on 1,000-row files written to a temporary folder.  The children run with
bytecode caching on (``PYTHONDONTWRITEBYTECODE`` removed) after one warm-up run, so the
package's modules are loaded from ``__pycache__`` as numpy's are in the baseline.
``--tiny``: only the three file commands, one run each (the smoke test).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile

COMMANDS = {
    "bound": ["bound", "--errors", "1000", "--n", "1e9"],
    "accept": ["accept", "--correct", "830", "--n", "1000", "--required", "0.8"],
    "lost": ["lost", "--data-accuracy", "0.95", "--train-rows", "800", "--test-rows", "200"],
    "size hoeffding": [
        "size",
        "hoeffding",
        "--range",
        "14",
        "--tolerance",
        "0.1",
        "--epsilon",
        "0.05",
    ],
    "size bernstein": [
        "size",
        "bernstein",
        "--mu",
        "0.01",
        "--variance",
        "2.5",
        "--tolerance",
        "0.1",
        "--epsilon",
        "0.05",
    ],
    "size binomial": ["size", "binomial", "--tolerance", "0.02", "--epsilon", "0.05", "--p", "0.1"],
    "size normal": [
        "size",
        "normal",
        "--variance",
        "0.25",
        "--tolerance",
        "0.02",
        "--epsilon",
        "0.05",
    ],
    "size accuracy": ["size", "accuracy", "--required", "0.8", "--margin", "0.03"],
    "split": ["split", "--c-test", "1.6", "--c-train", "79", "--rows", "1000"],
    # README commands (issue 42): the article's two scores, and sizing at the worst p
    "compare --a --b": ["compare", "--a", "96/100", "--b", "98/100"],
    "size binomial p=0.5": [
        "size",
        "binomial",
        "--tolerance",
        "0.02",
        "--epsilon",
        "0.05",
        "--p",
        "0.5",
    ],
}
TARGET = 1.3
FILE_COMMANDS = ("evaluate", "evaluate --cluster", "compare --predictions", "clustered")


def _files(folder: str) -> dict[str, list[str]]:
    """1,000-row prediction files for the commands that read one, and their command lines."""
    import random

    rnd = random.Random(30)
    scores, labels, items = ["label,a,b"], ["label,a,b"], ["label,a,writer"]
    for i in range(1000):
        y = int(rnd.random() < 0.3)
        a = min(max(0.3 + 0.4 * y + rnd.gauss(0, 0.2), 0.0), 1.0)
        b = y if rnd.random() < 0.85 else 1 - y
        scores.append(f"{y},{a:.6f},{b}")
        labels.append(f"{y},{int(a >= 0.5)},{b}")
        items.append(f"{y},{b},w{i % 40}")
    paths = {}
    for name, rows in (("scores", scores), ("labels", labels), ("items", items)):
        paths[name] = os.path.join(folder, f"{name}.csv")
        with open(paths[name], "w") as fh:
            fh.write("\n".join(rows) + "\n")
    return {
        "evaluate": ["evaluate", paths["scores"]],
        "evaluate --cluster": ["evaluate", paths["items"], "--cluster", "writer"],
        "compare --predictions": ["compare", "--predictions", paths["labels"]],
        "clustered": ["clustered", paths["items"], "--cluster", "writer"],
    }


# Runs the command in-process after noting the modules, so one interpreter start is timed.
_RUNNER = (
    "import sys\n"
    "from heldout.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "sys.stderr.write('STATS=%d\\n' % ('scipy.stats' in sys.modules))\n"
    "raise SystemExit(rc)\n"
)


def _wall(argv: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    """CPU time (user + system) of one child process: far less disturbed by other jobs
    sharing the machine than its wall time, and what start-up costs on an idle machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run(argv, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used, out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs of each command (best kept)")
    parser.add_argument("--tiny", action="store_true", help="the file commands once (smoke test)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        commands = _files(folder)
        if not args.tiny:
            commands = {**COMMANDS, **commands}
        _measure(commands, 1 if args.tiny else args.repeat)


def _measure(commands: dict, repeat: int) -> None:
    """Time every command against the baseline, alternately, and print the TARGET line."""
    for cmd in commands.values():  # warm-up: writes the package's bytecode caches
        _wall([sys.executable, "-c", _RUNNER, *cmd])
    baseline_cmd = [sys.executable, "-c", "import numpy, scipy.special"]
    best_base = float("inf")
    best = {name: float("inf") for name in commands}
    stats_loaded = {}
    for _ in range(repeat):  # interleaved, so slow spells hit every command alike
        best_base = min(best_base, _wall(baseline_cmd)[0])
        for name, cmd in commands.items():
            seconds, out = _wall([sys.executable, "-c", _RUNNER, *cmd])
            if out.returncode != 0:
                raise SystemExit(f"heldout {' '.join(cmd)} failed: {out.stderr.strip()}")
            stats_loaded[name] = "STATS=1" in out.stderr
            best[name] = min(best[name], seconds)

    print(
        f"baseline python -c 'import numpy, scipy.special': {best_base * 1e3:7.1f} ms CPU (best of {repeat})"
    )
    print(f"{'command':>22} {'ms CPU':>8} {'ratio':>7}  scipy.stats imported")
    ratios = {}
    for name in commands:
        ratios[name] = best[name] / best_base
        print(f"{name:>22} {best[name] * 1e3:8.1f} {ratios[name]:7.2f}  {stats_loaded[name]}")
    worst_name = max(ratios, key=ratios.get)
    worst = ratios[worst_name]
    if any(stats_loaded.values()):
        print("scipy.stats was imported by: " + ", ".join(n for n, v in stats_loaded.items() if v))
    met = worst <= TARGET and not any(stats_loaded.values())
    print(
        f"TARGET startup ratio to python + numpy + scipy.special (worst: {worst_name}): {worst:.2f} "
        f"(target <= {TARGET}) {'met' if met else 'missed'}"
    )


if __name__ == "__main__":
    main()
