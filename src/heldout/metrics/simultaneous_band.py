"""A simultaneous confidence band for the ROC curve by the stratified bootstrap.

Pointwise intervals for the sensitivity at each false-positive rate do not cover the
whole curve at once.  Campbell :cite:`campbell1994roc` builds a band of fixed width from
the distribution of the largest deviation of a resampled curve from the estimated one
(a Kolmogorov-Smirnov-type statistic); here the deviation is vertical, on a grid of
false-positive rates :math:`f_1..f_G`,

.. math:: D^* = \\max_g \\bigl|\\widehat{\\mathrm{ROC}}^*(f_g) - \\widehat{\\mathrm{ROC}}(f_g)\\bigr|,
          \\qquad \\widehat{\\mathrm{ROC}}(f) \\pm c_{1-\\alpha},

with :math:`c_{1-\\alpha}` the :math:`1-\\alpha` quantile of :math:`D^*` over stratified
bootstrap resamples (positives and negatives drawn separately, as in pROC's
``ci.thresholds``/``ci.se`` bootstraps :cite:`robin2011proc`), clipped to [0, 1].
Macskassy, Provost and Rosset :cite:`macskassy2005roc` compare several constructions of
ROC bands empirically; the book checks this one's coverage of the true curve on the grid.
Without scores shared by a positive and a negative, each resample's curve on the grid is
drawn exactly from order statistics and binomial counts (a few draws per grid point, no
resampling of items); with such ties, as counts on the pooled sorted scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from heldout._checks import as_draws, as_probability
from heldout._result import Result, extra
from heldout.config import rng as _rng
from heldout.metrics import _roc

__all__ = ["ROCBand", "roc_band"]


@dataclass(frozen=True)
class ROCBand(Result):
    """The empirical ROC curve on a grid of false-positive rates with a simultaneous band.

    Attributes
    ----------
    fpr, tpr, low, high : ndarray
        Grid, estimated sensitivity and the band's ends (unpacked in this order).
    half_width : float
        The band's constant half-width :math:`c_{1-\\alpha}` (before clipping).
    """

    fpr: np.ndarray
    tpr: np.ndarray
    low: np.ndarray
    high: np.ndarray
    half_width: float = extra()


def _curves_at(x: np.ndarray, yneg: np.ndarray, g: np.ndarray, reps: int, gen) -> np.ndarray:
    r"""Resampled sensitivities at ``g`` false positives, drawn exactly without resampling items.

    Without scores shared across classes, the height of a stratified resample's curve at
    ``g`` false positives is the share of resampled positives above its
    :math:`k`-th smallest resampled negative, :math:`k = n_0 - \lfloor g\rfloor`.  The
    order statistics at all ranks are drawn jointly as :math:`y_{(\lceil n_0 U_{(k)}\rceil)}`
    from uniform order statistics built rank by rank
    (:math:`U_{(k')} = U_{(k)} + (1-U_{(k)})\,\mathrm{Beta}(k'-k, n_0-k'+1)`), and the
    nested counts of positives above the thresholds by successive binomials.
    """
    n1, n0 = x.size, yneg.size
    ranks = (n0 - np.floor(g)).astype(np.int64)
    uniq = np.unique(ranks[ranks > 0])  # ascending ranks = ascending thresholds
    heights = np.ones((reps, g.size))
    if uniq.size == 0:
        return heights
    u = np.empty((reps, uniq.size))
    prev, base = 0, np.zeros(reps)
    for j, k in enumerate(uniq):
        base = base + (1 - base) * gen.beta(k - prev, n0 - k + 1, size=reps)
        u[:, j] = base
        prev = k
    t = yneg[np.clip(np.ceil(n0 * u).astype(np.int64), 1, n0) - 1]
    share = (n1 - np.searchsorted(x, t, side="right")) / n1  # positives above, per threshold
    counts = np.empty((reps, uniq.size))
    above = np.zeros(reps)
    p_prev = np.zeros(reps)
    for j in range(uniq.size - 1, -1, -1):  # highest threshold first: counts only grow
        p_new = share[:, j]
        left = 1 - p_prev
        step = np.where(left > 0, (p_new - p_prev) / np.where(left > 0, left, 1), 0.0)
        above = above + gen.binomial((n1 - above).astype(np.int64), np.clip(step, 0, 1))
        counts[:, j] = above
        p_prev = p_new
    col = np.searchsorted(uniq, ranks)
    has = ranks > 0
    heights[:, has] = counts[:, col[has]] / n1
    return heights


def roc_band(
    y: ArrayLike,
    scores: ArrayLike,
    alpha: float = 0.05,
    fpr: ArrayLike | None = None,
    n_resamples: int = 2000,
    seed=None,
) -> ROCBand:
    """Fixed-width simultaneous bootstrap band for the ROC curve (Campbell's construction).

    .. math:: \\widehat{\\mathrm{ROC}}(f_g) \\pm c_{1-\\alpha}, \\qquad
              P^*\\bigl(\\max_g |\\widehat{\\mathrm{ROC}}^*(f_g) - \\widehat{\\mathrm{ROC}}(f_g)|
              \\le c_{1-\\alpha}\\bigr) = 1-\\alpha

    :cite:`campbell1994roc`, with the stratified bootstrap.

    Parameters
    ----------
    y : array_like of 0/1, shape (n,)
    scores : array_like, shape (n,)
    alpha : float
    fpr : array_like in [0, 1], optional
        Grid of false-positive rates (default 0.01, 0.02, ..., 0.99).
    n_resamples : int
        At least 100.
    seed : int, Generator or None

    Returns
    -------
    ROCBand

    Examples
    --------
    >>> import numpy as np
    >>> y = np.repeat([1.0, 0.0], [200, 300])
    >>> rng = np.random.default_rng(0)
    >>> s = np.r_[rng.normal(1.5, 1, 200), rng.normal(0, 1, 300)]
    >>> b = roc_band(y, s, seed=1)
    >>> bool(np.all(b.low <= b.tpr) and np.all(b.tpr <= b.high)), round(b.half_width, 3)
    (True, 0.195)
    """
    pos, s = _roc.labels_scores(y, scores)
    a = float(as_probability(alpha, "alpha", scalar=True))
    reps = as_draws(n_resamples, "n_resamples", minimum=0)
    if reps < 100:
        raise ValueError(f"n_resamples must be at least 100 for a bootstrap band, got {reps}")
    grid = (
        np.linspace(0.01, 0.99, 99)
        if fpr is None
        else np.sort(np.ravel(as_probability(fpr, "fpr", closed=True)))
    )
    n1 = int(np.count_nonzero(pos))
    n0 = pos.size - n1
    fp, tp, _, x, yneg = _roc.sorted_curve(pos, s)
    g = _roc.snap(grid * n0)
    est = _roc.tpr_at(fp, tp, g)[0] / n1
    gen = _rng(seed)
    if np.any(yneg[np.minimum(np.searchsorted(yneg, x), n0 - 1)] == x):  # ties across classes
        devs = []
        chunk = max(1, 4_000_000 // (s.size + grid.size * 8))
        for bfp, btp in _roc.resampled_counts(pos, s, reps, gen, chunk=chunk):
            devs.append(np.max(np.abs(_roc.rows_tpr_at(bfp, btp, g) / n1 - est), axis=1))
        dev = np.concatenate(devs)
    else:
        dev = np.max(np.abs(_curves_at(x, yneg, g, reps, gen) - est), axis=1)
    c = float(np.quantile(dev, 1 - a))
    return ROCBand(grid, est, np.clip(est - c, 0, 1), np.clip(est + c, 0, 1), half_width=c)
