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
    separately), as pROC's ``ci.se``.  It is drawn from order statistics instead of
    items: the threshold of a resample is the :math:`k`-th smallest resampled negative,
    :math:`k = \\lceil s n_0\\rceil`, which is :math:`t = y_{(\\lceil n_0 U\\rceil)}` with
    :math:`U \\sim \\mathrm{Beta}(k, n_0-k+1)` (the :math:`k`-th order statistic of
    :math:`n_0` uniforms), and given it the resampled positives above :math:`t` are
    :math:`\\mathrm{Bin}(n_1, \\hat S_1(t))`; so a resample costs two random draws
    instead of a sort.  When a positive and a negative share the score :math:`t` (any
    tie, as float32 outputs and rounded scores have), the polygon crosses the tied group
    on a diagonal, and three more binomials give what it needs: given :math:`U = u`, the
    other resampled negatives are uniforms below and above :math:`u`, so
    :math:`\\mathrm{Bin}(n_0-k, (1-\\hat F_0(t))/(1-u))` of them lie above :math:`t` and
    the rest of those above :math:`u`, with :math:`\\mathrm{Bin}(k-1, (u-\\hat F_0(t^-))/u)`
    of those below it, lie at :math:`t`; the resampled positives at :math:`t` are
    binomial given those above it.  The resampled sensitivity is then the polygon's
    height at :math:`g = n_0(1-s)` false positives, read from these counts, with the
    distribution that resampling item by item gives (a test checks it against the
    enumerated bootstrap distribution), in five draws per resample whatever the ties.
    The bootstrap cannot see a threshold beyond the largest negatives: when fewer than
    :data:`MIN_NEGATIVES_ABOVE` negatives are expected above the threshold,
    :math:`n_0(1-s) <` :data:`MIN_NEGATIVES_ABOVE`, it undercovers (binormal model, AUC
    0.85, 2,000 test sets each: 71 % at :math:`n_0(1-s) = 0.5`, 75-85 % at 0.7, 91.7 % at
    2, 93.7 % at 5; it held at 7 and 10), and ``"bootstrap"`` gives the
    ``"order-statistic"`` interval at those points instead (``exact`` says where).
``"order-statistic"``
    distribution-free and conservative, for any :math:`n_0(1-s)`.  With probability at
    least :math:`1-\\alpha/2` the true threshold :math:`q_s` lies between the order
    statistics :math:`y_{(l)} \\le q_s \\le y_{(u)}` of the negatives (the threshold
    interval below at level :math:`\\alpha/2`); the positives are independent of the
    negatives, so given :math:`y_{(u)}` the count of positives above it is
    :math:`\\mathrm{Bin}(n_1, Se(y_{(u)}))` and its Clopper-Pearson lower bound at
    :math:`\\alpha/4` is below :math:`Se(y_{(u)}) \\le Se(q_s)` with probability
    :math:`1-\\alpha/4`; the upper end likewise from :math:`y_{(l)}`.  Each end misses
    with probability at most :math:`\\alpha/2` (Bonferroni).  When
    :math:`s^{n_0} > \\alpha/4` no order statistic bounds :math:`q_s` from above (the
    upper one is :math:`+\\infty`), so the lower end is 0: no distribution-free interval
    bounds the sensitivity away from 0 with so few negatives, and the function warns
    (:class:`OperatingPointWarning`) with the number of negatives it would need.
``"fixed-threshold"``
    Wilson's interval on the positives at the estimated threshold, as if the threshold
    had been fixed in advance; shown in the book for contrast (it ignores the
    negatives' sampling and undercovers).

The threshold gets the distribution-free interval of a quantile: the order statistics
:math:`y_{(l)}, y_{(u)}` of the negatives with :math:`l` the :math:`\\alpha/2` quantile of
:math:`\\mathrm{Bin}(n_0, s)` and :math:`u` one more than its :math:`1-\\alpha/2` quantile;
:math:`y_{(0)} = -\\infty` and :math:`y_{(n_0+1)} = +\\infty` (the interval is unbounded
when there are too few negatives to bound it).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from heldout._checks import as_choice, as_draws, as_probability, scalar_or_array
from heldout._result import Result, extra
from heldout.config import rng as _rng
from heldout.metrics import _roc

__all__ = [
    "MIN_NEGATIVES_ABOVE",
    "OPERATING_METHODS",
    "OperatingPoint",
    "OperatingPointWarning",
    "negatives_needed",
    "sensitivity_at_specificity",
    "specificity_at_sensitivity",
]

#: Methods of :func:`sensitivity_at_specificity` and :func:`specificity_at_sensitivity`.
OPERATING_METHODS = ("bootstrap", "order-statistic", "fixed-threshold")

#: Below this many expected negatives above the threshold, :math:`n_0(1-s)`, the
#: stratified bootstrap undercovers and ``"bootstrap"`` uses the order-statistic interval.
MIN_NEGATIVES_ABOVE = 7


class OperatingPointWarning(UserWarning):
    """Too few items for an interval that bounds the rate away from 0."""


def negatives_needed(at: float, alpha: float = 0.05) -> int:
    """Fewest negatives for which the order-statistic interval's lower end can exceed 0.

    The upper order statistic :math:`y_{(u)}` exists when
    :math:`P(\\mathrm{Bin}(n_0, s) = n_0) = s^{n_0} \\le \\alpha/4`, so
    :math:`n_0 \\ge \\ln(\\alpha/4)/\\ln s`.

    Parameters
    ----------
    at : float in (0, 1)
        The fixed specificity :math:`s`.
    alpha : float

    Returns
    -------
    int

    Examples
    --------
    >>> negatives_needed(0.99), negatives_needed(0.9)
    (437, 42)
    """
    s = float(as_probability(at, "at", scalar=True))
    a = float(as_probability(alpha, "alpha", scalar=True))
    if not 0 < s < 1:
        raise ValueError(f"at must be strictly between 0 and 1, got {s:g}")
    return int(math.ceil(math.log(a / 4) / math.log(s) - 1e-9))


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
        the distribution-free interval of the quantile it estimates (infinite where too
        few items bound it).
    method : str
    exact : bool or ndarray of bool
        Where the interval is the order-statistic one (always for
        ``"order-statistic"``; for ``"bootstrap"`` where
        :math:`n_0(1-s) <` :data:`MIN_NEGATIVES_ABOVE`).
    """

    value: object
    low: object
    high: object
    at: object = extra()
    threshold: object = extra()
    threshold_low: object = extra()
    threshold_high: object = extra()
    method: str = extra("bootstrap")
    exact: object = extra(False)


def _bootstrap_fast(x, yneg, k, reps, gen, g=None):
    """Stratified bootstrap of the sensitivity, drawn from order statistics (module notes).

    ``x`` and ``yneg`` are the positives' and the negatives' scores sorted ascending,
    ``k = n0 - floor(g)`` the rank of the resampled threshold and ``g`` the false
    positives allowed (needed only when a positive and a negative share a score).
    Returns the ``(reps, k.size)`` resampled sensitivities.
    """
    n1, n0 = x.size, yneg.size
    kk = np.maximum(k, 1)
    u = gen.beta(kk[None, :], (n0 - kk + 1)[None, :], size=(reps, k.size))
    idx = np.clip(np.ceil(n0 * u).astype(np.int64), 1, n0) - 1
    v = yneg[idx]  # the k-th smallest resampled negative
    not_above = np.searchsorted(x, v, side="right")
    hits = gen.binomial(n1, (n1 - not_above) / n1)  # resampled positives above v
    if g is not None:
        hits = hits + _tied_share(x, yneg, k, kk, g, u, v, not_above, hits, gen)
    return np.where(k[None, :] == 0, 1.0, hits / n1)


def _tied_share(x, yneg, k, kk, g, u, v, not_above, above, gen):
    """The positives tied with the threshold ``v`` that the ROC polygon's diagonal counts.

    Given the k-th smallest resampled negative at ``v`` (its uniform ``u``), the
    ``n0 - k`` resampled negatives above it are independent uniforms on ``(u, 1)`` and
    the ``k - 1`` below on ``(0, u)``; so the resampled negatives above ``v`` are
    ``Bin(n0 - k, (1 - F0(v)) / (1 - u))`` and those at ``v`` one plus those of the
    lower ``k - 1`` that fall at ``v``, ``Bin(k - 1, (u - F0(v-)) / u)``, plus the
    upper ones that do not pass ``v``.  Given ``above`` resampled positives above
    ``v``, those at ``v`` are ``Bin(n1 - above, P(= v) / P(<= v))``.  The polygon
    at ``g`` false positives rises from (negatives above, positives above) by the
    share ``(g - negatives above) / negatives at v`` of the positives at ``v``.
    """
    n1, n0 = x.size, yneg.size
    at_pos = not_above - np.searchsorted(x, v, side="left")
    tied_pos = gen.binomial(
        n1 - above, np.where(not_above > 0, at_pos / np.maximum(not_above, 1), 0.0)
    )
    q_lo = np.searchsorted(yneg, v, side="left") / n0
    q_hi = np.searchsorted(yneg, v, side="right") / n0
    with np.errstate(divide="ignore", invalid="ignore"):
        p_up = np.where(u < 1, (1 - q_hi) / (1 - u), 0.0)
        p_low = np.where(u > 0, (u - q_lo) / u, 1.0)
    up = gen.binomial((n0 - kk)[None, :], np.clip(p_up, 0.0, 1.0))
    low_at = gen.binomial((kk - 1)[None, :], np.clip(p_low, 0.0, 1.0))
    at_neg = 1 + low_at + (n0 - kk)[None, :] - up
    return (g[None, :] - up) / at_neg * tied_pos


def _at(
    pos, s, at, alpha, method, n_resamples, seed, names=("negatives", "specificity"), min_above=None
):
    spec = np.asarray(as_probability(at, "at", closed=True), dtype=float)
    a = float(as_probability(alpha, "alpha", scalar=True))
    method = as_choice(method, "method", OPERATING_METHODS)
    reps = as_draws(n_resamples, "n_resamples", minimum=0)
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
        boot = _bootstrap_fast(x, yneg, k, reps, gen, g if shared else None)
        low, high = np.quantile(boot, [a / 2, 1 - a / 2], axis=0)
        low, high = np.minimum(low, value), np.maximum(high, value)
    exact = np.zeros(spec.shape, dtype=bool)
    if method != "fixed-threshold":
        exact = (
            np.ones(spec.shape, dtype=bool)
            if method == "order-statistic"
            else n0 * (1 - spec) < (MIN_NEGATIVES_ABOVE if min_above is None else min_above) - 1e-9
        )
        if exact.any():
            o_low, o_high, unbounded = _order_statistic(x, yneg, spec, a)
            low, high = np.where(exact, o_low, low), np.where(exact, o_high, high)
            if np.any(exact & unbounded):
                worst = float(spec[exact & unbounded].max())
                need = f"at least {negatives_needed(worst, a)}" if worst < 1 else "more than any"
                warnings.warn(
                    f"{n0} {names[0]} cannot bound the threshold of {names[1]} {worst:g} "
                    f"from above (that needs {need}): no "
                    "distribution-free interval bounds the rate away from 0, and the lower "
                    "end is 0",
                    OperatingPointWarning,
                    stacklevel=3,
                )
    t = thr[j]
    t = np.where(np.isinf(t), yneg[-1], t)
    parts = [value, low, high, spec, t, *_order_bounds(yneg, spec, a / 2)]
    parts = [scalar_or_array(np.asarray(p, dtype=float).reshape(shape)) for p in parts]
    return parts + [bool(exact[0]) if shape == () else exact.reshape(shape)], method


def _order_index(n0, spec, a):
    """1-based indices l, u of the quantile interval at level 1 - 2a (0 and n0+1: unbounded)."""
    lo = stats.binom.ppf(a, n0, spec).astype(np.int64)
    hi = stats.binom.ppf(1 - a, n0, spec).astype(np.int64) + 1
    return lo, hi


def _order_bounds(yneg, spec, a):
    """Order statistics y_(l), y_(u) holding the spec-quantile with probability >= 1 - 2a."""
    n0 = yneg.size
    lo, hi = _order_index(n0, spec, a)
    padded = np.r_[-np.inf, yneg, np.inf]
    return padded[lo], padded[hi]


def _order_statistic(x, yneg, spec, a):
    """Order-statistic interval of the sensitivity at specificity ``spec`` (module notes)."""
    n1 = x.size
    t_lo, t_hi = _order_bounds(yneg, spec, a / 4)
    above_hi = n1 - np.searchsorted(x, t_hi, side="right")  # positives > y_(u)
    at_lo = n1 - np.searchsorted(x, t_lo, side="left")  # positives >= y_(l)
    low = np.where(
        above_hi > 0, stats.beta.ppf(a / 4, np.maximum(above_hi, 1), n1 - above_hi + 1), 0.0
    )
    high = np.where(at_lo < n1, stats.beta.isf(a / 4, at_lo + 1, np.maximum(n1 - at_lo, 1)), 1.0)
    return low, high, np.isinf(t_hi)


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
    method : {"bootstrap", "order-statistic", "fixed-threshold"}
        ``"bootstrap"`` switches to ``"order-statistic"`` where fewer than
        :data:`MIN_NEGATIVES_ABOVE` negatives are expected above the threshold.
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
    return OperatingPoint(*parts[:3], *parts[3:7], method=method, exact=parts[7])


# Its signature repeats sensitivity_at_specificity's (both public); the work is one
# function, _at, called with the classes swapped and the scores negated.
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
    at : float or array_like in [0, 1]
        The fixed sensitivity; the other arguments and the result as in
        :func:`sensitivity_at_specificity`.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.repeat([1, 0], [200, 300])
    >>> s = np.random.default_rng(0).normal(1.5 * y, 1.0)
    >>> r = specificity_at_sensitivity(y, s, at=0.9, seed=1)
    >>> bool(0 <= r.low <= r.value <= r.high <= 1)
    True
    """
    pos, s = _roc.labels_scores(y, scores)
    parts, method = _at(
        ~pos, -s, at, alpha, method, n_resamples, seed, ("positives", "sensitivity")
    )
    for i in (4, 5, 6):
        parts[i] = -parts[i] if np.ndim(parts[i]) else -float(parts[i])
    parts[5], parts[6] = parts[6], parts[5]
    return OperatingPoint(*parts[:3], *parts[3:7], method=method, exact=parts[7])
