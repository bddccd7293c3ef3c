"""Paired BCa bootstrap for any metric, and for the difference of two models on the same items.

The bootstrap draws test sets of :math:`n` items *with replacement* from the
test set, recomputes the metric on each, and reads an interval off the
resampled values.  The BCa interval :cite:`efron1987` corrects the percentile
interval for bias (:math:`z_0`, from the share of resampled values below the
estimate) and for a skewness that changes with the parameter (the acceleration
:math:`a`, from the jackknife values :math:`\\hat\\theta_{(i)}`):

.. math:: z_0 = \\Phi^{-1}\\big(\\#\\{\\theta^*_b < \\hat\\theta\\}/B\\big), \\qquad
          a = \\frac{\\sum_i (\\bar\\theta - \\hat\\theta_{(i)})^3}
          {6\\,\\big(\\sum_i (\\bar\\theta - \\hat\\theta_{(i)})^2\\big)^{3/2}},

.. math:: \\alpha_{1,2} = \\Phi\\Big(z_0 + \\frac{z_0 + z_{\\alpha/2,\\,1-\\alpha/2}}
          {1 - a (z_0 + z_{\\alpha/2,\\,1-\\alpha/2})}\\Big),

and the interval is the :math:`\\alpha_1` and :math:`\\alpha_2` quantiles of the
:math:`\\theta^*_b` (ties in the count for :math:`z_0` count one half, as
``scipy.stats.bootstrap`` does).  *Paired*: one resample of items serves both
models, so the difference :math:`\\theta_A - \\theta_B` keeps their correlation.

Two engines, one result:

* a **callable** metric ``f(y, pred) -> float`` goes to ``scipy.stats.bootstrap``
  (``paired=True``, ``method="BCa"``); its jackknife costs :math:`n` calls of ``f``
  on :math:`n - 1` items, so it is limited to :data:`CALLABLE_MAX_N` items;
* a **named** metric (:data:`METRICS`) is resampled through its sufficient
  statistics, which gives the same bootstrap distribution at a fraction of the
  cost: metrics of predicted labels depend only on the confusion counts, and
  resampling items is drawing those counts from a multinomial with the observed
  cell shares (the jackknife has one distinct value per non-empty cell); the
  proper scores are means of per-item losses (jackknife in closed form); the AUC
  is recomputed from resampled item weights on one presorted order (its
  jackknife from DeLong's placement values, :math:`\\hat A_{(i)} = (n_1\\hat A -
  V_{10,i})/(n_1 - 1)` for a positive).

The bootstrap is a large-sample method.  It warns (:class:`SmallSampleWarning`)
when a count the metric depends on is below :data:`MIN_COUNT`, the rule the book
checks by simulation: e.g. for precision the true and the false positives, for
F1 the true positives and the errors, for the AUC the positives and the negatives.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from heldout import _inputs
from heldout._checks import as_flag, as_floats, in_choices, layout_floats, show
from heldout._result import Result, extra
from heldout.config import rng as make_rng
from heldout.metrics.estimate import Difference, Estimate

__all__ = [
    "CALLABLE_MAX_N",
    "BCaInterval",
    "CLUSTER_METRICS",
    "METRICS",
    "MIN_COUNT",
    "SmallSampleWarning",
    "bca_interval",
    "bootstrap_interval",
    "cluster_bootstrap_interval",
]

#: Below this many items in a count the metric depends on, the bootstrap warns.
MIN_COUNT = 10
#: Largest test set for a callable metric (its jackknife makes n calls on n - 1 items).
CALLABLE_MAX_N = 20_000
#: Most resamples accepted.
MAX_RESAMPLES = 1_000_000

_LABEL_METRICS = (
    "accuracy",
    "sensitivity",
    "recall",
    "specificity",
    "precision",
    "npv",
    "f1",
    "balanced_accuracy",
)
_MULTICLASS_METRICS = (
    "multiclass_accuracy",
    "macro_f1",
    "macro_precision",
    "macro_recall",
    "macro_specificity",
)
_MEAN_METRICS = ("brier", "log_loss")
#: Named metrics and what they take: binary predicted labels, class labels, scores
#: (any real numbers, higher = more likely positive) or probabilities in [0, 1].
METRICS: dict[str, str] = {
    **dict.fromkeys(_LABEL_METRICS, "binary labels"),
    **dict.fromkeys(_MULTICLASS_METRICS, "class labels"),
    "auc": "scores",
    **dict.fromkeys(_MEAN_METRICS, "probabilities"),
}


class SmallSampleWarning(UserWarning):
    """The sample is too small for the bootstrap interval's coverage to be trusted."""


# --------------------------------------------------------------------------- BCa
@dataclass(frozen=True)
class BCaInterval(Result):
    """A bootstrap interval with its bias correction ``z0`` and ``acceleration``."""

    low: float
    high: float
    z0: float
    acceleration: float


#: Fewer resamples than this on the far side of 0 leave a bootstrap p-value coarse: it is
#: read from a handful of resamples (``BootstrapDifference.p_coarse``).
MIN_TAIL = 10


@dataclass(frozen=True)
class BootstrapDifference(Difference):
    """A bootstrap :class:`~heldout.metrics.estimate.Difference` with its p-value's resolution.

    Besides the fields of ``Difference``:

    Attributes
    ----------
    p_floor : float
        ``1 / (B + 1)`` for ``B`` finite resamples: the smallest p-value the resamples
        can resolve (the p-value is never reported below it).
    p_tail : float
        How many resamples fell on the far side of 0 (the smaller of the two sides; a
        resample at exactly 0 counts half): the p-value is read from these.  Below
        ``MIN_TAIL`` (10) the p-value is coarse (``p_coarse``): its Monte Carlo error is
        of the order of the p-value itself, so only ``p < p_floor * (MIN_TAIL + 1)``
        is established, not its value.
    """

    p_floor: float = extra(math.nan)
    p_tail: float = extra(math.nan)

    @property
    def p_coarse(self) -> bool:
        """Whether the p-value is read from fewer than ``MIN_TAIL`` (10) resamples."""
        return bool(self.p_tail < MIN_TAIL)


def _p_resolution(boot: np.ndarray) -> tuple[float, float]:
    """``(p_floor, p_tail)`` of a bootstrap p-value (see :class:`BootstrapDifference`)."""
    b = boot[np.isfinite(boot)]
    ties = 0.5 * float(np.count_nonzero(b == 0))
    tail = min(float(np.count_nonzero(b < 0)), float(np.count_nonzero(b > 0))) + ties
    return 1.0 / (b.size + 1), tail


def _difference(theta, low, high, boot, p, **fields) -> BootstrapDifference:
    floor, tail = _p_resolution(boot)
    return BootstrapDifference(theta, low, high, p_value=p, p_floor=floor, p_tail=tail, **fields)


def bca_interval(
    theta_hat: float,
    boot: ArrayLike,
    jackknife: ArrayLike | None,
    alpha: float = 0.05,
    weights: ArrayLike | None = None,
    method: str = "bca",
    df: float | None = None,
) -> BCaInterval:
    """BCa (or percentile) interval from resampled values and jackknife values.

    Parameters
    ----------
    theta_hat : float
        The estimate on the whole sample.
    boot : array_like, shape (B,)
        Resampled values (NaN ones, where the metric was undefined, are dropped).
    jackknife : array_like, shape (J,)
        Leave-one-out values (with ``weights``: distinct values and how many
        items give each); ignored for ``method="percentile"``.
    alpha : float
    weights : array_like, optional
    method : {"bca", "percentile"}
    df : float, optional
        Use the quantiles of Student's t with ``df`` degrees of freedom in place
        of the normal ones in the BCa levels (for few independent units, such as
        clusters).

    Returns
    -------
    BCaInterval
        ``low, high, z0, acceleration`` (unpacks as that tuple); ``z0`` and
        ``acceleration`` are 0 for the percentile interval.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=200)
    >>> boot = rng.choice(x, (4000, 200)).mean(axis=1)
    >>> jack = (x.sum() - x) / 199
    >>> low, high, z0, acc = bca_interval(x.mean(), boot, jack)
    >>> round(low, 2), round(high, 2), round(acc, 3)
    (1.0, 1.29, 0.018)
    """
    alpha = _inputs.alpha_value(alpha)
    theta_hat = float(_inputs.scores(theta_hat, "theta_hat", ndim=0))
    if not in_choices(method, ("bca", "percentile")):
        raise ValueError(f"method must be 'bca' or 'percentile', got {show(method)}")
    b = layout_floats(boot, "boot", 1, "one value per resample", allow_empty=False)
    if df is not None:
        d = as_floats(df, "df", scalar=True)
        if not d > 0:  # NaN too: it gave a zero-width interval
            raise ValueError(f"df must be a positive number of degrees of freedom, got {show(df)}")
    b = b[np.isfinite(b)]
    if b.size == 0:
        return BCaInterval(math.nan, math.nan, math.nan, math.nan)
    lo_hi = np.array([alpha / 2, 1 - alpha / 2])
    if method == "percentile":
        low, high = np.quantile(b, lo_hi)
        return BCaInterval(float(low), float(high), 0.0, 0.0)
    share = ((b < theta_hat).sum() + (b <= theta_hat).sum()) / (2 * b.size)
    z0 = float(special.ndtri(share))
    acc = _acceleration(jackknife, weights)
    za = special.ndtri(lo_hi) if df is None else special.stdtrit(df, lo_hi)
    levels = special.ndtr(z0 + (z0 + za) / (1 - acc * (z0 + za)))
    if not np.all(np.isfinite(levels)):
        return BCaInterval(float(theta_hat), float(theta_hat), z0, acc)
    low, high = np.quantile(b, levels)
    return BCaInterval(float(low), float(high), z0, acc)


def _acceleration(jack, weights) -> float:
    try:
        j = np.asarray(jack, dtype=float)
        w = np.ones_like(j) if weights is None else np.asarray(weights, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError("jackknife and weights must be arrays of numbers") from None
    if weights is not None and w.shape != j.shape:
        raise ValueError(f"weights must have the shape of jackknife {j.shape}, got {show(w)}")
    keep = np.isfinite(j) & (w > 0)
    j, w = j[keep], w[keep]
    if j.size == 0:
        return 0.0
    d = np.average(j, weights=w) - j
    den = 6.0 * (w @ d**2) ** 1.5
    return float((w @ d**3) / den) if den > 0 else 0.0


def _bca_p_value(
    boot: np.ndarray, z0: float, acc: float, method: str, df: float | None = None
) -> float:
    """Two-sided p-value of "difference = 0" by inverting the BCa (or percentile) interval.

    ``B`` finite resamples cannot tell p-values below ``1/(B + 1)`` apart (no resample
    fell beyond 0 says only that the share beyond 0 is below about ``1/B``), so the
    p-value is floored there: ``p >= 1/(B + 1)``, the smallest value of the Monte Carlo
    p-value ``(1 + count)/(B + 1)`` of :cite:`davison1997bootstrap` (ch. 4).
    Both tails are computed from their own side (``ndtr(-x)``, not ``1 - ndtr(x)``).
    """
    b = boot[np.isfinite(boot)]
    if b.size == 0:
        return math.nan
    share = ((b < 0).sum() + (b <= 0).sum()) / (2 * b.size)
    share = min(max(share, 0.5 / b.size), 1 - 0.5 / b.size)
    if method == "percentile":
        lower, upper = share, 1 - share
    else:
        t = special.ndtri(share) - z0
        u = t / (1 + acc * t)
        if df is None:
            lower, upper = special.ndtr(u - z0), special.ndtr(z0 - u)
        else:
            lower, upper = special.stdtr(df, u - z0), special.stdtr(df, z0 - u)
    floor = 1.0 / (b.size + 1)  # the resolution of b.size resamples
    return float(min(1.0, max(2 * min(lower, upper), floor)))


# --------------------------------------------------------------------------- label metrics
def _binary_table_metric(t: np.ndarray, name: str) -> np.ndarray:
    """Metric of binary tables t[..., true, predicted] (index 1 = positive)."""
    t00, t01, t10, t11 = t[..., 0, 0], t[..., 0, 1], t[..., 1, 0], t[..., 1, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        if name == "accuracy":
            return (t00 + t11) / (t00 + t01 + t10 + t11)
        if name in ("sensitivity", "recall"):
            return t11 / (t10 + t11)
        if name == "specificity":
            return t00 / (t00 + t01)
        if name == "precision":
            return t11 / (t01 + t11)
        if name == "npv":
            return t00 / (t00 + t10)
        if name == "f1":
            return 2 * t11 / (2 * t11 + t01 + t10)
        return (t11 / (t10 + t11) + t00 / (t00 + t01)) / 2  # balanced accuracy


def _multiclass_table_metric(t: np.ndarray, name: str) -> np.ndarray:
    from heldout.metrics.fscore import _macro_value_and_gradient

    n = t.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        if name == "multiclass_accuracy":
            return np.trace(t, axis1=-2, axis2=-1) / n
        p = t / n[..., None, None]
        return _macro_value_and_gradient(p, name.split("_", 1)[1])[0]


def _binary_minority(t: np.ndarray, name: str) -> int:
    """Smallest count the binary metric depends on (the rule of MIN_COUNT)."""
    tn, fp, fn, tp = int(t[0, 0]), int(t[0, 1]), int(t[1, 0]), int(t[1, 1])
    table = {
        "accuracy": (tp + tn, fp + fn),
        "sensitivity": (tp, fn),
        "recall": (tp, fn),
        "specificity": (tn, fp),
        "precision": (tp, fp),
        "npv": (tn, fn),
        "f1": (tp, fp + fn),
        "balanced_accuracy": (tp, fn, tn, fp),
    }
    return min(table[name])


def _multiclass_minority(t: np.ndarray, name: str) -> int:
    diag = np.diag(t)
    if name == "multiclass_accuracy":
        return int(min(diag.sum(), t.sum() - diag.sum()))
    rows, cols = t.sum(axis=1), t.sum(axis=0)
    if name == "macro_recall":
        wrong = rows - diag
    elif name in ("macro_precision", "macro_specificity"):
        wrong = cols - diag
    else:
        wrong = rows + cols - 2 * diag
    return int(min(diag.min(), wrong.min()))


class _Counts:
    """Bootstrap of a metric of predicted labels through the confusion counts."""

    def __init__(self, name: str, y, a, b):
        self.name = name
        self.paired = b is not None
        if name in _MULTICLASS_METRICS:
            yy = _inputs.class_labels(y, "y")
            aa = _inputs.class_labels(a, "a")
            cols = [yy, aa]
            if self.paired:
                cols.append(_inputs.class_labels(b, "b"))
            _inputs.same_length(yy.size, **{n: c for n, c in zip("ab", cols[1:], strict=False)})
            classes, codes = np.unique(np.concatenate(cols), return_inverse=True)
            k = classes.size
            if k < 2:
                raise ValueError("y and the predictions hold a single class; nothing to measure")
            codes = codes.reshape(len(cols), -1)
            self.multi = True
        else:
            yy = _inputs.binary_labels(y, "y")
            cols = [yy, _inputs.binary_labels(a, "a")]
            if self.paired:
                cols.append(_inputs.binary_labels(b, "b"))
            _inputs.same_length(yy.size, **{n: c for n, c in zip("ab", cols[1:], strict=False)})
            flat = np.zeros(yy.size, dtype=np.uint8)  # bits (y, a[, b]) of each item
            for c in cols:
                flat <<= 1
                flat |= c.view(np.uint8)
            k = 2
            self.multi = False
        self.k = k
        self.shape = (k,) * len(cols)
        if self.multi:
            flat = np.ravel_multi_index(tuple(codes), self.shape)
        self.counts = np.bincount(flat, minlength=k ** len(cols))
        self.n = int(yy.size)

    def _tables(self, counts: np.ndarray):
        t = counts.reshape(counts.shape[:-1] + self.shape).astype(float)
        if not self.paired:
            return t, None
        return t.sum(axis=-1), t.sum(axis=-2)  # model A (sum over B), model B

    def statistic(self, counts: np.ndarray) -> np.ndarray:
        metric = _multiclass_table_metric if self.multi else _binary_table_metric
        ta, tb = self._tables(counts)
        value = metric(ta, self.name)
        return value if tb is None else value - metric(tb, self.name)

    def estimate(self) -> float:
        return float(self.statistic(self.counts))

    def resample(self, rng, n_resamples: int) -> np.ndarray:
        p = self.counts / self.n
        out = np.empty(n_resamples)
        step = max(1, 2**22 // self.counts.size)
        for start in range(0, n_resamples, step):
            stop = min(start + step, n_resamples)
            draws = rng.multinomial(self.n, p, size=stop - start)
            out[start:stop] = self.statistic(draws)
        return out

    def jackknife(self) -> tuple[np.ndarray, np.ndarray]:
        cells = np.flatnonzero(self.counts)
        left_out = self.counts[None, :] - np.eye(self.counts.size, dtype=np.int64)[cells]
        return self.statistic(left_out), self.counts[cells].astype(float)

    def minority(self) -> int:
        minority = _multiclass_minority if self.multi else _binary_minority
        ta, tb = self._tables(self.counts)
        low = minority(ta, self.name)
        if tb is not None:
            low = min(low, minority(tb, self.name), self._disagreements())
        return low

    def _disagreements(self) -> int:
        t = self.counts.reshape(self.shape)
        idx = np.indices(self.shape)
        return int(t[idx[1] != idx[2]].sum())


# --------------------------------------------------------------------------- mean metrics
class _Means:
    """Bootstrap of a mean of per-item losses (Brier, log loss) or of their paired differences."""

    def __init__(self, name: str, y, a, b):
        from heldout.metrics.item_losses import brier_items, log_loss_items

        items = brier_items if name == "brier" else log_loss_items
        self.pos = _inputs.binary_labels(y, "y")
        values = items(self.pos, a)
        if b is not None:
            values = values - items(self.pos, b)
        self.values = values
        self.n = int(values.size)

    def estimate(self) -> float:
        return float(self.values.mean())

    def resample(self, rng, n_resamples: int) -> np.ndarray:
        out = np.empty(n_resamples)
        step = max(1, 2**22 // self.n)
        for start in range(0, n_resamples, step):
            stop = min(start + step, n_resamples)
            idx = rng.integers(0, self.n, size=(stop - start, self.n))
            out[start:stop] = self.values[idx].mean(axis=1)
        return out

    def jackknife(self):
        if self.n < 2:
            return np.array([self.values.mean()]), np.ones(1)
        return (self.values.sum() - self.values) / (self.n - 1), np.ones(self.n)

    def minority(self) -> int:
        n1 = int(np.count_nonzero(self.pos))
        return min(n1, self.n - n1)


# --------------------------------------------------------------------------- AUC
class _AUC:
    """Bootstrap of the AUC (or a paired difference) from resampled item weights."""

    def __init__(self, y, a, b):
        from heldout.metrics.auc import _placements

        self.pos = _inputs.binary_labels(y, "y")
        models = [_inputs.scores(a, "a", self.pos.size)]
        if b is not None:
            models.append(_inputs.scores(b, "b", self.pos.size))
        _inputs.both_classes(self.pos, "y")
        self.n = int(self.pos.size)
        self.n1 = int(np.count_nonzero(self.pos))
        self.n0 = self.n - self.n1
        s2 = np.vstack(models)
        self.v10, self.v01 = _placements(self.pos, s2, aligned=True)
        self.auc = self.v10.mean(axis=1)
        # per model: item -> 2 * (tie group in sorted order) + label, so that one
        # bincount of a resample gives the weight of positives and negatives per group
        self.codes = []
        for s in s2:
            _, gid = np.unique(s, return_inverse=True)
            self.codes.append((2 * gid + self.pos).astype(np.int64))
        self.group_counts = [int(c.max()) // 2 + 1 for c in self.codes]

    def estimate(self) -> float:
        return float(self.auc[0] - (self.auc[1] if self.auc.size > 1 else 0.0))

    @staticmethod
    def _auc_from_codes(code_draws: np.ndarray, groups: int) -> np.ndarray:
        m = code_draws.shape[0]
        offsets = (np.arange(m, dtype=np.int64) * (2 * groups))[:, None]
        w = np.bincount((code_draws + offsets).ravel(), minlength=m * 2 * groups)
        w = w.reshape(m, groups, 2)
        negw, posw = w[..., 0], w[..., 1]
        twice_below = np.cumsum(negw, axis=1)  # integer arithmetic throughout: exact
        twice_below *= 2
        twice_below -= negw  # 2 * (negatives strictly below) + negatives tied
        numerator = np.einsum("ij,ij->i", posw, twice_below)
        with np.errstate(invalid="ignore", divide="ignore"):
            return numerator / (2.0 * posw.sum(axis=1) * negw.sum(axis=1))

    def resample(self, rng, n_resamples: int) -> np.ndarray:
        out = np.empty(n_resamples)
        step = max(1, 2**21 // self.n)
        for start in range(0, n_resamples, step):
            stop = min(start + step, n_resamples)
            idx = rng.integers(0, self.n, size=(stop - start, self.n))
            value = self._auc_from_codes(self.codes[0][idx], self.group_counts[0])
            if len(self.codes) > 1:
                value -= self._auc_from_codes(self.codes[1][idx], self.group_counts[1])
            out[start:stop] = value
        return out

    def jackknife(self):
        n1, n0 = self.n1, self.n0
        with np.errstate(invalid="ignore", divide="ignore"):
            jp = (n1 * self.auc[:, None] - self.v10) / (n1 - 1) if n1 > 1 else None
            jn = (n0 * self.auc[:, None] - self.v01) / (n0 - 1) if n0 > 1 else None
        parts = []
        for j in (jp, jn):
            if j is not None:
                parts.append(j[0] - (j[1] if j.shape[0] > 1 else 0.0))
        values = np.concatenate(parts) if parts else np.array([self.estimate()])
        return values, np.ones(values.size)

    def minority(self) -> int:
        return min(self.n1, self.n0)


# --------------------------------------------------------------------------- callables
def _callable_bootstrap(func, y, a, b, alpha, n_resamples, method, rng):
    from scipy import stats

    yy = np.asarray(y)
    aa = np.asarray(a)
    if yy.ndim != 1 or yy.size == 0:
        raise ValueError(f"y must be a non-empty 1-d array, got shape {yy.shape}")
    if yy.size > CALLABLE_MAX_N and method == "bca":
        raise ValueError(
            f"a callable metric's BCa jackknife needs n calls on n - 1 items; y has {yy.size} "
            f"items, more than {CALLABLE_MAX_N}: use a named metric ({', '.join(METRICS)}) "
            "or method='percentile'"
        )
    data = [yy, aa] if b is None else [yy, aa, np.asarray(b)]
    _inputs.same_length(yy.size, **{n: d for n, d in zip("ab", data[1:], strict=False)})

    if b is None:

        def statistic(y_, a_):
            return func(y_, a_)
    else:

        def statistic(y_, a_, b_):
            return func(y_, a_) - func(y_, b_)

    theta = float(statistic(*data))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.bootstrap(
            data,
            statistic,
            paired=True,
            vectorized=False,
            n_resamples=n_resamples,
            confidence_level=1 - alpha,
            method="BCa" if method == "bca" else "percentile",
            random_state=rng,
        )
    boot = np.asarray(res.bootstrap_distribution, dtype=float)
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    yy_classes, yy_counts = np.unique(yy, return_counts=True)
    minority = int(yy_counts.min()) if yy_classes.size > 1 else 0
    return theta, boot, low, high, minority


# --------------------------------------------------------------------------- front
def _engine(metric: str, y, a, b):
    if metric in _LABEL_METRICS or metric in _MULTICLASS_METRICS:
        return _Counts(metric, y, a, b)
    if metric in _MEAN_METRICS:
        return _Means(metric, y, a, b)
    return _AUC(y, a, b)


def bootstrap_interval(
    metric: str | Callable,
    y: ArrayLike,
    a: ArrayLike,
    b: ArrayLike | None = None,
    *,
    alpha: float = 0.05,
    n_resamples: int = 2000,
    method: str = "bca",
    seed=None,
    warn: bool = True,
) -> Estimate | Difference:
    """Paired BCa bootstrap interval for a metric of one model, or for ``metric(A) - metric(B)``.

    Parameters
    ----------
    metric : str or callable
        A name from :data:`METRICS` (fast, exact resampling through sufficient
        statistics), or a function ``f(y, pred) -> float`` (resampled by
        ``scipy.stats.bootstrap``, at most :data:`CALLABLE_MAX_N` items).
    y : array_like, shape (n,)
        Labels (0/1; whole-number classes for the multi-class metrics).
    a : array_like, shape (n,)
        Model A's predictions: labels, scores or probabilities as the metric needs.
    b : array_like, shape (n,), optional
        Model B's predictions on the same items: the interval is then for the
        difference A - B, from the same resampled items (paired), with a p-value.
    alpha : float, default 0.05
    n_resamples : int, default 2000
    method : {"bca", "percentile"}
    seed : int, Generator or None
        Seed of the resampling (default: the book's seed, so results repeat).
    warn : bool, default True
        Warn (:class:`SmallSampleWarning`) when a count the metric depends on is
        below :data:`MIN_COUNT` or when resamples leave the metric undefined.

    Returns
    -------
    Estimate or Difference
        :class:`BootstrapDifference` (with ``p_value``, from inverting the interval, never
        below ``p_floor = 1/(B + 1)``, the smallest p-value the resamples resolve, and
        ``p_tail``, how many resamples it is read from, and ``p_coarse`` when fewer than
        ``MIN_TAIL`` (10)) when ``b`` is given.

    Examples
    --------
    >>> rng = np.random.default_rng(5)
    >>> y = rng.random(2000) < 0.3
    >>> a = np.where(rng.random(2000) < 0.85, y, ~y)
    >>> b = np.where(rng.random(2000) < 0.80, y, ~y)
    >>> e = bootstrap_interval("f1", y, a, seed=1)
    >>> round(e.value, 3), round(e.low, 3), round(e.high, 3)
    (0.771, 0.747, 0.796)
    >>> d = bootstrap_interval("f1", y, a, b, seed=1)
    >>> round(d.value, 3), round(d.low, 3), round(d.high, 3), round(d.p_value, 3)
    (0.056, 0.023, 0.085, ...)
    """
    warn = as_flag(warn, "warn")
    if not in_choices(method, ("bca", "percentile")):
        raise ValueError(f"method must be 'bca' or 'percentile', got {show(method)}")
    a_ = _inputs.alpha_value(alpha)
    _check_resamples(n_resamples)
    rng = make_rng(seed)
    if callable(metric):
        theta, boot, low, high, minority = _callable_bootstrap(
            metric, y, a, b, a_, int(n_resamples), method, rng
        )
        name = getattr(metric, "__name__", "metric")
        z0, acc = _z0_from(boot, theta), 0.0
        p_method = "percentile"
    else:
        if not isinstance(metric, str) or metric not in METRICS:
            raise ValueError(
                f"metric must be a callable or one of {', '.join(METRICS)}, got {show(metric)}"
            )
        eng = _engine(metric, y, a, b)
        theta, boot, low, high, z0, acc = _counts_bca(eng, metric, rng, n_resamples, a_, method)
        minority = eng.minority()
        name = metric
        p_method = method
    n = int(np.shape(y)[0])
    undefined = int(np.count_nonzero(~np.isfinite(boot)))
    if warn:
        _warn_if_small(name, minority, undefined, boot.size)
    label = f"bootstrap-{method}"
    if b is None:
        return Estimate(theta, low, high, method=label, n=n, alpha=a_)
    p = _bca_p_value(boot, z0, acc, p_method)
    return _difference(theta, low, high, boot, p, method=label, n=n, alpha=a_)


def _counts_bca(eng, metric: str, rng, n_resamples: int, a_: float, method: str):
    """``(theta, draws, low, high, z0, acceleration)`` of a metric engine's BCa interval.

    The estimate (refused when a denominator is zero), ``n_resamples`` draws from ``rng``
    and the weighted jackknife, as :func:`bootstrap_interval` and
    :func:`_paired_table_interval` both use them.
    """
    theta = eng.estimate()
    if not math.isfinite(theta):
        raise ValueError(f"{metric} is undefined on this sample (a zero denominator)")
    boot = eng.resample(rng, int(n_resamples))
    jack, weights = eng.jackknife()
    low, high, z0, acc = bca_interval(theta, boot, jack, a_, weights, method)
    return theta, boot, low, high, z0, acc


def _paired_table_interval(
    metric: str,
    counts,
    *,
    alpha: float,
    n_resamples: int,
    seed=None,
    method: str = "bca",
    classes: int = 2,
) -> Difference:
    """``bootstrap_interval(metric, y, a, b)`` of a label metric from its counts.

    ``counts[4 y + 2 a + b]`` is the number of items with label ``y`` and predictions
    ``a``, ``b`` (0/1): the resampling of a label metric depends on the items only
    through these eight counts, so this gives the same interval (same seed, same draws)
    without the items, as an engine that only counts (:mod:`heldout.metrics.engine`)
    needs.  For a several-class metric (``macro_f1``, ...) ``counts`` is the flattened
    (``classes``, ``classes``, ``classes``) table over the sorted classes present in
    ``y``, ``a`` and ``b``.  No warnings are raised.
    """
    eng = _Counts.__new__(_Counts)
    k = int(classes)
    eng.name, eng.paired, eng.k, eng.shape = metric, True, k, (k, k, k)
    eng.multi = metric in _MULTICLASS_METRICS
    eng.counts = np.asarray(counts, dtype=np.int64).reshape(k**3)
    eng.n = int(eng.counts.sum())
    a_ = _inputs.alpha_value(alpha)
    rng = make_rng(seed)
    theta, boot, low, high, z0, acc = _counts_bca(eng, metric, rng, n_resamples, a_, method)
    p = _bca_p_value(boot, z0, acc, method)
    label = f"bootstrap-{method}"
    return _difference(theta, low, high, boot, p, method=label, n=eng.n, alpha=a_)


def _check_resamples(n_resamples) -> None:
    if (
        not isinstance(n_resamples, int | np.integer)
        or n_resamples < 100
        or n_resamples > MAX_RESAMPLES
    ):
        raise ValueError(
            f"n_resamples must be a whole number from 100 to {MAX_RESAMPLES}, got {show(n_resamples)}"
        )


def _z0_from(boot: np.ndarray, theta: float) -> float:
    b = boot[np.isfinite(boot)]
    if b.size == 0:
        return 0.0
    share = ((b < theta).sum() + (b <= theta).sum()) / (2 * b.size)
    return float(special.ndtri(min(max(share, 0.5 / b.size), 1 - 0.5 / b.size)))


def _warn_if_small(name: str, minority: int, undefined: int, total: int) -> None:
    if minority < MIN_COUNT:
        warnings.warn(
            f"{name}: a count the metric depends on is {minority}, below {MIN_COUNT}; "
            "the bootstrap interval's coverage is not trusted at this size",
            SmallSampleWarning,
            stacklevel=3,
        )
    if undefined:
        warnings.warn(
            f"{name}: the metric was undefined in {undefined} of {total} resamples "
            "(a zero denominator); they were dropped and the interval is not trusted",
            SmallSampleWarning,
            stacklevel=3,
        )


# --------------------------------------------------------------------------- clusters
#: Metrics of :func:`cluster_bootstrap_interval`.
CLUSTER_METRICS = ("auc", *_LABEL_METRICS)
_CHUNK = 4_000_000  # resampled cells (resamples x groups) computed at a time


class _ClusterTables:
    """Per-cluster confusion tables of one or two models (binary labels)."""

    def __init__(self, name, pos, codes, g, preds):
        self.name = name
        self.tables = []
        for p in preds:
            cell = 2 * pos.astype(np.int64) + p.astype(np.int64)
            t = np.bincount(codes * 4 + cell, minlength=4 * g).reshape(g, 2, 2)
            self.tables.append(t.astype(float))

    def _metric(self, tables):
        values = [_binary_table_metric(t, self.name) for t in tables]
        return values[0] - values[1] if len(values) > 1 else values[0]

    def estimate(self) -> float:
        return float(self._metric([t.sum(axis=0) for t in self.tables]))

    def resample(self, counts: np.ndarray) -> np.ndarray:
        return self._metric([np.einsum("bg,gij->bij", counts, t) for t in self.tables])

    def jackknife(self) -> np.ndarray:
        return self._metric([t.sum(axis=0)[None] - t for t in self.tables])


class _ClusterAUC:
    """The AUC (or a paired difference) from per-cluster weights of tie groups of scores."""

    def __init__(self, pos, codes, g, scores):
        from scipy import sparse

        from heldout.metrics.auc import _placements

        self.pos, self.codes, self.g = pos, codes, g
        self.n1 = int(np.count_nonzero(pos))
        self.n0 = pos.size - self.n1
        s2 = np.vstack(scores)
        self.v10, self.v01 = _placements(pos, s2, aligned=True)
        self.mats = []
        self.within = []
        for s in s2:
            _, rank = np.unique(s, return_inverse=True)
            rank = rank.reshape(-1).astype(np.int64)
            k = int(rank.max()) + 1
            shape = (g, k)
            ones = np.ones(pos.size)
            p_mat = sparse.csr_matrix((ones[pos], (codes[pos], rank[pos])), shape=shape)
            n_mat = sparse.csr_matrix((ones[~pos], (codes[~pos], rank[~pos])), shape=shape)
            self.mats.append((p_mat.T.tocsr(), n_mat.T.tocsr(), k))
            self.within.append(self._within_pairs(rank, k))

    def _within_pairs(self, rank, k) -> np.ndarray:
        """Per cluster, the pairs (positive, negative) of that cluster ranked right (ties 1/2)."""
        key = self.codes * (k + 1) + rank
        neg = np.sort(key[~self.pos])
        kp, cp = key[self.pos], self.codes[self.pos]
        first = np.searchsorted(neg, cp * (k + 1), side="left")
        left = np.searchsorted(neg, kp, side="left")
        right = np.searchsorted(neg, kp, side="right")
        u = (left - first) + 0.5 * (right - left)
        return np.bincount(cp, weights=u, minlength=self.g)

    def estimate(self) -> float:
        a = self.v10.mean(axis=1)
        return float(a[0] - a[1]) if a.size > 1 else float(a[0])

    @staticmethod
    def _auc(counts, p_t, n_t):
        wp = (p_t @ counts.T).T  # (resamples, tie groups)
        wn = (n_t @ counts.T).T
        below = np.cumsum(wn, axis=1) - 0.5 * wn
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.einsum("ij,ij->i", wp, below) / (wp.sum(axis=1) * wn.sum(axis=1))

    def resample(self, counts: np.ndarray) -> np.ndarray:
        out = None
        for p_t, n_t, k in self.mats:
            step = max(1, _CHUNK // k)
            value = np.concatenate(
                [self._auc(counts[i : i + step], p_t, n_t) for i in range(0, counts.shape[0], step)]
            )
            out = value if out is None else out - value
        return out

    def jackknife(self) -> np.ndarray:
        n1g = np.bincount(self.codes[self.pos], minlength=self.g)
        n0g = np.bincount(self.codes[~self.pos], minlength=self.g)
        out = None
        for m in range(self.v10.shape[0]):
            total = self.n1 * self.n0 * self.v10[m].mean()
            with_pos = np.bincount(
                self.codes[self.pos], weights=self.n0 * self.v10[m], minlength=self.g
            )
            with_neg = np.bincount(
                self.codes[~self.pos], weights=self.n1 * self.v01[m], minlength=self.g
            )
            left = total - with_pos - with_neg + self.within[m]
            with np.errstate(invalid="ignore", divide="ignore"):
                value = left / ((self.n1 - n1g) * (self.n0 - n0g))
            out = value if out is None else out - value
        return out


def cluster_bootstrap_interval(
    metric: str,
    y: ArrayLike,
    a: ArrayLike,
    b: ArrayLike | None = None,
    *,
    clusters: ArrayLike,
    alpha: float = 0.05,
    n_resamples: int = 2000,
    seed=None,
) -> Estimate | Difference:
    """BCa interval for the AUC or a label metric by resampling whole clusters.

    Each resample draws the :math:`G` clusters with replacement (counts
    :math:`c \\sim \\mathrm{Multinomial}(G, 1/G)`) and recomputes the metric on
    the items of the drawn clusters, each cluster as often as it was drawn
    :cite:`field2007bootstrapping`: from per-cluster confusion tables for a
    metric of predicted labels, and from per-cluster weights of the tie groups
    of scores for the AUC.  The interval is BCa :cite:`efron1987` with the
    acceleration from the leave-one-cluster-out jackknife (for the AUC in closed
    form: the pairs with a member in the left-out cluster are removed from the
    Mann-Whitney count), with two small-sample corrections for :math:`G`
    clusters: the resampled values are spread by :math:`\\sqrt{G/(G-1)}` about
    the estimate (the resampled clusters' variance has denominator :math:`G`,
    like CR0) and the normal quantiles of the BCa levels are replaced by those
    of Student's t with :math:`G-1` degrees of freedom, as for the
    cluster-robust t interval :cite:`cameron2015practitioner`.  With ``b`` the same resampled clusters serve both
    models and the interval is for ``metric(A) - metric(B)``, with a p-value from
    inverting it.  Like every cluster-robust method it needs many clusters
    (several dozen); the items inside a cluster may be correlated in any way.

    Parameters
    ----------
    metric : str
        ``"auc"`` (``a``, ``b`` scores) or a binary label metric of :data:`METRICS`
        (``a``, ``b`` predicted labels 0/1).
    y : array_like of 0/1, shape (n,)
    a, b : array_like, shape (n,)
    clusters : array_like, shape (n,)
        Cluster of each item (numbers or strings), at least two clusters.
    alpha : float, default 0.05
    n_resamples : int, default 2000
    seed : int, Generator or None

    Returns
    -------
    Estimate or Difference
        ``method="cluster-bootstrap-bca"``, ``se`` the standard deviation of the
        resampled values.

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> g = np.repeat(np.arange(60), 10)
    >>> y = rng.random(600) < 0.3
    >>> s = rng.normal(size=600) + rng.normal(size=60)[g] + 1.2 * y
    >>> e = cluster_bootstrap_interval("auc", y, s, clusters=g, seed=1)
    >>> round(e.value, 3), e.low < e.value < e.high, e.method
    (0.717, True, 'cluster-bootstrap-bca')
    """
    from heldout.dependent.clustered import cluster_codes

    if not isinstance(metric, str) or metric not in CLUSTER_METRICS:
        raise ValueError(f"metric must be one of {', '.join(CLUSTER_METRICS)}, got {show(metric)}")
    a_ = _inputs.alpha_value(alpha)
    _check_resamples(n_resamples)
    pos = _inputs.binary_labels(y, "y")
    models = [a] if b is None else [a, b]
    names = ["a"] if b is None else ["a", "b"]
    codes, g = cluster_codes(clusters, pos.size)
    if metric == "auc":
        _inputs.both_classes(pos, "y")
        scores = [_inputs.scores(m, nm, pos.size) for m, nm in zip(models, names, strict=True)]
        eng = _ClusterAUC(pos, codes, g, scores)
    else:
        preds = [_inputs.binary_labels(m, nm) for m, nm in zip(models, names, strict=True)]
        for p, nm in zip(preds, names, strict=True):
            if p.size != pos.size:
                raise ValueError(
                    f"{nm} must have one prediction per item ({pos.size}), got {p.size}"
                )
        eng = _ClusterTables(metric, pos, codes, g, preds)
    return _cluster_interval(eng, metric, g, int(pos.size), a_, n_resamples, seed, b is not None)


def _cluster_table_interval(
    metric: str, tables, *, alpha: float, n_resamples: int, seed=None
) -> Estimate | Difference:
    """``cluster_bootstrap_interval`` of a two-class label metric from per-cluster tables.

    ``tables`` holds one array (G, 2, 2) per model (one model, or two for a paired
    difference): the confusion counts ``[y, prediction]`` of each cluster, the clusters
    in the order of their sorted ids.  The resampling depends on the items only through
    these tables, so an engine that only counts (:mod:`heldout.metrics.engine`) gets the
    same interval (same seed, same draws).
    """
    eng = _ClusterTables.__new__(_ClusterTables)
    eng.name = metric
    eng.tables = [np.asarray(t, dtype=float).reshape(-1, 2, 2) for t in tables]
    g = eng.tables[0].shape[0]
    n = int(round(eng.tables[0].sum()))
    a_ = _inputs.alpha_value(alpha)
    return _cluster_interval(eng, metric, g, n, a_, n_resamples, seed, len(tables) > 1)


def _cluster_interval(eng, metric, g, n, a_, n_resamples, seed, paired):
    """The BCa interval (and p-value when ``paired``) of a cluster bootstrap engine."""
    theta = eng.estimate()
    if not math.isfinite(theta):
        raise ValueError(f"{metric} is undefined on this sample (a zero denominator)")
    rng = make_rng(seed)
    step = max(1, _CHUNK // g)
    boot = np.concatenate(
        [
            eng.resample(rng.multinomial(g, np.full(g, 1.0 / g), size=min(step, n_resamples - i)))
            for i in range(0, int(n_resamples), step)
        ]
    )
    boot = theta + (boot - theta) * math.sqrt(g / (g - 1))
    low, high, z0, acc = bca_interval(theta, boot, eng.jackknife(), a_, df=g - 1)
    finite = boot[np.isfinite(boot)]
    se = float(finite.std(ddof=1)) if finite.size > 1 else math.nan
    label = "cluster-bootstrap-bca"
    if not paired:
        return Estimate(theta, low, high, method=label, se=se, n=n, alpha=a_)
    p = _bca_p_value(boot, z0, acc, "bca", df=g - 1)
    return _difference(theta, low, high, boot, p, method=label, se=se, n=n, alpha=a_)
