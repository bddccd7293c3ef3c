"""``heldout evaluate --calibration`` against the rest of the report, on the same file.

Run: ``.venv/bin/python benchmarks/bench_calibration.py`` (``--quick`` or ``--tiny`` for
smaller sizes; ``--tiny`` is a smoke test of a few seconds).

A CSV of 10^6 rows with a label and two models' probabilities (six decimals, as
``bench_metrics`` writes them) goes through the command line's ``main`` as
``heldout evaluate FILE --json`` (the report: reading, AUC, proper scores, paired
differences, best sets) and as the same with ``--calibration`` (adding, per model, the
debiased calibration error with its bootstrap interval of 1,000 resamples, Spiegelhalter's
z and the calibration slope and intercept), alternately, in this process, each timed by
its CPU time (``time.process_time``: every thread; the machine is shared).  The
calibration's cost is the difference; the TARGET is that cost over the plain report's, the
median over the pairs (issue 42: it was 26.5 s against 0.97 s, the bootstrap resampling
the 10^6 items once per resample), target at most 2.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time

import numpy as np
from bench_metrics import _write_csv

from heldout.cli import main as cli


def _cpu(*args: str) -> float:
    out = io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(out):
        code = cli(["evaluate", *args, "--json"])
    spent = time.process_time() - start
    if code != 0:
        raise SystemExit(f"heldout evaluate {' '.join(args)} exited {code}")
    return spent


def bench(n: int, repeat: int) -> float:
    """Median over ``repeat`` pairs of (CPU with --calibration - CPU without) / CPU without."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "predictions.csv")
        _write_csv(path, n)
        _cpu(path)  # warm: imports, page cache
        ratios, plain, extra = [], [], []
        for run in range(repeat):
            t_plain = _cpu(path)
            t_cal = _cpu(path, "--calibration")
            plain.append(t_plain)
            extra.append(t_cal - t_plain)
            ratios.append((t_cal - t_plain) / t_plain)
            print(
                f"  run {run + 1}: report {t_plain:.2f} s CPU, with --calibration {t_cal:.2f} s "
                f"(calibration {t_cal - t_plain:.2f} s, {ratios[-1]:.2f}x the report)"
            )
    ratio = float(np.median(ratios))
    print(
        f"evaluate on {n:,} rows x 2 models: report {min(plain):.2f} s CPU (fastest run), "
        f"--calibration adds {float(np.median(extra)):.2f} s (median); median ratio {ratio:.2f}"
    )
    return ratio


def main() -> None:
    tiny, quick = "--tiny" in sys.argv, "--quick" in sys.argv
    n = 10**4 if tiny else (10**5 if quick else 10**6)
    ratio = bench(n, 1 if tiny else 3)
    verdict = "met" if ratio <= 2 else "missed"
    print(
        f"TARGET evaluate_calibration_{n:.0e}_rows_x2_over_rest_of_report: {ratio:.2f} "
        f"(target <= 2) {verdict}"
    )


if __name__ == "__main__":
    main()
