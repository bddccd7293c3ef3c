"""Write ``exact_bound_reference.csv``: 40-digit roots of the exact (Clopper-Pearson) bounds.

Run from the repository root (about two minutes)::

    .venv/bin/python tests/data/make_exact_bound_reference.py

For each row ``side, m, k, delta`` the file holds the root ``p`` of

* ``side = upper``: ``P(X <= k) = delta`` (the test set bound, ``heldout.accuracy.bounds.exact_upper``),
* ``side = lower``: ``P(X >= k) = delta`` (``heldout.accuracy.bounds.exact_lower``),

for ``X ~ Binomial(m, p)``, to 30 significant digits.  Nothing here uses SciPy: the
binomial tail is summed term by term in exact integer arithmetic (``p`` is a binary
fraction, so ``p = P / 2**s`` and ``1 - p = Q / 2**s`` with integers ``P, Q``), scaled
so that the first term has 260 bits, and the root is found by a safeguarded Newton iteration in
mpmath at 60 digits (at least 40 correct) from a crude start, until the step is below
``1e-34`` relative.

The grid: every ``a`` from 1 to 2,000 (``a = k + 1`` for the upper bound, ``a = k`` for
the lower bound) at ``m = 1e8`` and ``m = 1e9`` with ``delta = 0.05`` (where SciPy's
inverse incomplete beta function fails), plus 400 random cases with ``m`` log-uniform
up to ``1e18``, ``k <= 2000`` and ``delta`` from ``1e-10`` to ``0.5``.
"""

from __future__ import annotations

import csv
import math
import random
from pathlib import Path

import mpmath as mp

mp.mp.dps = 60  # 40 digits survive 1 - P(X <= k - 1) for delta down to 1e-20
_BITS = 260
OUT = Path(__file__).with_name("exact_bound_reference.csv")


def _tail_le(k: int, m: int, p: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
    """``(P(X <= k), P(X = k))`` (the second only to 260 bits of the largest term) for ``X ~ Binomial(m, p)`` by exact integer recurrence."""
    man, exp = p.man_exp
    s = -exp
    big_p, big_q = int(man), (1 << s) - int(man)
    # scale so that the first term, P(X = 0) = (1 - p)^m, has _BITS bits; later terms
    # (up to the mode) only grow, so every term that matters is exact to 2**-_BITS of it
    scale = _BITS - int(mp.floor(m * mp.log(1 - p, 2)))
    with mp.workprec(_BITS + 64):
        t = int(mp.floor(mp.power(1 - p, m) * mp.power(2, scale)))
    total = t
    for i in range(k):
        t = t * (m - i) * big_p // ((i + 1) * big_q)
        total += t
    two = mp.power(2, scale)
    return mp.mpf(total) / two, mp.mpf(t) / two


def _pmf(k: int, m: int, p: mp.mpf) -> mp.mpf:
    return mp.exp(
        mp.loggamma(m + 1)
        - mp.loggamma(k + 1)
        - mp.loggamma(m - k + 1)
        + k * mp.log(p)
        + (m - k) * mp.log1p(-p)
    )


def root(side: str, m: int, k: int, delta: float, start: float) -> mp.mpf:
    """The bound ``side`` for ``k`` events out of ``m``: safeguarded Newton at 40 digits.

    ``f(p)`` (tail minus ``delta``) is monotone; a bracket ``[lo, hi]`` with a sign change
    is kept, and a Newton step that leaves it is replaced by bisection in ``log p``.
    """
    d = mp.mpf(delta)

    def f_and_slope(p):
        if side == "upper":  # decreasing in p
            return _tail_le(k, m, p)[0] - d, -(m - k) * _pmf(k, m, p) / (1 - p)
        return (1 - _tail_le(k - 1, m, p)[0]) - d, (m - k + 1) * _pmf(k - 1, m, p) / (1 - p)

    # f > 0 below the root for the lower bound, above it for the upper bound
    lo, hi = mp.mpf(10) ** -40, 1 - mp.mpf(10) ** -30
    p = mp.mpf(start)
    for _ in range(400):
        f, slope = f_and_slope(p)
        below_root = (f < 0) if side == "lower" else (f > 0)
        if below_root:
            lo = p
        else:
            hi = p
        if f == 0:
            return p
        step = f / slope if slope != 0 else mp.inf
        new = p - step
        if abs(step) < mp.mpf("1e-34") * p and lo <= new <= hi:
            return new
        if not (lo < new < hi):
            new = mp.sqrt(lo * hi)  # bisection in log p
        p = new
    raise RuntimeError(f"no convergence for {side} m={m} k={k} delta={delta}")


def _start(side: str, m: int, k: int, delta: float) -> float:
    # a crude start (normal approximation on the Poisson scale); Newton does the rest
    z = math.sqrt(2 * math.log(1 / delta))
    lam = k + (1 if side == "upper" else 0)
    guess = (lam + z * math.sqrt(lam + 1) * (1 if side == "upper" else -1)) / m
    return min(max(guess, 0.2 * max(k, 1) / m), 0.9)


def cases():
    for m in (10**8, 10**9):
        for a in range(1, 2001):
            yield "upper", m, a - 1, 0.05
            yield "lower", m, a, 0.05
    rng = random.Random(20261122)
    deltas = (0.5, 0.05, 0.025, 0.01, 1e-3, 1e-6, 1e-10)
    for _ in range(200):
        m = int(10 ** rng.uniform(1, 18))
        k = rng.randint(0, min(m, 2000))
        delta = rng.choice(deltas)
        if k < m:
            yield "upper", m, k, delta
        if k > 0:
            yield "lower", m, k, delta


def main() -> None:
    rows = []
    for side, m, k, delta in cases():
        p = root(side, m, k, delta, _start(side, m, k, delta))
        rows.append((side, m, k, repr(delta), mp.nstr(p, 30, strip_zeros=False)))
    with OUT.open("w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["side", "m", "k", "delta", "root"])
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
