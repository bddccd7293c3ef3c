"""Proper scores of predicted probabilities: log loss and Brier score, and a reliability diagram.

A proper score is a mean over test items of a per-item loss, so the "mean plus
or minus a standard error" recipe of :cite:`validation_size` does apply to it
(unlike the AUC): for binary labels :math:`y_i` and predicted probabilities
:math:`p_i` of the positive class,

.. math:: \\text{log loss} = -\\frac1n\\sum_i \\big(y_i\\ln p_i + (1-y_i)\\ln(1-p_i)\\big),
          \\qquad \\text{Brier} = \\frac1n\\sum_i (p_i - y_i)^2

:cite:`brier1950,gneiting2007`.  Both are means of non-negative per-item losses
whose large values come mostly from the rarer class: with few positives, a
handful of badly predicted positives carries much of the mean, the mean's
sampling distribution is skewed to the right, and Student's t-interval on the
per-item losses, :math:`\\bar\\ell \\pm t_{n-1;1-\\alpha/2}\\, s/\\sqrt n`,
undercovers (a few confident mistakes: a positive predicted at 0.001 costs 6.9
nats).  The default interval, ``method="gamma"``, treats the total loss as a
scaled count of such events: with the effective count
:math:`k = \\bar\\ell^2/\\widehat{\\mathrm{se}}^2` it is Garwood's exact Poisson
interval :cite:`garwood1936fiducial` on :math:`k`, scaled back to the mean,
the gamma interval of Fay and Feuer :cite:`fay1997confidence` with the mean
weight in place of the largest; with many events it is the normal interval.
The BCa bootstrap (:func:`heldout.metrics.bootstrap.bootstrap_interval`) resamples the
same few large losses and does not fix the skew.
Probabilities of exactly 0 or 1 on the wrong side make the log loss infinite;
they are clipped to ``[eps, 1 - eps]`` (``eps = 1e-15``, scikit-learn's historic
choice), which bounds one item's loss at about 34.5 nats; say so when it happens.

:func:`reliability` bins the predictions and gives each bin's observed frequency
of positives with an exact Clopper-Pearson interval :cite:`clopper1934`; a
calibrated model's mean prediction in a bin should lie inside its interval
(pointwise: with many bins some will miss by chance; ``simultaneous=True``
divides ``alpha`` among the bins).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from heldout import _dist, _inputs
from heldout._checks import as_flag, as_instance, in_choices, show
from heldout._result import Result, extra
from heldout.metrics.estimate import Difference, Estimate
from heldout.metrics.item_losses import EPS, brier_items, log_loss_items

__all__ = [
    "EPS",
    "SCORES",
    "PAIRED_T_MIN_CLASS",
    "SCORE_INTERVAL_METHODS",
    "Reliability",
    "brier_items",
    "log_loss_items",
    "plot_reliability",
    "reliability",
    "score_difference",
    "score_interval",
]

#: The proper scores of :func:`score_interval`.
SCORES = ("brier", "log_loss")


def _items(score: str, y, p) -> np.ndarray:
    if not in_choices(score, SCORES):
        raise ValueError(f"score must be one of {', '.join(SCORES)}, got {show(score)}")
    return brier_items(y, p) if score == "brier" else log_loss_items(y, p)


def _moments(values: np.ndarray, axis: int = -1):
    n = values.shape[axis]
    mean = values.mean(axis=axis)
    sd = values.std(axis=axis, ddof=1) if n > 1 else np.zeros_like(mean)
    return mean, sd, n


def _t_interval(values: np.ndarray, alpha: float, axis: int = -1):
    return _t_from_moments(*_moments(values, axis), alpha)


def _t_from_moments(mean, sd, n: int, alpha: float):
    """The t-interval of a mean from its sample mean, standard deviation and count."""
    se = sd / np.sqrt(n)
    t = _dist.t_isf(alpha / 2, max(n - 1, 1))
    return mean, mean - t * se, mean + t * se, se


def _gamma_interval(values: np.ndarray, alpha: float, axis: int = -1):
    """Effective-count gamma interval for the mean of non-negative values (vectorised)."""
    return _gamma_from_moments(*_moments(values, axis), alpha)


def _gamma_from_moments(mean, sd, n: int, alpha: float):
    """:func:`_gamma_interval` from the sample mean, standard deviation and count."""
    se = sd / np.sqrt(n)
    ok = (se > 0) & (mean > 0)
    k = np.where(ok, mean**2 / np.where(ok, se**2, 1.0), 1.0)
    scale = np.where(ok, se**2 / np.where(ok, mean, 1.0), 0.0)
    low = np.where(ok, scale * special.gammaincinv(k, alpha / 2), mean)
    high = np.where(ok, scale * special.gammainccinv(k + 1.0, alpha / 2), mean)
    return mean, low, high, se


#: Methods of :func:`score_interval`.
SCORE_INTERVAL_METHODS = ("gamma", "t", "bca")
#: Fewest items of the rarer class at which the paired t-interval of
#: :func:`score_difference` held its level on the book's simulation grid.
PAIRED_T_MIN_CLASS = {"brier": 30, "log_loss": 200}


def score_interval(
    y: ArrayLike,
    p: ArrayLike,
    score: str = "brier",
    alpha: float = 0.05,
    method: str = "gamma",
    **bootstrap_options,
) -> Estimate:
    """Mean log loss or Brier score with an interval.

    ``method="gamma"`` (default): with the mean loss :math:`\\bar\\ell`, its
    standard error :math:`\\widehat{\\mathrm{se}} = s/\\sqrt n` and the effective
    count :math:`k = \\bar\\ell^2/\\widehat{\\mathrm{se}}^2`,

    .. math:: \\Big[\\tfrac{\\widehat{\\mathrm{se}}^2}{\\bar\\ell}\\, G^{-1}(\\alpha/2;\\, k),\\;
              \\tfrac{\\widehat{\\mathrm{se}}^2}{\\bar\\ell}\\, G^{-1}(1-\\alpha/2;\\, k+1)\\Big],

    :math:`G^{-1}(q; a)` the quantile of the gamma distribution of shape
    :math:`a` and scale 1: Garwood's Poisson interval on :math:`k` events, each
    worth :math:`\\widehat{\\mathrm{se}}^2/\\bar\\ell`
    :cite:`garwood1936fiducial,fay1997confidence`.  What the simulations support
    (``tests/metrics/test_scores.py``, :func:`heldout.book.metric_coverage.score_coverage`):
    from about 20 items of the rarer class its coverage is within about a point of the
    promise (log loss at 95 %, 20 expected positives: 93.8 % and 94.5 % in 20,000
    simulated test sets, at the lower edge of the book's verdict rule); with about 10 it
    falls to about 93 % (92.6 % at 500 items, prevalence 0.02); the t-interval undercovers
    more.  Below 20 items of the rarer class, report the interval with that warning.
    ``"t"``: :math:`\\bar\\ell \\pm t_{n-1;\\,1-\\alpha/2}\\, s/\\sqrt n` on the
    per-item losses; ``"bca"``: the BCa bootstrap of
    :func:`heldout.metrics.bootstrap.bootstrap_interval` (``bootstrap_options`` such as
    ``n_resamples`` and ``seed`` are passed on).

    Parameters
    ----------
    y : array_like of 0/1
        Labels.
    p : array_like
        Predicted probabilities of the positive class, in [0, 1].
    score : {"brier", "log_loss"}
    alpha : float, default 0.05
    method : {"gamma", "t", "bca"}

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> p = rng.random(1000)
    >>> y = rng.random(1000) < p
    >>> e = score_interval(y, p, "brier")
    >>> round(e.value, 4), round(e.low, 4), round(e.high, 4), e.method
    (0.17, 0.1579, 0.1829, 'brier-gamma')
    """
    if not in_choices(method, SCORE_INTERVAL_METHODS):
        raise ValueError(
            f"method must be one of {', '.join(SCORE_INTERVAL_METHODS)}, got {show(method)}"
        )
    if method == "bca":
        from heldout.metrics.bootstrap import bootstrap_interval

        if not in_choices(score, SCORES):
            raise ValueError(f"score must be one of {', '.join(SCORES)}, got {show(score)}")
        return bootstrap_interval(score, y, p, alpha=alpha, **bootstrap_options)
    if bootstrap_options:
        raise ValueError(f"options {sorted(bootstrap_options)} apply only to method='bca'")
    a = _inputs.alpha_value(alpha)
    return _interval_of_items(_items(score, y, p), score, a, method)


def _interval_of_items(values: np.ndarray, score: str, a: float, method: str) -> Estimate:
    """:func:`score_interval` from the per-item losses (``"gamma"`` or ``"t"``)."""
    return _interval_of_moments(*_moments(values), score, a, method)


def _interval_of_moments(mean, sd, n: int, score: str, a: float, method: str) -> Estimate:
    """:func:`score_interval` from the losses' mean, standard deviation and count."""
    compute = _gamma_from_moments if method == "gamma" else _t_from_moments
    mean, low, high, se = compute(mean, sd, n, a)
    return Estimate(
        float(mean),
        float(low),
        float(high),
        method=f"{score}-{method}",
        se=float(se),
        n=int(n),
        alpha=a,
    )


def score_difference(
    y: ArrayLike, p_a: ArrayLike, p_b: ArrayLike, score: str = "brier", alpha: float = 0.05
) -> Difference:
    r"""Paired difference of two models' mean log loss or Brier score on the same items.

    A difference of two means over the same items is the mean of the per-item
    differences :math:`d_i = \\ell_{A,i} - \\ell_{B,i}`, so the paired t-interval
    :math:`\\bar d \\pm t_{n-1}\\, s_d/\\sqrt n` and the paired t-test apply; pairing
    removes the variation of item difficulty that the two models share.  Like the
    t-interval of one score it undercovers when positives are rare (the
    differences are as skewed as the losses): the book's simulations need
    :data:`PAIRED_T_MIN_CLASS` items of the rarer class (30 for the Brier score,
    200 for the log loss).

    Examples
    --------
    >>> rng = np.random.default_rng(6)
    >>> p = rng.random(500)
    >>> y = rng.random(500) < p
    >>> q = np.clip(p + rng.normal(0, 0.1, 500), 0, 1)
    >>> d = score_difference(y, p, q)
    >>> round(d.value, 4), round(d.p_value, 2)
    (-0.0074, 0.05)
    """
    a = _inputs.alpha_value(alpha)
    return _difference_of_items(_items(score, y, p_a) - _items(score, y, p_b), score, a)


def _difference_of_items(values: np.ndarray, score: str, a: float) -> Difference:
    """:func:`score_difference` from the per-item differences of the losses."""
    return _difference_of_moments(*_moments(values), score, a)


def _difference_of_moments(mean, sd, n: int, score: str, a: float) -> Difference:
    """:func:`score_difference` from the differences' mean, standard deviation and count."""
    mean, low, high, se = _t_from_moments(mean, sd, n, a)
    t = float(mean / se) if se > 0 else (0.0 if mean == 0 else float(np.copysign(np.inf, mean)))
    p = float(2 * _dist.t_sf(abs(t), max(n - 1, 1))) if se > 0 else float(mean == 0)
    return Difference(
        float(mean),
        float(low),
        float(high),
        p_value=p,
        method=f"{score}-paired-t",
        se=float(se),
        statistic=t,
        n=int(n),
        alpha=a,
    )


@dataclass(frozen=True)
class Reliability(Result):
    """A reliability diagram: per bin, the mean prediction and the observed frequency.

    Attributes
    ----------
    mean_predicted : ndarray
        Mean predicted probability in each non-empty bin.
    observed : ndarray
        Share of positives in each bin.
    low, high : ndarray
        Exact (Clopper-Pearson) interval of the share of positives.
    count : ndarray of int
        Items in each bin.
    edges : ndarray
        Bin edges (length bins + 1; only non-empty bins are reported).
    alpha : float
        Error probability of each bin's interval (already divided by the number of
        bins when ``simultaneous``).
    """

    mean_predicted: np.ndarray
    observed: np.ndarray
    low: np.ndarray
    high: np.ndarray
    count: np.ndarray
    edges: np.ndarray = extra(None)
    alpha: float = extra(0.05)

    @property
    def outside(self) -> np.ndarray:
        """Bins whose mean prediction lies outside the interval of the observed share."""
        return (self.mean_predicted < self.low) | (self.mean_predicted > self.high)


def reliability(
    y: ArrayLike,
    p: ArrayLike,
    bins: int = 10,
    alpha: float = 0.05,
    strategy: str = "uniform",
    simultaneous: bool = False,
) -> Reliability:
    """Reliability diagram with an exact interval for the share of positives in each bin.

    Items are grouped by predicted probability into ``bins`` equal-width bins on
    [0, 1] (``strategy="uniform"``) or bins holding equal numbers of items
    (``"quantile"``).  In each non-empty bin with :math:`m` items of which
    :math:`k` are positive, the interval is Clopper-Pearson on :math:`(k, m)`
    :cite:`clopper1934` at level ``1 - alpha`` (``1 - alpha/B`` over the ``B``
    non-empty bins when ``simultaneous``).  The items of a bin are an independent
    sample of items with predictions in that range, so the interval covers the
    bin's true share of positives, which equals the bin's mean prediction for a
    calibrated model.

    Examples
    --------
    >>> rng = np.random.default_rng(4)
    >>> p = rng.random(2000)
    >>> y = rng.random(2000) < p
    >>> r = reliability(y, p, bins=5)
    >>> r.count.tolist(), int(r.outside.sum())
    ([396, 389, 399, 398, 418], 1)
    """
    as_instance(strategy, "strategy", str, "'uniform' or 'quantile'")
    from heldout.accuracy.bounds import exact_lower, exact_upper

    pos = _inputs.binary_labels(y, "y")
    q = _inputs.probabilities(p, "p", pos.size)
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or not 1 <= bins <= 1000:
        raise ValueError(f"bins must be a whole number from 1 to 1000, got {show(bins)}")
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, bins + 1)
    elif strategy == "quantile":
        edges = np.quantile(q, np.linspace(0, 1, bins + 1))
        edges[0], edges[-1] = 0.0, 1.0
    else:
        raise ValueError(f"strategy must be 'uniform' or 'quantile', got {show(strategy)}")
    a = _inputs.alpha_value(alpha)
    which = np.clip(np.searchsorted(edges, q, side="right") - 1, 0, bins - 1)
    count = np.bincount(which, minlength=bins)
    positives = np.bincount(which, weights=pos, minlength=bins)
    total = np.bincount(which, weights=q, minlength=bins)
    keep = count > 0
    m, k = count[keep], np.round(positives[keep]).astype(np.int64)
    a_bin = a / keep.sum() if as_flag(simultaneous, "simultaneous") else a
    low = np.asarray(exact_lower(k, m, a_bin / 2), dtype=float)
    high = np.asarray(exact_upper(k, m, a_bin / 2), dtype=float)
    return Reliability(
        total[keep] / m,
        k / m,
        low,
        high,
        m,
        edges=edges,
        alpha=a_bin,
    )


def plot_reliability(rel: Reliability, ax=None, label: str | None = None, color=None):
    """Draw a :class:`Reliability` diagram (observed share with its interval against mean prediction).

    Returns the matplotlib ``Axes``.

    Examples
    --------
    >>> rng = np.random.default_rng(4)
    >>> p = rng.random(500)
    >>> ax = plot_reliability(reliability(rng.random(500) < p, p, bins=5), label="model")
    >>> ax.get_xlabel()
    'mean predicted probability in the bin'
    """
    from matplotlib.axes import Axes

    as_instance(ax, "ax", Axes, "matplotlib Axes", optional=True)
    as_instance(rel, "rel", Reliability, "a Reliability (from reliability())")
    from matplotlib.colors import is_color_like

    if color is not None and not (isinstance(color, str | tuple) and is_color_like(color)):
        raise ValueError(f"color must be a matplotlib colour or None, got {show(color)}")
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--", label="calibrated")
    yerr = np.vstack([rel.observed - rel.low, rel.high - rel.observed])
    ax.errorbar(
        rel.mean_predicted,
        rel.observed,
        yerr=yerr,
        fmt="o",
        ms=4,
        capsize=3,
        color=color,
        label=label,
    )
    ax.set_xlabel("mean predicted probability in the bin")
    ax.set_ylabel("observed share of positives")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    return ax
