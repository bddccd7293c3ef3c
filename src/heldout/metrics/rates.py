"""Rates with their own denominators: sensitivity, specificity, precision, NPV, accuracy.

Each of these is a proportion, but not of the whole test set:

=========================  ==============================  ==========================
rate                       counts                          denominator
=========================  ==============================  ==========================
sensitivity (recall, TPR)  :math:`TP/(TP+FN)`              actual positives
specificity (TNR)          :math:`TN/(TN+FP)`              actual negatives
precision (PPV)            :math:`TP/(TP+FP)`              predicted positives
negative predictive value  :math:`TN/(TN+FN)`              predicted negatives
accuracy                   :math:`(TP+TN)/n`               all items
=========================  ==============================  ==========================

With test items drawn independently from the population, the items that fall in
a denominator are themselves an independent sample of their kind, so *given* the
denominator :math:`m` the numerator is :math:`\\mathrm{Binomial}(m, \\text{rate})`.
The exact Clopper-Pearson interval on :math:`(k, m)` :cite:`clopper1934` therefore
covers with probability at least :math:`1-\\alpha` conditionally on every value of
the denominator, hence also unconditionally.  What the random denominator changes:
the interval's width is set by how many items land in the denominator (for
precision, how many items the *model* flags, which the tester does not choose),
so a test set must be sized for that count, not for :math:`n`; when the
denominator is 0 the rate is undefined.  The acceptance article's remark that
sensitivity and specificity "count only the actual positives or negatives"
:cite:`required_accuracy` is this fact for two of the four rates; for precision
and NPV the count is of *predicted* positives or negatives.

Multi-class: :func:`confusion_matrix` (rows true class, columns predicted class,
scikit-learn's convention) and :func:`class_rates` (one-vs-rest recall and
precision of every class, each with its exact interval).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from heldout import _dist, _inputs
from heldout._checks import as_counts, in_choices, show
from heldout._deprecate import renamed
from heldout._result import Result
from heldout.metrics.estimate import Difference, Estimate

__all__ = [
    "RATE_METHODS",
    "RATE_NAMES",
    "ClassRates",
    "Confusion",
    "Rates",
    "accuracy_difference",
    "class_rates",
    "confusion",
    "confusion_matrix",
    "rate_interval",
    "rates",
]

#: Interval methods of :func:`rate_interval`.
RATE_METHODS = ("clopper-pearson", "wald")
#: The rates of :func:`rates`, in order.
RATE_NAMES = ("accuracy", "sensitivity", "specificity", "precision", "npv")


@dataclass(frozen=True)
class Confusion(Result):
    """The four counts of a binary confusion matrix.

    Attributes
    ----------
    tp, fp, fn, tn : int
        True positives, false positives, false negatives, true negatives.
    """

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def n(self) -> int:
        """All items."""
        return self.tp + self.fp + self.fn + self.tn

    def counts(self, rate: str) -> tuple[int, int]:
        """``(numerator, denominator)`` of ``rate`` (one of :data:`RATE_NAMES`, or ``recall``)."""
        table = {
            "accuracy": (self.tp + self.tn, self.n),
            "sensitivity": (self.tp, self.tp + self.fn),
            "recall": (self.tp, self.tp + self.fn),
            "specificity": (self.tn, self.tn + self.fp),
            "precision": (self.tp, self.tp + self.fp),
            "npv": (self.tn, self.tn + self.fn),
        }
        if not in_choices(rate, table):
            raise ValueError(f"rate must be one of {', '.join(table)}, got {show(rate)}")
        return table[rate]


def confusion(y: ArrayLike, pred: ArrayLike) -> Confusion:
    """Counts of a binary confusion matrix from labels and predicted labels (0/1).

    Examples
    --------
    >>> confusion([1, 1, 0, 0, 1], [1, 0, 0, 1, 1])
    Confusion(tp=2, fp=1, fn=1, tn=1)
    """
    pos = _inputs.binary_labels(y, "y")
    hat = _inputs.binary_labels(pred, "pred")
    _inputs.same_length(pos.size, pred=hat)
    tp = int(np.count_nonzero(pos & hat))
    fp = int(np.count_nonzero(hat)) - tp
    fn = int(np.count_nonzero(pos)) - tp
    return Confusion(tp, fp, fn, pos.size - tp - fp - fn)


@renamed(m="n")
def rate_interval(
    k: ArrayLike, n: ArrayLike, alpha: float = 0.05, method: str = "clopper-pearson"
) -> Estimate:
    """Interval for a rate ``k / n`` on its own denominator ``n``.

    ``"clopper-pearson"`` (default): the exact interval
    ``(exact_lower(k, n, alpha/2), exact_upper(k, n, alpha/2))`` of
    :mod:`heldout.accuracy.bounds` :cite:`clopper1934`; conditionally on ``n`` it covers
    with probability at least ``1 - alpha`` for every true rate.
    ``"wald"``: :math:`\\hat p \\pm z\\sqrt{\\hat p(1-\\hat p)/n}`, clipped to [0, 1]
    (shown in the book for contrast: it undercovers near 0 and 1).

    Parameters
    ----------
    k, n : int or array_like
        Count and denominator, ``0 <= k <= n``, ``n >= 1``.  A rate whose
        denominator is 0 is undefined: ``ValueError``.  (``m=`` is a deprecated
        name of ``n``.)
    alpha : float, default 0.05
    method : {"clopper-pearson", "wald"}

    Returns
    -------
    Estimate
        ``value = k/n``, ``low``, ``high`` (floats, or arrays for array input), ``n``.

    Examples
    --------
    >>> e = rate_interval(45, 50)
    >>> round(e.value, 3), round(e.low, 4), round(e.high, 4)
    (0.9, 0.7819, 0.9667)
    """
    if not in_choices(method, RATE_METHODS):
        raise ValueError(f"method must be one of {', '.join(RATE_METHODS)}, got {show(method)}")
    a = _inputs.alpha_value(alpha)
    _inputs.count(k, "k")
    _inputs.count(n, "n")
    if np.any(np.asarray(n) == 0):
        raise ValueError(
            "n (the rate's denominator) is 0: the rate is undefined "
            "(for precision: the model predicted no positives)"
        )
    k_arr, m_arr = as_counts(k, n, "k", "n")
    phat = k_arr / m_arr
    if method == "clopper-pearson":
        from heldout.accuracy.bounds import exact_lower, exact_upper

        low = np.asarray(exact_lower(k_arr, m_arr, a / 2), dtype=float)
        high = np.asarray(exact_upper(k_arr, m_arr, a / 2), dtype=float)
        se = np.full(phat.shape, np.nan)
    else:
        z = _dist.norm_isf(a / 2)
        se = np.sqrt(phat * (1 - phat) / m_arr)
        low, high = np.clip(phat - z * se, 0, 1), np.clip(phat + z * se, 0, 1)
    return Estimate.from_arrays(phat, low, high, method=method, se=se, n=m_arr, alpha=a)


@dataclass(frozen=True)
class Rates(Result):
    """The five rates of a binary classifier, each an :class:`~heldout.metrics.estimate.Estimate`."""

    accuracy: Estimate
    sensitivity: Estimate
    specificity: Estimate
    precision: Estimate | None
    npv: Estimate | None


def rates(
    y: ArrayLike, pred: ArrayLike, alpha: float = 0.05, method: str = "clopper-pearson"
) -> Rates:
    """Accuracy, sensitivity, specificity, precision and NPV with intervals on their own denominators.

    Each rate gets :func:`rate_interval` on its own numerator and denominator (see
    the module's table); precision (NPV) is ``None`` when the model predicts no
    positives (negatives).  Both classes must be present in ``y``.

    Examples
    --------
    >>> r = rates([1, 1, 1, 0, 0, 0, 0, 1], [1, 1, 0, 0, 0, 1, 0, 1])
    >>> round(r.sensitivity.value, 2), r.sensitivity.n, round(r.precision.value, 2), r.precision.n
    (0.75, 4, 0.75, 4)
    """
    c = confusion(y, pred)
    if c.tp + c.fn == 0 or c.tn + c.fp == 0:
        raise ValueError("y must contain both classes (positives and negatives)")
    out = {}
    for name in RATE_NAMES:
        k, m = c.counts(name)
        out[name] = rate_interval(k, m, alpha, method) if m > 0 else None
    return Rates(**out)


def confusion_matrix(y: ArrayLike, pred: ArrayLike, classes: ArrayLike | None = None) -> np.ndarray:
    """Multi-class confusion matrix: ``C[i, j]`` items of true class ``i`` predicted as ``j``.

    Rows are true classes and columns predicted classes, in the order of
    ``classes`` (default: the sorted union of the labels seen in ``y`` and
    ``pred``), as scikit-learn's ``confusion_matrix``.

    Examples
    --------
    >>> confusion_matrix([0, 1, 2, 2, 1], [0, 2, 2, 2, 1]).tolist()
    [[1, 0, 0], [0, 1, 1], [0, 0, 2]]
    """
    yy = _inputs.class_labels(y, "y")
    pp = _inputs.class_labels(pred, "pred")
    _inputs.same_length(yy.size, pred=pp)
    if classes is None:
        cls = np.union1d(yy, pp)
    else:
        cls = _inputs.class_labels(classes, "classes")
        if np.unique(cls).size != cls.size:
            raise ValueError("classes must not repeat a label")
    k = cls.size
    if np.array_equal(cls, np.arange(k)):  # labels 0..k-1: the codes are direct
        for values, name in ((yy, "y"), (pp, "pred")):
            if values.min() < 0 or values.max() >= k:
                raise ValueError(f"{name} holds labels that are not in classes")
        codes = yy * k + pp
    else:
        order = np.argsort(cls)
        sorted_cls = cls[order]

        def position(values, name):
            i = np.minimum(np.searchsorted(sorted_cls, values), k - 1)
            if not np.all(sorted_cls[i] == values):
                raise ValueError(f"{name} holds labels that are not in classes")
            return order[i]

        codes = position(yy, "y") * k + position(pp, "pred")
    return np.bincount(codes, minlength=k * k).reshape(k, k)


@dataclass(frozen=True)
class ClassRates(Result):
    """Per-class one-vs-rest recall and precision with exact intervals.

    Attributes
    ----------
    recall, precision : list of Estimate or None
        One per class (``None`` for precision when a class is never predicted).
    support : ndarray of int
        Items of each true class.
    """

    recall: list
    precision: list
    support: np.ndarray


def class_rates(
    matrix: ArrayLike, alpha: float = 0.05, method: str = "clopper-pearson"
) -> ClassRates:
    """Recall and precision of every class of a confusion matrix, each on its own denominator.

    Recall of class :math:`i` is :math:`C_{ii}/\\sum_j C_{ij}` (its true items),
    precision :math:`C_{ii}/\\sum_j C_{ji}` (the items predicted as :math:`i`), each with
    :func:`rate_interval`.  The intervals are per class (each covers with
    probability :math:`1-\\alpha`); for a statement about all classes at once, use
    :func:`heldout.metrics.multinomial.simultaneous_interval` on a row, or Bonferroni.

    Examples
    --------
    >>> r = class_rates([[8, 2], [1, 9]])
    >>> [round(e.value, 2) for e in r.recall], [round(e.value, 2) for e in r.precision]
    ([0.8, 0.9], [0.89, 0.82])
    """
    c = _square_counts(matrix)
    diag = np.diag(c)
    rows, cols = c.sum(axis=1), c.sum(axis=0)
    recall = [
        rate_interval(d, r, alpha, method) if r > 0 else None
        for d, r in zip(diag, rows, strict=True)
    ]
    precision = [
        rate_interval(d, k, alpha, method) if k > 0 else None
        for d, k in zip(diag, cols, strict=True)
    ]
    return ClassRates(recall, precision, rows)


def _square_counts(matrix: ArrayLike) -> np.ndarray:
    """A K x K matrix of counts (K >= 2) with at least one item."""
    arr = _inputs.array(matrix, "matrix")
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] < 2:
        raise ValueError(f"matrix must be a square K x K array with K >= 2, got shape {arr.shape}")

    c = _inputs.count(arr, "matrix")
    if c.sum() == 0:
        raise ValueError("matrix must hold at least one item")
    return c


def accuracy_difference(
    y: ArrayLike, pred_a: ArrayLike, pred_b: ArrayLike, alpha: float = 0.05
) -> Difference:
    """Paired difference of two models' accuracies on the same items, with McNemar's test.

    With :math:`b` items only A gets right and :math:`c` only B gets right, the
    difference is :math:`(b - c)/n`.  Its interval is Agresti and Min's
    :cite:`agresti2005`: add one half to each of the four cells of the paired
    table (:math:`n^* = n + 2`), then the Wald interval

    .. math:: \\frac{b^* - c^*}{n^*} \\pm z\\,\\frac{1}{n^*}\\sqrt{b^* + c^* - (b^* - c^*)^2/n^*},

    which keeps close to its level down to small samples (the plain Wald interval
    does not); the p-value is McNemar's exact test
    (:func:`heldout.comparison.paired.mcnemar_exact`, :cite:`mcnemar1947`).  ``pred_a`` and
    ``pred_b`` are predicted labels of any kind (binary or classes).

    Examples
    --------
    >>> y = [0, 1, 1, 0, 1, 1, 0, 1, 0, 1]
    >>> d = accuracy_difference(y, [0, 1, 1, 0, 1, 1, 0, 1, 0, 1], [0, 1, 0, 0, 0, 1, 1, 1, 0, 1])
    >>> round(d.value, 2), round(d.low, 3), round(d.high, 3), round(d.p_value, 3)
    (0.3, -0.044, 0.544, 0.25)
    """
    a_ = _inputs.alpha_value(alpha)
    yy = _inputs.class_labels(y, "y")
    pa = _inputs.class_labels(pred_a, "pred_a")
    pb = _inputs.class_labels(pred_b, "pred_b")
    for name, pred in (("pred_a", pa), ("pred_b", pb)):
        if pred.shape != yy.shape:
            raise ValueError(f"{name} has {pred.size} items but the labels have {yy.size}")
    ra, rb = pa == yy, pb == yy
    b = int(np.count_nonzero(ra & ~rb))
    c = int(np.count_nonzero(~ra & rb))
    return _discordant_difference(b, c, int(yy.size), a_)


def _discordant_difference(b: int, c: int, n: int, alpha: float) -> Difference:
    """:func:`accuracy_difference` from the discordant counts: ``b`` only A right, ``c`` only B.

    Also the paired accuracy difference of :mod:`heldout.metrics.report`, read from counts.
    """
    from heldout.comparison.paired import mcnemar_exact

    low, high = _agresti_min(np.asarray(b), np.asarray(c), np.asarray(n), alpha)
    p = float(mcnemar_exact(b, c, alternative="two-sided"))
    return Difference(
        (b - c) / n,
        float(low),
        float(high),
        p_value=p,
        method="agresti-min, mcnemar-exact",
        n=n,
        alpha=alpha,
    )


def _agresti_min(b, c, n, alpha):
    """Agresti-Min interval for the paired difference (b - c)/n (vectorised)."""
    z = _dist.norm_isf(alpha / 2)
    bs, cs, ns = b + 0.5, c + 0.5, n + 2.0
    d = (bs - cs) / ns
    se = np.sqrt(np.maximum(bs + cs - (bs - cs) ** 2 / ns, 0.0)) / ns
    return np.maximum(d - z * se, -1.0), np.minimum(d + z * se, 1.0)
