"""The benchmarks' shared timer (a script's own folder is on ``sys.path`` when it runs)."""

from __future__ import annotations

import math
import time


def timed(func, repeat: int = 3):
    """The best wall time of ``repeat`` calls of ``func()`` and the last call's result."""
    best, out = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = func()
        best = min(best, time.perf_counter() - start)
    return best, out
