"""Run every ``benchmarks/bench_*.py`` and end with one table of their targets.

Run:  .venv/bin/python benchmarks/run_all.py   (``make bench`` does this)
      .venv/bin/python benchmarks/run_all.py --only metrics,engine --tiny
      .venv/bin/python benchmarks/run_all.py --skip split

The MNIST benchmark (it trains networks for minutes) runs only when named with
``--only mnist``; ``--tiny`` passes the scripts' own tiny size on to each.

Each benchmark prints its results and, last, one or more lines
``TARGET <name>: <figure> (target <target>) met|missed``.  This script runs them one
after the other (their output streams through as it comes), collects those lines and
prints a table: benchmark, target name, figure, target, met or missed.  A benchmark that
exits with an error, or prints no TARGET line, gets a row saying so.  The exit status
is 1 when a benchmark failed to run, 0 otherwise (a missed target is reported, not fatal).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

TARGET = re.compile(
    r"^TARGET (?P<name>.+): (?P<figure>[^:]+?) \(target (?P<target>[^()]+)\) (?P<status>met|missed)\s*$"
)


#: Benchmarks that run only when asked for by name (``--only``), and why.
ASKED_ONLY = {"mnist": "trains the MNIST networks with TensorFlow for minutes"}


def run(script: Path, extra: list[str] | None = None) -> tuple[int, list[dict]]:
    """Run one benchmark, echoing its output, and return its exit code and TARGET lines."""
    rows = []
    with subprocess.Popen(
        [sys.executable, str(script), *(extra or [])],
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


def _names(text: str | None) -> set[str]:
    return {t.strip().removeprefix("bench_") for t in (text or "").split(",") if t.strip()}


def select(available: list[str], only: str | None, skip: str | None) -> list[str]:
    """The benchmarks to run: ``only`` (or every one but those asked for by name), less ``skip``.

    >>> select(["compare", "metrics", "mnist"], None, None)
    ['compare', 'metrics']
    >>> select(["compare", "metrics", "mnist"], "mnist,metrics", "metrics")
    ['mnist']
    """
    wanted, dropped = _names(only), _names(skip)
    unknown = (wanted | dropped) - set(available)
    if unknown:
        raise SystemExit(
            f"run_all.py: no benchmark named {', '.join(sorted(unknown))} "
            f"(there are: {', '.join(available)})"
        )
    chosen = (
        [a for a in available if a in wanted]
        if wanted
        else [a for a in available if a not in ASKED_ONLY]
    )
    return [a for a in chosen if a not in dropped]


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).resolve().parent
    available = sorted(p.stem.removeprefix("bench_") for p in here.glob("bench_*.py"))
    parser = argparse.ArgumentParser(
        description="Run the benchmarks of benchmarks/ and print one table of their targets.",
        epilog="benchmarks: "
        + ", ".join(available)
        + ". "
        + "; ".join(f"{k} runs only with --only {k} ({why})" for k, why in ASKED_ONLY.items()),
    )
    parser.add_argument("--only", metavar="A,B", help="run only these benchmarks")
    parser.add_argument("--skip", metavar="A,B", help="leave these benchmarks out")
    parser.add_argument("--tiny", action="store_true", help="each at its tiny size (a smoke test)")
    args = parser.parse_args(argv)
    results = []
    for name in select(available, args.only, args.skip):
        script = here / f"bench_{name}.py"
        print(f"== {script.relative_to(here.parent)}", flush=True)
        code, rows = run(script, ["--tiny"] if args.tiny else None)
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
