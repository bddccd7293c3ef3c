"""A threshold chosen on the test set: its optimism, and two remedies (split, cross-fit).

Choosing the threshold that maximises a metric on the test set and then reporting that
maximum reports the best of many correlated estimates: it is biased upwards (the
"optimism" of the choice), and its interval, computed as if the threshold had been fixed,
undercovers the true performance of the chosen threshold.  The remedies keep the
choice and the report on different items :cite:`pepe2003`:

* :func:`split_threshold`: choose on a stratified share of the items, report on the rest
  (an honest estimate of the chosen threshold's performance, on fewer items);
* :func:`crossfit_threshold`: split into :math:`K` stratified folds, choose a threshold
  on all folds but one and classify that one with it; every item is classified by a
  threshold chosen without it, and the pooled confusion matrix is reported with the
  metric's interval.  It estimates the average performance of the :math:`K` thresholds
  (each chosen on :math:`(K-1)/K` of the items).

:func:`tuned_threshold` gives the threshold and the in-sample maximum.  Metrics:
``"accuracy"``, ``"balanced_accuracy"`` and ``"f1"``, with the intervals of
:func:`heldout.metrics.rates.rate_interval` (Clopper-Pearson),
:func:`heldout.metrics.fscore.balanced_accuracy_interval` and
:func:`heldout.metrics.fscore.f1_interval`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from heldout._checks import as_choice, as_count, as_probability
from heldout._result import Result, extra
from heldout.config import rng as _rng
from heldout.metrics import _roc
from heldout.metrics.fscore import balanced_accuracy_interval, f1_interval
from heldout.metrics.rates import rate_interval

__all__ = [
    "TUNED_METRICS",
    "ThresholdReport",
    "TunedThreshold",
    "crossfit_threshold",
    "split_threshold",
    "tuned_threshold",
]

#: Metrics a threshold can be tuned for.
TUNED_METRICS = ("accuracy", "balanced_accuracy", "f1")


def _metric(name: str, tp, fp, n1, n0):
    fn, tn = n1 - tp, n0 - fp
    if name == "accuracy":
        return (tp + tn) / (n1 + n0)
    if name == "balanced_accuracy":
        return (tp / n1 + tn / n0) / 2
    den = 2 * tp + fp + fn
    return np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 0.0)


def _best(pos: np.ndarray, s: np.ndarray, metric: str) -> tuple[float, float]:
    """Threshold (score >= it is positive) maximising ``metric``, and the maximum."""
    fp, tp, thr = _roc.curve(pos, s)
    n1, n0 = tp[-1], fp[-1]
    values = _metric(metric, tp, fp, n1, n0)
    k = int(np.argmax(values))
    t = thr[k]
    if np.isinf(t):  # nothing positive: any threshold above the top score
        t = float(np.nextafter(s.max(), np.inf))
    return float(t), float(values[k])


def _interval(metric: str, pos: np.ndarray, called: np.ndarray, alpha: float):
    tp = int(np.count_nonzero(pos & called))
    fp = int(np.count_nonzero(~pos & called))
    fn = int(np.count_nonzero(pos & ~called))
    tn = int(np.count_nonzero(~pos & ~called))
    if metric == "accuracy":
        return rate_interval(tp + tn, tp + fp + fn + tn, alpha=alpha)
    if metric == "balanced_accuracy":
        return balanced_accuracy_interval(tp, fp, fn, tn, alpha=alpha)
    return f1_interval(tp, fp, fn, alpha=alpha)


def _folds(pos: np.ndarray, k: int, gen) -> np.ndarray:
    """Stratified fold number of every item."""
    fold = np.empty(pos.size, dtype=np.int64)
    for cls in (True, False):
        idx = np.flatnonzero(pos == cls)
        if idx.size < k:
            raise ValueError(
                f"folds must be at most the size of the smaller class ({idx.size}), got {k}"
            )
        fold[gen.permutation(idx)] = np.arange(idx.size) % k
    return fold


@dataclass(frozen=True)
class TunedThreshold(Result):
    """The threshold that maximises a metric on the items, and that (optimistic) maximum."""

    threshold: float
    value: float


@dataclass(frozen=True)
class ThresholdReport(Result):
    """An honest report of a tuned threshold: value and interval on items not used to choose it.

    Attributes
    ----------
    value, low, high : float
        The metric on the reporting items and its interval (unpacked in this order).
    threshold : float or ndarray
        The chosen threshold (one per fold for cross-fitting).
    apparent : float
        The in-sample maximum on the whole file (the optimistic number).
    metric, method : str
    """

    value: float
    low: float
    high: float
    threshold: object = extra()
    apparent: float = extra()
    metric: str = extra("f1")
    method: str = extra("split")


def _prepare(y, scores, metric, alpha):
    pos, s = _roc.labels_scores(y, scores)
    metric = as_choice(metric, "metric", TUNED_METRICS)
    a = float(as_probability(alpha, "alpha", scalar=True))
    return pos, s, metric, a


def tuned_threshold(y: ArrayLike, scores: ArrayLike, metric: str = "f1") -> TunedThreshold:
    """The threshold that maximises a metric on these items, and the maximum.

    .. math:: \\hat t = \\arg\\max_t M(\\mathrm{TP}(t), \\mathrm{FP}(t)), \\qquad
              M(\\hat t) = \\max_t M(t)

    over every distinct score (items with score ``>= t`` are called positive).  The
    maximum is an optimistic estimate of the chosen threshold's performance
    :cite:`pepe2003`; report it only with :func:`split_threshold` or
    :func:`crossfit_threshold`.

    Parameters
    ----------
    y : array_like of 0/1, shape (n,)
    scores : array_like, shape (n,)
    metric : {"accuracy", "balanced_accuracy", "f1"}

    Returns
    -------
    TunedThreshold

    Examples
    --------
    >>> r = tuned_threshold([0, 0, 1, 0, 1, 1], [0.1, 0.3, 0.35, 0.6, 0.7, 0.9], "accuracy")
    >>> r.threshold, round(r.value, 3)
    (0.7, 0.833)
    """
    pos, s, metric, _ = _prepare(y, scores, metric, 0.05)
    return TunedThreshold(*_best(pos, s, metric))


def split_threshold(
    y: ArrayLike,
    scores: ArrayLike,
    metric: str = "f1",
    alpha: float = 0.05,
    fraction: float = 0.5,
    seed=None,
) -> ThresholdReport:
    """Choose the threshold on a stratified share of the items, report on the rest.

    .. math:: \\hat t = \\arg\\max_t M_{\\text{choose}}(t), \\qquad
              \\text{report } M_{\\text{report}}(\\hat t) \\text{ with its interval}

    The reporting items never saw the choice, so the metric's usual interval holds for
    the chosen threshold's performance given :math:`\\hat t` :cite:`pepe2003`.

    Parameters
    ----------
    y : array_like of 0/1, shape (n,)
    scores : array_like, shape (n,)
    metric : {"accuracy", "balanced_accuracy", "f1"}
    alpha : float
    fraction : float
        Share of each class used to choose (in (0, 1)).
    seed : int, Generator or None

    Returns
    -------
    ThresholdReport

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(300), np.zeros(300)]
    >>> s = np.r_[rng.normal(1.5, 1, 300), rng.normal(0, 1, 300)]
    >>> r = split_threshold(y, s, "accuracy", seed=1)
    >>> bool(r.low < r.value < r.high), bool(r.apparent > r.value)
    (True, True)
    """
    pos, s, metric, a = _prepare(y, scores, metric, alpha)
    f = float(as_probability(fraction, "fraction", scalar=True))
    gen = _rng(seed)
    choose = np.zeros(pos.size, dtype=bool)
    for cls in (True, False):
        idx = gen.permutation(np.flatnonzero(pos == cls))
        m = int(round(f * idx.size))
        if m < 1 or m >= idx.size:
            raise ValueError(
                f"y has {idx.size} items of class {int(cls)}: too few to split with fraction "
                f"{f} (each side needs at least one item of each class)"
            )
        choose[idx[:m]] = True
    t, _ = _best(pos[choose], s[choose], metric)
    rep = ~choose
    e = _interval(metric, pos[rep], s[rep] >= t, a)
    return ThresholdReport(
        float(e.value), float(e.low), float(e.high), threshold=t,
        apparent=_best(pos, s, metric)[1], metric=metric, method="split",
    )  # fmt: skip


# Its signature repeats split_threshold's (both public, same data and metric); what the two
# compute in common is in _prepare, _best and _interval.
def crossfit_threshold(
    y: ArrayLike,
    scores: ArrayLike,
    metric: str = "f1",
    alpha: float = 0.05,
    folds: int = 5,
    seed=None,
) -> ThresholdReport:
    """Cross-fitted threshold: every item classified by a threshold chosen without it.

    .. math:: \\hat t_k = \\arg\\max_t M_{-k}(t), \\qquad
              \\hat y_i = [s_i \\ge \\hat t_{k(i)}], \\qquad
              \\text{report } M(\\hat y) \\text{ with its interval}

    on ``folds`` stratified folds :cite:`pepe2003`; the interval is the metric's interval
    on the pooled confusion matrix (it treats the :math:`K` thresholds as fixed).

    Parameters
    ----------
    y, scores, metric, alpha, seed
        As in :func:`split_threshold`.
    folds : int
        At least 2.

    Returns
    -------
    ThresholdReport
        Its ``threshold`` lists the ``folds`` thresholds, one chosen without each fold.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.repeat([1, 0], 300)
    >>> s = np.random.default_rng(0).normal(1.5 * y, 1.0)
    >>> r = crossfit_threshold(y, s, "accuracy", seed=1)
    >>> bool(r.low < r.value < r.high), len(r.threshold)
    (True, 5)
    """
    pos, s, metric, a = _prepare(y, scores, metric, alpha)
    k = int(as_count(folds, "folds", minimum=2, scalar=True))
    fold = _folds(pos, k, _rng(seed))
    thresholds = np.empty(k)
    called = np.zeros(pos.size, dtype=bool)
    for j in range(k):
        train = fold != j
        thresholds[j] = _best(pos[train], s[train], metric)[0]
        called[~train] = s[~train] >= thresholds[j]
    e = _interval(metric, pos, called, a)
    return ThresholdReport(
        float(e.value), float(e.low), float(e.high), threshold=thresholds,
        apparent=_best(pos, s, metric)[1], metric=metric, method=f"cross-fit ({k} folds)",
    )  # fmt: skip
