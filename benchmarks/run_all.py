"""Run every ``benchmarks/bench_*.py`` and end with one table of their targets.

Run:  .venv/bin/python benchmarks/run_all.py   (``make bench`` does this)

Each benchmark prints its results and, last, one or more lines
``TARGET <name>: <figure> (target <target>) met|missed``.  This script runs them one
after the other (their output streams through as it comes), collects those lines and
prints a table: benchmark, target name, figure, target, met or missed.  A benchmark that
exits with an error, or prints no TARGET line, gets a row saying so.  The exit status
is 1 when a benchmark failed to run, 0 otherwise (a missed target is reported, not fatal).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

TARGET = re.compile(
    r"^TARGET (?P<name>.+): (?P<figure>[^:]+?) \(target (?P<target>[^()]+)\) (?P<status>met|missed)\s*$"
)


def run(script: Path) -> tuple[int, list[dict]]:
    """Run one benchmark, echoing its output, and return its exit code and TARGET lines."""
    rows = []
    with subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    ) as proc:
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            match = TARGET.match(line.strip())
            if match:
                rows.append(match.groupdict())
    return proc.returncode, rows


def table(results: list[tuple[str, int, list[dict]]]) -> str:
    lines = []
    for name, code, rows in results:
        if code != 0:
            lines.append((name, "(the benchmark failed)", "-", "-", f"exit {code}"))
        elif not rows:
            lines.append((name, "(no TARGET line printed)", "-", "-", "-"))
        for row in rows:
            lines.append((name, row["name"], row["figure"], row["target"], row["status"]))
    head = ("benchmark", "target", "figure", "wanted", "status")
    widths = [max(len(str(r[i])) for r in [head, *lines]) for i in range(5)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt.format(*head), fmt.format(*("-" * w for w in widths))]
    out += [fmt.format(*r) for r in lines]
    return "\n".join(out)


def main() -> int:
    here = Path(__file__).resolve().parent
    results = []
    for script in sorted(here.glob("bench_*.py")):
        print(f"== {script.relative_to(here.parent)}", flush=True)
        code, rows = run(script)
        results.append((script.stem, code, rows))
    print()
    print(table(results))
    met = sum(r["status"] == "met" for _, _, rows in results for r in rows)
    total = sum(len(rows) for _, _, rows in results)
    failed = [name for name, code, _ in results if code != 0]
    print(
        f"\n{met} of {total} targets met"
        + (f"; failed to run: {', '.join(failed)}" if failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
