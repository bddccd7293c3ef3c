"""Operating points: the sensitivity at a fixed specificity (and the reverse), with intervals.

A clinic rarely uses a classifier at 0.5: it asks for the sensitivity it gets when at
most 10 % of the healthy are flagged (specificity 0.9).  The threshold that achieves the
specificity is itself estimated, from the negatives' scores, so an interval that treats
it as known (a binomial interval on the positives alone) is too narrow; the sampling of
the negatives moves the threshold and with it the sensitivity :cite:`pepe2003`.

The point estimate reads the empirical ROC polygon (see ``heldout.metrics._roc``) at
false-positive rate :math:`1-s`; at a vertical jump the highest point counts, which is
:math:`\\max\\{\\widehat{Se}(t) : \\widehat{Sp}(t) \\ge s\\}`, the definition of pROC's
``coords(..., input = "specificity")`` :cite:`robin2011proc`.  Intervals:

``"bootstrap"`` (default)
    percentile interval of the stratified bootstrap (positives and negatives resampled
    separately), as pROC's ``ci.se``.  Without scores shared by a positive and a
    negative it is drawn exactly and cheaply: the threshold of a resample is the
    :math:`k`-th smallest resampled negative, :math:`k = \\lceil s n_0\\rceil`, which is
    :math:`y_{(\\lceil n_0 U\\rceil)}` with :math:`U \\sim \\mathrm{Beta}(k, n_0-k+1)`
    (the :math:`k`-th order statistic of :math:`n_0` uniforms), and given it the
    resampled sensitivity is :math:`\\mathrm{Bin}(n_1, \\hat S_1(t))/n_1`; so a resample
    costs two random draws instead of a sort.  With such ties the resamples are drawn
    item by item.
``"fixed-threshold"``
    Wilson's interval on the positives at the estimated threshold, as if the threshold
    had been fixed in advance; shown in the book for contrast (it ignores the
    negatives' sampling and undercovers).

The threshold gets the distribution-free interval of a quantile: the order statistics
:math:`y_{(l)}, y_{(u)}` of the negatives with :math:`l, u` the
:math:`\\alpha/2` and :math:`1-\\alpha/2` quantiles of :math:`\\mathrm{Bin}(n_0, s)`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from heldout._checks import as_choice, as_count, as_probability, scalar_or_array
from heldout._result import Result, extra
from heldout.config import rng as _rng
from heldout.metrics import _roc

__all__ = [
    "OPERATING_METHODS",
    "OperatingPoint",
    "sensitivity_at_specificity",
    "specificity_at_sensitivity",
]

#: Methods of :func:`sensitivity_at_specificity` and :func:`specificity_at_sensitivity`.
OPERATING_METHODS = ("bootstrap", "fixed-threshold")


@dataclass(frozen=True)
class OperatingPoint(Result):
    """A rate at a fixed value of the other rate, with its interval and threshold.

    Attributes
    ----------
    value, low, high : float or ndarray
        The sensitivity (or specificity) and its interval (unpacked in this order).
    at : float or ndarray
        The fixed specificity (or sensitivity).
    threshold, threshold_low, threshold_high : float or ndarray
        The estimated threshold (items with score ``>= threshold`` are called positive
        for a fixed specificity; ``<= threshold`` negative for a fixed sensitivity) and
        the distribution-free interval of the quantile it estimates.
    method : str
    """

    value: object
    low: object
    high: object
    at: object = extra()
    threshold: object = extra()
    threshold_low: object = extra()
    threshold_high: object = extra()
    method: str = extra("bootstrap")


def _bootstrap_fast(x, yneg, k, reps, gen):
    """Exact stratified bootstrap of the sensitivity when no score is shared across classes."""
    n1, n0 = x.size, yneg.size
    kk = np.maximum(k, 1)
    u = gen.beta(kk[None, :], (n0 - kk + 1)[None, :], size=(reps, k.size))
    idx = np.clip(np.ceil(n0 * u).astype(np.int64), 1, n0) - 1
    above = n1 - np.searchsorted(x, yneg[idx], side="right")
    se = gen.binomial(n1, above / n1) / n1
    return np.where(k[None, :] == 0, 1.0, se)


def _bootstrap_items(pos, s, g, reps, gen):
    out = []
    n1 = np.count_nonzero(pos)
    for fp, tp in _roc.resampled_counts(pos, s, reps, gen, chunk=max(1, 2_000_000 // s.size)):
        out.append(_roc.rows_tpr_at(fp, tp, g) / n1)
    return np.vstack(out)


def _at(pos, s, at, alpha, method, n_resamples, seed):
    spec = np.asarray(as_probability(at, "at", closed=True), dtype=float)
    a = float(as_probability(alpha, "alpha", scalar=True))
    method = as_choice(method, "method", OPERATING_METHODS)
    reps = int(as_count(n_resamples, "n_resamples"))
    if method == "bootstrap" and reps < 100:
        raise ValueError(f"n_resamples must be at least 100 for a bootstrap interval, got {reps}")
    shape = spec.shape
    spec = spec.ravel()
    n1 = int(np.count_nonzero(pos))
    n0 = pos.size - n1
    fp, tp, thr, x, yneg = _roc.sorted_curve(pos, s)
    g = _roc.snap((1.0 - spec) * n0)  # false positives allowed
    h, j = _roc.tpr_at(fp, tp, g)
    value = h / n1
    if method == "fixed-threshold":
        z = stats.norm.ppf(1 - a / 2)
        k = np.round(h)
        centre = (k + z * z / 2) / (n1 + z * z)
        half = z * np.sqrt(k * (n1 - k) / n1 + z * z / 4) / (n1 + z * z)
        low, high = np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
    else:
        gen = _rng(seed)
        shared = np.any(yneg[np.minimum(np.searchsorted(yneg, x), n0 - 1)] == x)
        k = (n0 - np.floor(g)).astype(np.int64)
        boot = (
            _bootstrap_items(pos, s, g, reps, gen)
            if shared
            else _bootstrap_fast(x, yneg, k, reps, gen)
        )
        low, high = np.quantile(boot, [a / 2, 1 - a / 2], axis=0)
        low, high = np.minimum(low, value), np.maximum(high, value)
    lo_i = np.clip(stats.binom.ppf(a / 2, n0, spec), 1, n0).astype(np.int64) - 1
    hi_i = np.clip(stats.binom.ppf(1 - a / 2, n0, spec) + 1, 1, n0).astype(np.int64) - 1
    t = thr[j]
    t = np.where(np.isinf(t), yneg[-1], t)
    parts = [value, low, high, spec, t, yneg[lo_i], yneg[hi_i]]
    return [scalar_or_array(np.asarray(p, dtype=float).reshape(shape)) for p in parts], method


def sensitivity_at_specificity(
    y: ArrayLike,
    scores: ArrayLike,
    at: ArrayLike = 0.9,
    alpha: float = 0.05,
    method: str = "bootstrap",
    n_resamples: int = 2000,
    seed=None,
) -> OperatingPoint:
    """Sensitivity at a fixed specificity, with an interval that lets the threshold vary.

    .. math:: \\widehat{Se}(s) = \\max\\{\\widehat{Se}(t) : \\widehat{Sp}(t) \\ge s\\}

    read off the empirical ROC polygon (linear between tied groups), as pROC does
    :cite:`robin2011proc`; the interval is the stratified bootstrap's percentile
    interval (``"bootstrap"``) or, for contrast, Wilson's interval at a threshold
    treated as fixed (``"fixed-threshold"``, which ignores that the threshold is
    estimated :cite:`pepe2003`).  See the module's notes for the exact fast bootstrap.

    Parameters
    ----------
    y : array_like of 0/1, shape (n,)
        Labels (1 = positive).
    scores : array_like, shape (n,)
        Scores (higher = more likely positive).
    at : float or array_like in [0, 1]
        The fixed specificity (several give several points).
    alpha : float
        One minus the confidence of the interval.
    method : {"bootstrap", "fixed-threshold"}
    n_resamples : int
        Bootstrap resamples (at least 100).
    seed : int, Generator or None

    Returns
    -------
    OperatingPoint
        ``value, low, high`` plus ``threshold`` and its interval.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(200), np.zeros(300)]
    >>> s = np.r_[rng.normal(1.5, 1, 200), rng.normal(0, 1, 300)]
    >>> r = sensitivity_at_specificity(y, s, at=0.9, seed=1)
    >>> round(r.value, 3), bool(r.low < r.value < r.high)
    (0.635, True)
    """
    pos, s = _roc.labels_scores(y, scores)
    parts, method = _at(pos, s, at, alpha, method, n_resamples, seed)
    return OperatingPoint(*parts[:3], *parts[3:], method=method)


def specificity_at_sensitivity(
    y: ArrayLike,
    scores: ArrayLike,
    at: ArrayLike = 0.9,
    alpha: float = 0.05,
    method: str = "bootstrap",
    n_resamples: int = 2000,
    seed=None,
) -> OperatingPoint:
    """Specificity at a fixed sensitivity, with an interval that lets the threshold vary.

    .. math:: \\widehat{Sp}(r) = \\max\\{\\widehat{Sp}(t) : \\widehat{Se}(t) \\ge r\\}

    computed as :func:`sensitivity_at_specificity` with the classes swapped and the
    scores negated (the threshold now bounds the positives from below; items with
    score ``<= threshold`` are called negative) :cite:`pepe2003,robin2011proc`.

    Parameters
    ----------
    y : array_like of 0/1, shape (n,)
    scores : array_like, shape (n,)
    at : float or array_like in [0, 1]
        The fixed sensitivity.
    alpha : float
    method : {"bootstrap", "fixed-threshold"}
    n_resamples : int
    seed : int, Generator or None

    Returns
    -------
    OperatingPoint

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(200), np.zeros(300)]
    >>> s = np.r_[rng.normal(1.5, 1, 200), rng.normal(0, 1, 300)]
    >>> r = specificity_at_sensitivity(y, s, at=0.9, seed=1)
    >>> bool(0 <= r.low <= r.value <= r.high <= 1)
    True
    """
    pos, s = _roc.labels_scores(y, scores)
    parts, method = _at(~pos, -s, at, alpha, method, n_resamples, seed)
    for i in (4, 5, 6):
        parts[i] = -parts[i] if np.ndim(parts[i]) else -float(parts[i])
    parts[5], parts[6] = parts[6], parts[5]
    return OperatingPoint(*parts[:3], *parts[3:], method=method)
