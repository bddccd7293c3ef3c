"""How often intervals miss the truth when they are checked again and again.

Two experiments of the chapter :doc:`/notebooks/label_until_sure`:

* :func:`fixed_interval_miss` — label in batches, recompute a fixed-size
  Clopper-Pearson interval :cite:`clopper1934` after every batch: the chance
  that it *ever* excludes the true accuracy grows with the number of looks, towards 1
  (by the law of the iterated logarithm).  Over the looks a practitioner makes it grows
  roughly like the logarithm of their number, not the logarithm of the logarithm: at
  accuracy 0.8, 95 % intervals and 10 labels per look, 11.0 % after 10 looks, 29.3 %
  after 100 and 41.5 % after 500 (``tests/sequential/test_sequential.py``).  It is
  computed exactly by dynamic programming over the number correct (the counts
  an interval excludes are the two tails at each look), and by simulation.
* :func:`sequence_miss` — the same question for a confidence sequence
  checked after every label, by simulation.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from heldout._checks import check_elements
from heldout.accuracy.bounds import interval
from heldout.config import rng as make_rng
from heldout.sequential import _inputs
from heldout.sequential.confidence import confidence_sequence

__all__ = ["fixed_interval_miss", "sequence_miss"]

#: Largest number of (run, label) cells simulated at once.
_CELLS = 1 << 21


def _common(accuracy, looks, batch, alpha, *, looks_name="looks"):
    _inputs.scalar(accuracy, "accuracy")
    p = float(_inputs.as_probability(accuracy, "accuracy"))
    k = _inputs.whole(looks, looks_name)
    b = _inputs.whole(batch, "batch")
    a = _inputs.alpha_(alpha)
    if k * b > 10_000_000:
        what = f"{looks_name} * batch" if looks_name == "looks" else looks_name
        raise ValueError(f"{what} must be at most 10,000,000 labels, got {k * b:,}")
    return p, k, b, a


def fixed_interval_miss(
    accuracy: float,
    looks: int,
    batch: int = 10,
    alpha: float = 0.05,
    *,
    reps: int | None = None,
    seed=None,
) -> np.ndarray:
    """Chance that a fixed-size interval recomputed after each batch has excluded the truth.

    Labels arrive in batches of ``batch``; after batch :math:`j` (``j * batch``
    labels) the two-sided Clopper-Pearson interval at level ``1 - alpha`` is
    computed from all labels so far.  Entry ``j - 1`` of the result is the
    probability that at least one of the first ``j`` intervals excluded
    ``accuracy``.  Each interval alone excludes it with probability at most
    ``alpha``; the union over looks does not.

    With ``reps=None`` the probabilities are exact: a dynamic programme over the
    number correct carries the probability of each count that no interval has
    excluded yet, convolved with the binomial distribution of each new batch.
    With ``reps`` it is estimated from that many simulated runs (an independent
    check).

    Examples
    --------
    >>> miss = fixed_interval_miss(0.8, looks=50, batch=10)
    >>> round(float(miss[0]), 4) <= 0.05, round(float(miss[-1]), 3)
    (True, 0.237)
    """
    p, k, b, a = _common(accuracy, looks, batch, alpha)
    ns = b * np.arange(1, k + 1)
    gen = make_rng(seed)  # checked even when unused (reps=None: computed exactly)
    if reps is not None:
        r = _inputs.whole(reps, "reps")
        if r > 10**6:  # stated limit: the runs are simulated side by side
            raise ValueError(f"reps must be at most 1,000,000, got {r:,}")
        ever = np.zeros((r, k), dtype=bool)
        rows = max(1, _CELLS // k)
        for start in range(0, r, rows):
            counts = np.cumsum(gen.binomial(b, p, size=(min(rows, r - start), k)), axis=1)
            low, high = interval(counts, ns, alpha=a, method="clopper-pearson")
            ever[start : start + rows] = np.logical_or.accumulate((low > p) | (high < p), axis=1)
        return ever.mean(axis=0)
    batch_pmf = stats.binom.pmf(np.arange(b + 1), b, p)
    alive = np.ones(1)  # P(S = s and no miss yet), s = 0..n
    missed = np.empty(k)
    gone = 0.0  # the mass removed so far, summed from its own side (not 1 - alive.sum())
    for j, n in enumerate(ns):
        alive = np.convolve(alive, batch_pmf)
        low, high = interval(np.arange(n + 1), n, alpha=a, method="clopper-pearson")
        out = (low > p) | (high < p)
        gone += float(alive[out].sum())
        alive = np.where(out, 0.0, alive)
        missed[j] = min(gone, 1.0)
    return missed


def sequence_miss(
    accuracy: float,
    n: int,
    alpha: float = 0.05,
    method: str = "betting",
    *,
    reps: int = 1000,
    pool: int | None = None,
    seed=None,
) -> np.ndarray:
    """Simulated chance that a confidence sequence has excluded the truth by each label.

    Runs ``reps`` sequences of ``n`` labels (independent Bernoulli(``accuracy``)
    outcomes, or with ``pool`` a random order of a pool of ``pool`` items of
    which ``round(accuracy * pool)`` are correct, the truth then being the pool's
    own accuracy), computes :func:`~heldout.sequential.confidence.confidence_sequence` on each and returns, for
    each ``t``, the share of runs whose sequence excluded the truth at some step
    up to ``t``.  The sequence promises at most ``alpha`` at ``t = n`` (and at
    every horizon).

    Examples
    --------
    >>> miss = sequence_miss(0.8, 500, 0.05, reps=200, seed=1)
    >>> float(miss[-1]) <= 0.05
    True
    """
    p, steps, _, a = _common(accuracy, n, 1, alpha, looks_name="n")
    r = _inputs.whole(reps, "reps")
    if r > 10**6:  # stated limit: the runs are simulated side by side
        raise ValueError(f"reps must be at most 1,000,000, got {r:,}")
    size = _inputs.pool(pool, steps)
    gen = make_rng(seed)
    if size is not None:
        check_elements(
            float(min(r, max(1, _CELLS // steps))) * size,
            "pool (each block of runs orders the whole pool)",
        )
        ones = int(round(p * size))
        p = ones / size
        items = (np.arange(size) < ones).astype(float)
    ever = np.zeros((r, steps), dtype=bool)
    rows = max(1, _CELLS // steps)
    for start in range(0, r, rows):
        m = min(rows, r - start)
        if size is None:
            x = (gen.random((m, steps)) < p).astype(float)
        else:
            x = gen.permuted(np.tile(items, (m, 1)), axis=1)[:, :steps]
        low, high = confidence_sequence(x, a, method, pool=size)
        ever[start : start + m] = np.logical_or.accumulate((low > p) | (high < p), axis=1)
    return ever.mean(axis=0)
